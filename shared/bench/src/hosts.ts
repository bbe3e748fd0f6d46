/**
 * Issue 52's goals for hosts with many sites, each printed with the load average beside it:
 *
 *   provisioning through /v1/batch        sites/s (a workspace + a classify + a challenge configuration)
 *   Redis memory per site                 bytes (INFO used_memory over the provisioned sites)
 *   paging every workspace under churn    each present one exactly once, while others are created and deleted
 *   console pages at N sites vs 10         bytes and median ms of the home page, a search and a workspace page
 *   month-end and retention over N         seconds and heap growth
 *   a webhook delivered                   p99 ms from the rotation's answer to the receiver's
 *   classify and verify beside the API    each path's req/s with a control panel's /v1 load beside it, over
 *                                         its req/s alone (runs alternated, medians; a real model worker)
 *   a receiver down for a while           --webhook-outage S: the receiver answers 503 for S seconds
 *                                         (600: the goal's ten minutes), then each event is counted
 *
 * Its Redis and NATS are its own servers on free ports; the stack runs in this process
 * (startStack), all calls over real HTTP through the gateway.
 *
 *   NODE_OPTIONS=--expose-gc pnpm bench:hosts     100,000 sites (gc: the jobs' heap growth after a collection)
 *   pnpm bench:hosts --sites 20000
 *   pnpm bench:hosts --smoke              1,000 sites (the harness only)
 *   pnpm bench:hosts --only beside --sites 10000   the classify and verify rows alone
 *   pnpm bench:hosts --only console       provisioning and the console rows, against a 10-site stack
 *   pnpm bench:hosts --webhook-outage 600 that row alone (about 17 minutes: the retry after ten
 *                                         minutes down comes at ~1,023 s, as the backoff doubles)
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { AccountStore } from "@sift/console/accounts";
import { checkPaidPlans } from "@sift/classify/jobs/month-end";
import { enforceRetention } from "@sift/classify/jobs/log-retention";
import { NoticeStore } from "@sift/keystore";
import { listen, silentLogger, systemClock, type RedisClient } from "@sift/runtime";
import { retryDelay } from "@sift/management";
import {
  IDLE_CLASS,
  SERVICE_PRIORITY,
  spawnStack,
  startModelWorker,
  startServer,
  startStack,
} from "@sift/testkit";
import { alternate, httpTarget, median as medianOf, type Target } from "./speed/load.ts";
import { apiClient, apiLoad, type ApiLevel } from "./api-load.ts";
import { SolutionPool } from "./speed/solutions.ts";
import { processCpu, redisCpu } from "./speed/cpu.ts";

const { values } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    sites: { type: "string" },
    "webhook-outage": { type: "string" },
    /** `beside`: only the classify and verify rows (after provisioning --sites); `provision`: only the first two rows; `console`: provisioning and the console rows, alternated with a 10-site stack. */
    only: { type: "string" },
    /** The /v1 load beside classify and verify in this process, not one of its own. */
    "api-in-process": { type: "boolean", default: false },
    /**
     * The classify and verify rows against the in-process stack (gateway, classify, management
     * and the worker on this process's one event loop), as before issue 58, rather than against
     * the services as their own processes as the launcher runs them (the default).
     */
    "in-process": { type: "boolean", default: false },
  },
});
const OUTAGE_S = values["webhook-outage"] === undefined ? null : Number(values["webhook-outage"]);
if (OUTAGE_S !== null && !(OUTAGE_S > 0 && OUTAGE_S <= 86_400))
  throw new Error("--webhook-outage takes seconds, 1 to 86,400");
const SITES = values.smoke ? 1_000 : Number(values.sites ?? 100_000);
const PASSWORD = "bench only, never a real password";
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const row = (goal: string, figure: string, target: string) =>
  console.log(`${goal.padEnd(58)} ${figure.padEnd(34)} target ${target.padEnd(22)} load ${load()}`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const [redisServer, natsServer] = await Promise.all([startServer("redis"), startServer("nats")]);
const stack = await startStack({
  redisUrl: redisServer.url,
  natsUrl: natsServer.url,
  management: { webhooks: true, allowPrivateWebhooks: true, tokenRate: { rate: 10_000, burst: 10_000 } },
});
const { token } = await stack.tokens.create({ name: "bench", scope: "operator" });
const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(stack.gatewayUrl + path, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
type Result = { status: number; body: Record<string, unknown> };
const batch = async (operations: unknown[]): Promise<Result[]> => {
  const res = await call("POST", "/v1/batch", { operations });
  if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body["results"] as Result[];
};

/** Provisions `count` sites in batches: 500 workspaces a call, then their 1,000 configurations a call. */
const provision = async (count: number, from: number, viaBatch = batch): Promise<string[]> => {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 500) {
    const n = Math.min(500, count - start);
    const made = await viaBatch(
      Array.from({ length: n }, (_, i) => ({
        method: "POST",
        path: "/v1/workspaces",
        body: {
          name: `Shop ${from + start + i}`,
          plan: (from + start + i) % 10 === 0 ? "paid" : "free",
          externalId: `panel-${from + start + i}`,
          labels: { host: "bench" },
        },
      })),
    );
    const wsIds = made.map((r) => {
      if (r.status !== 201) throw new Error(`create answered ${r.status}`);
      return r.body["id"] as string;
    });
    const configs = await viaBatch(
      wsIds.flatMap((id) => [
        { method: "POST", path: `/v1/workspaces/${id}/configurations`, body: { kind: "classify" } },
        { method: "POST", path: `/v1/workspaces/${id}/configurations`, body: { kind: "challenge" } },
      ]),
    );
    if (configs.some((r) => r.status !== 201)) throw new Error("a configuration was not created");
    ids.push(...wsIds);
  }
  return ids;
};

const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await stack.redis.info("memory"))![1]);

// The console: an operator signed in as a browser would, on a stack's gateway.
type Page = (
  path: string,
  init?: RequestInit,
) => Promise<{ status: number; text: string; ms: number; bytes: number }>;
const signIn = async (gatewayUrl: string, redis: RedisClient): Promise<Page> => {
  const accounts = new AccountStore({ redis, clock: systemClock });
  await accounts.addUser({ email: "operator@bench.example", password: PASSWORD, operator: true });
  const cookies = new Map<string, string>();
  const page: Page = async (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const started = performance.now();
    const res = await fetch(gatewayUrl + path, { ...init, headers, redirect: "manual" });
    const text = await res.text();
    const ms = performance.now() - started;
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return { status: res.status, text, ms, bytes: Buffer.byteLength(text) };
  };
  const form = await page("/console/sign-in");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
  const signedIn = await page("/console/sign-in", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      _csrf: csrf,
      email: "operator@bench.example",
      password: PASSWORD,
    }).toString(),
  });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  return page;
};
const page = await signIn(stack.gatewayUrl, stack.redis);
const CONSOLE_PAGES = (workspaceId: string) =>
  [
    ["home", "/console/"],
    ["switcher search", "/console/?q=shop%205"],
    ["workspace page", `/console/w/${workspaceId}/sites`],
  ] as const;
const consolePages = async (workspaceId: string) => {
  const out: Record<string, { bytes: number; ms: number }> = {};
  for (const [name, path] of CONSOLE_PAGES(workspaceId)) {
    const samples = [];
    let bytes = 0;
    for (let i = 0; i < 30; i++) {
      const res = await page(path);
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      samples.push(res.ms);
      bytes = res.bytes;
    }
    out[name] = { bytes, ms: median(samples) };
  }
  return out;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The load in a process of its own at the lowest priority (nice 19), so its client's CPU (fetch,
 * JSON of pages of 1,000) is not counted against classify and verify as Sift's: a control panel
 * runs elsewhere. `--api-in-process` runs it in this process instead.
 */
const apiLoadProcess = async (level: ApiLevel, gatewayUrl: string) => {
  const child = spawn(
    "nice",
    [
      "-n",
      "19",
      process.execPath,
      "--import",
      "tsx",
      new URL("./hosts-api-load.ts", import.meta.url).pathname,
      gatewayUrl,
      level,
    ],
    { env: { ...process.env, SIFT_BENCH_TOKEN: token }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines: string[] = [];
  let waiting: (() => void) | undefined;
  child.stdout.setEncoding("utf8");
  let rest = "";
  child.stdout.on("data", (chunk: string) => {
    rest += chunk;
    for (let at = rest.indexOf("\n"); at >= 0; at = rest.indexOf("\n")) {
      lines.push(rest.slice(0, at));
      rest = rest.slice(at + 1);
      waiting?.();
    }
  });
  const line = async (): Promise<string> => {
    while (lines.length === 0) {
      if (child.exitCode !== null) throw new Error(`the /v1 load exited ${child.exitCode}`);
      await new Promise<void>((r) => {
        waiting = r;
        setTimeout(r, 200);
      });
    }
    return lines.shift()!;
  };
  if ((await line()) !== "ready") throw new Error("the /v1 load did not start");
  // Its CPU from here on: the start (loading tsx and the modules) is not the load.
  const cpuAtReady = await processCpu(child.pid!);
  return {
    stop: async () => {
      const cpuUs = (await processCpu(child.pid!)) - cpuAtReady;
      child.kill("SIGTERM");
      return {
        ...(JSON.parse(await line()) as { calls: number; operations: number; failed: number }),
        cpuUs,
      };
    },
  };
};

/**
 * Classify and verify through the gateway with a real model worker, each alone and with
 * apiLoad beside it, alternated (speed/load.ts), so the machine's drift falls on both alike.
 */
const besideTheApi = async () => {
  // The services as the launcher runs them (each its own process, built, management at a lower
  // priority: SERVICE_PRIORITY), on this bench's Redis and NATS and its internal secret, so the
  // workspaces provisioned above and the bench's token serve them too.
  const processes = values["in-process"]
    ? null
    : await spawnStack(
        {
          REDIS_URL: redisServer.url,
          NATS_URL: natsServer.url,
          SIFT_INTERNAL_SECRET: stack.internalSecret,
          LOG_LEVEL: "warn",
        },
        { built: true },
      );
  const gatewayUrl = processes?.baseUrl ?? stack.gatewayUrl;
  const worker = processes ? null : await startModelWorker(natsServer.url);
  console.log(
    processes
      ? `classify and verify rows: the services as their own processes (built), management at nice +${SERVICE_PRIORITY.management ?? 0}${IDLE_CLASS.has("management") ? " in the idle scheduling class where chrt is" : ""}`
      : "classify and verify rows: the in-process stack (one event loop)",
  );
  try {
    const ws = await call("POST", "/v1/workspaces", { name: "Throughput", plan: "paid" });
    const id = ws.body["id"] as string;
    await call("PATCH", `/v1/workspaces/${id}`, { rateLimit: 1e9, burst: 1e6 });
    const classifyKey = (await call("POST", `/v1/workspaces/${id}/configurations`, { kind: "classify" }))
      .body["secretKey"] as string;
    // Verify's cost does not depend on the difficulty: the least work, so the bench can solve its pool.
    const CHALLENGE = { difficulty: 1, puzzles: 16, ttlMs: 30 * 60_000 };
    const challenge = await call("POST", `/v1/workspaces/${id}/configurations`, {
      kind: "challenge",
      difficulty: CHALLENGE.difficulty,
      challengeTtlSeconds: CHALLENGE.ttlMs / 1000,
    });
    const pool = new SolutionPool({
      internalSecret: stack.internalSecret,
      configId: challenge.body["id"] as string,
      ...CHALLENGE,
    });
    const verifySecret = challenge.body["secretKey"] as string;
    const classifyT = httpTarget({
      id: "classify",
      label: "classify through the gateway",
      url: `${gatewayUrl}/classify`,
      headers: () => ({ authorization: `Bearer ${classifyKey}` }),
      body: () =>
        JSON.stringify({
          content: { name: "Ann", message: "Is the shop open on Sunday? I would like to pick up a cake." },
          model: "spam-standard",
        }),
      accept: (status, body) => status === 200 && body.includes('"label":'),
    });
    const verifyT = httpTarget({
      id: "verify",
      label: "verify through the gateway (real solutions)",
      url: `${gatewayUrl}/verify`,
      headers: () => ({}),
      body: () => JSON.stringify({ secretKey: verifySecret, solution: pool.next() }),
      accept: (status, body) => status === 200 && body === '{"ok":true}',
      prepare: async ({ seconds, rate }, expected) =>
        pool.ensure(Math.ceil((rate ?? expected) * seconds * 1.5) + 200),
    });
    const spent = {
      busy: { calls: 0, operations: 0, failed: 0, seconds: 0, cpuUs: 0 },
      heavy: { calls: 0, operations: 0, failed: 0, seconds: 0, cpuUs: 0 },
    };
    // No traffic but the /v1 load's: what the API alone costs this process (the gateway, classify
    // and the model worker share its one event loop here) and Redis.
    const idle: Target = {
      id: "idle",
      label: "no classify or verify traffic",
      run: async ({ seconds }) => {
        await sleep(seconds * 1000);
        return { rps: 0, mean: 0, p50: 0, p99: 0, count: 0, errors: 0, statuses: {}, refused: 0 };
      },
    };
    // Redis commands run so far (INFO commandstats' calls, summed; the INFO itself is one more).
    const redisCommands = async () =>
      [...(await stack.redis.info("commandstats")).matchAll(/calls=(\d+)/g)].reduce(
        (n, m) => n + Number(m[1]),
        0,
      );
    // The services' CPU: this process's in-process, else the service processes' summed.
    const siftPids: Array<[string, number]> = processes
      ? [...processes.children].map(([name, child]) => [name, child.pid!])
      : [["in-process", process.pid]];
    // Each service's CPU µs so far, by name, so a row can say which process the /v1 load costs.
    const siftCpuBy = async () =>
      new Map(await Promise.all(siftPids.map(async ([name, pid]) => [name, await processCpu(pid)] as const)));
    const sum = (by: Map<string, number>) => [...by.values()].reduce((a, b) => a + b, 0);
    // Per run: the services' CPU, this process's event loop's busy share and Redis's CPU, each per second.
    const costs = new Map<
      string,
      Array<{
        cpu: number;
        byService: Map<string, number>;
        loop: number;
        redis: number;
        perCall: number;
        maxDelay: number;
        commands: number;
      }>
    >();
    const costed = (t: Target, id = t.id): Target => ({
      ...t,
      run: async (options) => {
        const [cpu0, redis0, commands0] = [
          await siftCpuBy(),
          await redisCpu(stack.redis),
          await redisCommands(),
        ];
        const loop0 = performance.eventLoopUtilization();
        const delay = monitorEventLoopDelay({ resolution: 5 });
        delay.enable();
        const started = performance.now();
        const figures = await t.run(options);
        const loop = performance.eventLoopUtilization(loop0).utilization;
        delay.disable();
        const s = (performance.now() - started) / 1000;
        const cpuBy = await siftCpuBy();
        const byService = new Map([...cpuBy].map(([name, us]) => [name, (us - cpu0.get(name)!) / s / 1000]));
        const cpu = sum(cpuBy) - sum(cpu0);
        const redis = (await redisCpu(stack.redis)) - redis0;
        const commands = (await redisCommands()) - commands0;
        const runs = costs.get(id) ?? [];
        runs.push({
          cpu: cpu / s / 1000,
          byService,
          loop,
          redis: redis / s / 1000,
          perCall: (cpu + redis) / Math.max(1, figures.count),
          maxDelay: delay.max / 1e6,
          commands: commands / s,
        });
        costs.set(id, runs);
        return figures;
      },
    });
    const withApi = (t: Target, level: ApiLevel): Target => ({
      id: `${t.id}+${level}`,
      label: `${t.label} + ${level} /v1 load`,
      ...(t.prepare ? { prepare: t.prepare } : {}),
      run: async (options) => {
        const load = values["api-in-process"]
          ? apiLoad(level, apiClient(gatewayUrl, token))
          : await apiLoadProcess(level, gatewayUrl);
        const started = performance.now();
        try {
          return await costed(t, `${t.id}+${level}`).run(options);
        } finally {
          const made: { calls: number; operations: number; failed: number; cpuUs?: number } =
            await load.stop();
          spent[level].cpuUs += made.cpuUs ?? NaN;
          spent[level].calls += made.calls;
          spent[level].operations += made.operations;
          spent[level].failed += made.failed;
          spent[level].seconds += (performance.now() - started) / 1000;
        }
      },
    });
    const series = await alternate(
      [
        classifyT,
        withApi(classifyT, "busy"),
        withApi(classifyT, "heavy"),
        verifyT,
        withApi(verifyT, "busy"),
        withApi(verifyT, "heavy"),
        idle,
        withApi(idle, "busy"),
        withApi(idle, "heavy"),
      ].map((t) => (t.id.includes("+") ? t : costed(t))),
      {
        connections: 16,
        seconds: values.smoke ? 2 : 8,
        rounds: values.smoke ? 1 : 3,
        warmupSeconds: values.smoke ? 0 : 2,
      },
      (line) => console.error(line),
    );
    const rps = (i: number) => medianOf(series[i]!.runs.map((r) => r.rps));
    const refused = (i: number) => series[i]!.runs.reduce((n, r) => n + r.refused + r.errors, 0);
    for (const [name, alone] of [
      ["classify", 0],
      ["verify", 3],
    ] as const) {
      for (const [level, beside] of [
        ["busy", alone + 1],
        ["heavy", alone + 2],
      ] as const) {
        const load = spent[level];
        row(
          `${name} req/s, ${level} /v1 beside (${(load.calls / load.seconds).toFixed(1)} calls, ${(load.operations / load.seconds).toFixed(0)} ops/s` +
            (load.failed > 0 ? `, ${load.failed} /v1 calls failed` : "") +
            ")",
          `${Math.round(rps(beside))} vs ${Math.round(rps(alone))} alone (${(rps(beside) / rps(alone)).toFixed(2)} x)` +
            (refused(alone) + refused(beside) > 0 ? `, ${refused(alone) + refused(beside)} not ok` : ""),
          "≥ 0.95 x",
        );
      }
    }
    // The cost figures (medians over the runs): this process's CPU ms a second, its event loop's
    // busy share, Redis's CPU ms a second, and for classify and verify the CPU (this process +
    // Redis) per answered call; the load's own process is printed apart (nice 19).
    const costOf = (id: string) => {
      const runs = costs.get(id) ?? [];
      const m = (f: (r: (typeof runs)[number]) => number) => medianOf(runs.map(f));
      return {
        cpu: m((r) => r.cpu),
        loop: m((r) => r.loop),
        redis: m((r) => r.redis),
        perCall: m((r) => r.perCall),
        maxDelay: Math.max(...runs.map((r) => r.maxDelay)),
        commands: m((r) => r.commands),
        byService: [...(runs[0]?.byService.keys() ?? [])]
          .map((name) => `${name} ${m((r) => r.byService.get(name)!).toFixed(0)}`)
          .join(", "),
      };
    };
    for (const id of [
      "classify",
      "classify+busy",
      "classify+heavy",
      "verify",
      "verify+busy",
      "verify+heavy",
      "idle",
      "idle+busy",
      "idle+heavy",
    ]) {
      const c = costOf(id);
      const level = id.endsWith("+busy") ? "busy" : id.endsWith("+heavy") ? "heavy" : null;
      const loadCpu = level ? spent[level].cpuUs / spent[level].seconds / 1000 : 0;
      row(
        `  cost: ${id}`,
        `Sift ${c.cpu.toFixed(0)} ms/s, loop ${(c.loop * 100).toFixed(0)} %, Redis ${c.redis.toFixed(0)} ms/s ${c.commands.toFixed(0)} cmd/s` +
          (id.startsWith("idle")
            ? `, longest loop delay ${c.maxDelay.toFixed(0)} ms`
            : `, ${c.perCall.toFixed(0)} µs/call`),
        level ? `load proc ${loadCpu.toFixed(0)} ms/s` : "",
      );
      console.log(`    by service (CPU ms/s): ${c.byService}`);
    }
  } finally {
    await worker?.stop();
    await processes?.stop();
  }
};

/**
 * The goal's receiver down for `seconds`: 50 secret.rotated events are raised as it goes down
 * (answering 503), and each is counted once it is back; none may be lost. The wait is the retry
 * schedule's (RETRY, @sift/management): the first attempt after the outage, plus two minutes.
 */
const webhookOutage = async (seconds: number) => {
  const events = values.smoke ? 10 : 50;
  const delivered = new Map<string, number>();
  let refusedAttempts = 0;
  let downUntil = 0;
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (performance.now() < downUntil) {
        refusedAttempts++;
        return void res.writeHead(503).end("down");
      }
      const id = (JSON.parse(body) as { id: string }).id;
      if (!delivered.has(id)) delivered.set(id, performance.now());
      res.writeHead(204).end();
    });
  });
  const port = await listen(receiver, 0, "127.0.0.1");
  try {
    const hook = await call("POST", "/v1/webhooks", {
      url: `http://127.0.0.1:${port}/`,
      events: ["secret.rotated"],
    });
    if (hook.status !== 201) throw new Error(`webhook answered ${hook.status}`);
    const started = performance.now();
    downUntil = started + seconds * 1000;
    for (let i = 0; i < events; i++) {
      const ws = await call("POST", "/v1/workspaces", { name: `Outage ${i}`, plan: "free" });
      const cfg = await call("POST", `/v1/workspaces/${String(ws.body["id"])}/configurations`, {
        kind: "classify",
      });
      await call("POST", `/v1/configurations/${String(cfg.body["id"])}/rotate-secret`);
    }
    let attemptAt = 0;
    for (let made = 1; attemptAt < seconds * 1000; made++) attemptAt += retryDelay(made);
    const until = started + attemptAt + 120_000;
    while (delivered.size < events && performance.now() < until) await sleep(1000);
    const last = Math.max(...delivered.values(), started);
    row(
      `${events} webhook events, the receiver down ${seconds} s`,
      `${events - delivered.size} lost, last in at ${((last - started) / 1000).toFixed(0)} s, ${refusedAttempts} attempts refused`,
      "none lost",
    );
  } finally {
    receiver.close();
  }
};

/**
 * `--only console`: the console rows with the 10-site deployment a second stack of its own (its
 * own Redis and NATS) beside the N-site one, each page's samples alternated between them, so the
 * machine's load falls on both alike (goals() takes the 10-site figures before provisioning,
 * minutes earlier).
 */
const consoleAlternated = async () => {
  const [smallRedis, smallNats] = await Promise.all([startServer("redis"), startServer("nats")]);
  const small = await startStack({ redisUrl: smallRedis.url, natsUrl: smallNats.url, management: {} });
  try {
    const smallApi = apiClient(
      small.gatewayUrl,
      (await small.tokens.create({ name: "bench", scope: "operator" })).token,
    );
    const smallIds = await provision(10, 0, smallApi.batch);
    const smallPage = await signIn(small.gatewayUrl, small.redis);
    const started = performance.now();
    const ids = await provision(SITES, 0);
    const seconds = (performance.now() - started) / 1000;
    row(
      "provisioning through /v1/batch (workspace + 2 configurations)",
      `${Math.round(SITES / seconds)} sites/s (${seconds.toFixed(1)} s)`,
      "≥ 500 sites/s",
    );
    const bigPaths = CONSOLE_PAGES(ids[Math.floor(ids.length / 2)]!);
    const smallPaths = CONSOLE_PAGES(smallIds[0]!);
    for (let k = 0; k < bigPaths.length; k++) {
      const [name, bigPath] = bigPaths[k]!;
      const smallPath = smallPaths[k]![1];
      const at10: number[] = [];
      const atN: number[] = [];
      let bytes = 0;
      let smallBytes = 0;
      for (let i = 0; i < 60; i++) {
        for (const [p, path, into] of (i % 2
          ? [
              [smallPage, smallPath, at10],
              [page, bigPath, atN],
            ]
          : [
              [page, bigPath, atN],
              [smallPage, smallPath, at10],
            ]) as Array<[Page, string, number[]]>) {
          const res = await p(path);
          if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
          into.push(res.ms);
          if (p === page) bytes = res.bytes;
          else smallBytes = res.bytes;
        }
      }
      // The first rounds warm both (JIT, connections): the medians are of the last 40.
      const [ten, n] = [median(at10.slice(20)), median(atN.slice(20))];
      row(
        `console ${name} at ${SITES.toLocaleString("en")} vs 10 sites (alternated)`,
        `${(bytes / 1024).toFixed(1)} (${(smallBytes / 1024).toFixed(1)}) KB, ${n.toFixed(1)} vs ${ten.toFixed(1)} ms (${(n / ten).toFixed(2)} x)`,
        "≤ 200 KB, ≤ 1.5 x",
      );
    }
  } finally {
    await small.stop();
    await Promise.all([smallRedis.stop(), smallNats.stop()]);
  }
};

const goals = async () => {
  console.log(
    `issue 52's goals at ${SITES.toLocaleString("en")} sites (${values.smoke ? "smoke" : "full"} run)`,
  );
  const small = await provision(10, 0);
  const atTen = await consolePages(small[0]!);
  const before = await usedMemory();
  const started = performance.now();
  const ids = [...small, ...(await provision(SITES - 10, 10))];
  const seconds = (performance.now() - started) / 1000;
  row(
    "provisioning through /v1/batch (workspace + 2 configurations)",
    `${Math.round((SITES - 10) / seconds)} sites/s (${seconds.toFixed(1)} s)`,
    "≥ 500 sites/s",
  );
  row(
    "Redis memory per site (a workspace, two configurations)",
    `${Math.round(((await usedMemory()) - before) / (SITES - 10))} B`,
    "≤ 5 KB",
  );
  if (values.only === "provision") return;

  // Paging every workspace (label host=bench) 1,000 a page while a churner creates and deletes others with the same label.
  let churning = true;
  let churned = 0;
  const churner = (async () => {
    while (churning) {
      const made = await call("POST", "/v1/workspaces", {
        name: "Churn",
        plan: "free",
        labels: { host: "bench" },
      });
      await call("DELETE", `/v1/workspaces/${made.body["id"]}`);
      churned++;
    }
  })();
  const seen = new Map<string, number>();
  let cursor: string | null = null;
  const pagingStarted = performance.now();
  do {
    const res = await call(
      "GET",
      `/v1/workspaces?label=host:bench&limit=1000${cursor ? `&cursor=${cursor}` : ""}`,
    );
    for (const w of res.body["data"] as Array<{ id: string }>) seen.set(w.id, (seen.get(w.id) ?? 0) + 1);
    cursor = res.body["nextCursor"] as string | null;
  } while (cursor);
  churning = false;
  await churner;
  const missing = ids.filter((id) => seen.get(id) !== 1).length;
  row(
    `${SITES.toLocaleString("en")} workspaces paged under churn (${churned} created+deleted)`,
    `${missing} missed or repeated, ${((performance.now() - pagingStarted) / 1000).toFixed(1)} s`,
    "each exactly once",
  );

  const atN = await consolePages(ids[Math.floor(ids.length / 2)]!);
  for (const name of Object.keys(atN)) {
    const n = atN[name]!;
    const ten = atTen[name]!;
    row(
      `console ${name} at ${SITES.toLocaleString("en")} vs 10 sites`,
      `${(n.bytes / 1024).toFixed(1)} KB, ${n.ms.toFixed(1)} ms (${(n.ms / ten.ms).toFixed(2)} x)`,
      "≤ 200 KB, ≤ 1.5 x",
    );
  }

  const jobDeps = { keystore: stack.keystore, clock: systemClock, logger: silentLogger() };
  for (const [name, job] of [
    [
      "month-end check",
      () =>
        checkPaidPlans(
          {
            ...jobDeps,
            usage: stack.usage,
            notices: new NoticeStore({ redis: stack.redis }),
            emit: async () => {},
          },
          Math.floor(Date.now() / 2_629_746_000),
        ),
    ],
    ["verdict log retention", () => enforceRetention({ ...jobDeps, log: stack.verdicts })],
  ] as const) {
    // Heap after a collection, before and after the job (run with NODE_OPTIONS=--expose-gc; without
    // it the growth printed includes garbage not yet collected).
    global.gc?.();
    const heap = process.memoryUsage().heapUsed;
    const t = performance.now();
    await job();
    const took = (performance.now() - t) / 1000;
    global.gc?.();
    const grown = (process.memoryUsage().heapUsed - heap) / 1e6;
    row(
      `${name} over ${SITES.toLocaleString("en")} workspaces`,
      `${took.toFixed(1)} s, heap ${grown >= 0 ? "+" : ""}${grown.toFixed(1)} MB${global.gc ? "" : " (no gc)"}`,
      "≤ 60 s, memory flat",
    );
  }

  // Webhooks: a local receiver; each rotation's event timed from the rotation's answer to its arrival.
  const arrivals = new Map<string, number>();
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const event = JSON.parse(body) as { data: { configurationId: string } };
      arrivals.set(event.data.configurationId, performance.now());
      res.writeHead(204).end();
    });
  });
  const port = await listen(receiver, 0, "127.0.0.1");
  const hook = await call("POST", "/v1/webhooks", {
    url: `http://127.0.0.1:${port}/`,
    events: ["secret.rotated"],
  });
  if (hook.status !== 201) throw new Error(`webhook answered ${hook.status}`);
  const sent = new Map<string, number>();
  const events = values.smoke ? 20 : 200;
  for (let i = 0; i < events; i++) {
    const ws = await call("POST", "/v1/workspaces", { name: `Hooked ${i}`, plan: "free" });
    const cfg = await call("POST", `/v1/workspaces/${ws.body["id"]}/configurations`, { kind: "classify" });
    await call("POST", `/v1/configurations/${cfg.body["id"]}/rotate-secret`);
    sent.set(cfg.body["id"] as string, performance.now());
  }
  const until = performance.now() + 30_000;
  while (arrivals.size < sent.size && performance.now() < until) await new Promise((r) => setTimeout(r, 50));
  const delays = [...sent].map(([id, t]) => (arrivals.get(id) ?? Infinity) - t).sort((a, b) => a - b);
  const p99 = delays[Math.ceil(delays.length * 0.99) - 1]!;
  row(
    `a webhook delivered (${events} events)`,
    `p99 ${p99.toFixed(0)} ms, ${sent.size - arrivals.size} lost`,
    "p99 ≤ 5 s",
  );
  receiver.close();
  await besideTheApi();
};

try {
  if (OUTAGE_S !== null) await webhookOutage(OUTAGE_S);
  else if (values.only === "console") await consoleAlternated();
  else if (values.only === "beside") {
    console.log(`classify and verify beside the API at ${SITES.toLocaleString("en")} sites`);
    await provision(SITES, 0);
    await besideTheApi();
  } else await goals();
} finally {
  await stack.stop();
  await Promise.all([redisServer.stop(), natsServer.stop()]);
}
