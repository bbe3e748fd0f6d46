import { randomBytes } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { performance } from "node:perf_hooks";
import { Redis } from "ioredis";
import { solveChallenge, type IssuedChallenge } from "@sift/challenge";
import { SPAM_STANDARD } from "@sift/contracts";
import { Keystore, RedisUsageMeter } from "@sift/keystore";
import { systemClock } from "@sift/runtime";
import {
  createPoster,
  spawnService,
  spawnStack,
  startServer,
  waitForHttp,
  type Answer,
  type Poster,
  type ServiceName,
  type TestServer,
} from "../../src/index.ts";

/**
 * A set-up call, sent again (up to 5 times, 200 ms apart) while the stack answers 500: set-up is
 * not the row's fault, and a row with a short Redis command time-out (REDIS_COMMAND_TIMEOUT_MS
 * 500) on a machine as loaded as CI's can time out one of them. Throws on any other failure.
 */
const setUpCall = async (
  poster: Poster,
  path: string,
  body: string,
  headers?: Record<string, string>,
): Promise<string> => {
  for (let attempt = 1; ; attempt++) {
    const answer = await poster.post(path, body, headers);
    if (answer.status === 200) return answer.text;
    if (answer.status !== 500 || attempt === 5) throw new Error(`${path}: ${answer.status} ${answer.text}`);
    await sleep(200);
  }
};

/**
 * What a row's load starts from, through the deployment's own gateway: `solutions` challenges
 * issued and solved with the real solver (twenty at a time), and each test content's score
 * before the fault (every later verdict must equal it).
 */
export const seedLoad = async (
  poster: Poster,
  keys: { siteKey: string; classifyKey: string; solutions: number },
): Promise<{ solutions: string[]; baseline: number[] }> => {
  const solutions: string[] = [];
  const body = JSON.stringify({ siteKey: keys.siteKey });
  while (solutions.length < keys.solutions) {
    const batch = await Promise.all(
      Array.from({ length: 20 }, async () =>
        solveChallenge(JSON.parse(await setUpCall(poster, "/challenge", body)) as IssuedChallenge),
      ),
    );
    solutions.push(...batch);
  }
  const baseline: number[] = [];
  for (let i = 0; i < CONTENTS.length; i++) {
    const text = await setUpCall(poster, "/classify", classifyBody(i), {
      authorization: `Bearer ${keys.classifyKey}`,
    });
    baseline.push((JSON.parse(text) as { score: number }).score);
  }
  return { solutions, baseline };
};

/**
 * What the load and the checks need of a deployment, whatever its shape (one process per
 * service here, replicas behind a balancer in the cluster rows): where to send, the keys, the
 * pre-solved challenges, each test content's score before the fault (every later verdict must
 * equal it), the services' log lines and the workspace's usage.
 */
export interface LoadTarget {
  poster: Poster;
  logs: Array<{ service: ServiceName; line: string }>;
  classifyKey: string;
  /** A classify key of another workspace, for reports: they change that workspace's scores. */
  feedbackKey?: string;
  challengeSecret: string;
  solutions: string[];
  baseline: number[];
  /** Counted calls made before the load (the baseline). */
  countedBefore: number;
  usage(): Promise<number>;
}

/**
 * One row of the fault table: every service its own process (as in production) on a Redis and
 * NATS of the row's own, real keys made through the key store, pre-solved challenges, and the
 * services' log lines kept so the row can check what they logged.
 */
export interface FaultStack extends LoadTarget {
  redis: TestServer;
  nats: TestServer;
  stack: Awaited<ReturnType<typeof spawnStack>>;
  /** Starts a service again on its port (after it exited), resolved once it is ready. */
  restart(name: ServiceName): Promise<ChildProcess>;
  stop(): Promise<void>;
}

export const CONTENTS = [
  { name: "Sam", email: "sam@example.org", message: "Hello, is the flat still available next month?" },
  { name: "Li", message: "Could you send me the invoice for order 4411 again? Thanks." },
  { message: "BUY CHEAP WATCHES NOW!!! best replica deals http://cheap.example/watches" },
  { name: "Ana", email: "ana@example.com", message: "Ich hätte gern einen Termin am Dienstag." },
  "Quick question about your opening hours on public holidays.",
  { message: "Earn $5000 a week from home, click here to claim your bonus today" },
];

export const classifyBody = (i: number) => JSON.stringify({ content: CONTENTS[i], model: SPAM_STANDARD });

export const startFaultStack = async (
  options: {
    durableRedis?: boolean;
    /** Each service's extra environment. */
    extra?: Partial<Record<ServiceName, Record<string, string>>>;
    /** Last changes to each service's extra environment, once Redis (at redisUrl) and NATS are up. */
    beforeSpawn?: (
      extra: Partial<Record<ServiceName, Record<string, string>>>,
      redisUrl: string,
    ) => Promise<void>;
    solutions?: number;
  } = {},
): Promise<FaultStack> => {
  const redis = await startServer("redis", { durable: options.durableRedis ?? false });
  const nats = await startServer("nats");
  const logs: FaultStack["logs"] = [];
  const output = (service: ServiceName, line: string) => void logs.push({ service, line });
  const extra: Partial<Record<ServiceName, Record<string, string>>> = {};
  for (const name of ["gateway", "verify", "classify", "worker"] as const)
    extra[name] = { ...options.extra?.[name] };
  extra.gateway = {
    // One client address sends everything here, so the per-address budgets are lifted.
    SIFT_CHALLENGE_RATE: "1000000",
    SIFT_CHALLENGE_BURST: "1000000",
    ...extra.gateway,
  };
  await options.beforeSpawn?.(extra, redis.url);
  const stack = await spawnStack(
    {
      REDIS_URL: redis.url,
      NATS_URL: nats.url,
      SIFT_INTERNAL_SECRET: randomBytes(32).toString("base64url"),
      LOG_LEVEL: "info",
    },
    { extra, output },
  );
  const poster = createPoster(stack.baseUrl, { maxSockets: 64, timeoutMs: 20_000 });
  const client = new Redis(redis.url);
  const stop = async () => {
    poster.close();
    client.disconnect();
    // SIGTERM through tsx, which passes it on and exits with its child (each service exits
    // within its 10 s deadline); a SIGKILL to tsx itself would leave the service running.
    await stack.stop();
    await redis.stop();
    await nats.stop();
  };

  const keys = new Keystore({ redis: client, clock: systemClock });
  const meter = new RedisUsageMeter({ redis: client, clock: systemClock });
  const seeded = async () => {
    const workspace = await keys.createWorkspace({ name: "faults", plan: "paid", allowance: 1e9 });
    await keys.updateWorkspace(workspace.id, { rateLimit: 1e6, burst: 1e6 });
    const classifyKey = (await keys.createConfig(workspace.id, "classify"))!.secretKey;
    const challenge = (await keys.createConfig(workspace.id, "challenge"))!;
    // The smallest difficulty: the solver is the real one, and a row needs hundreds of solutions.
    await keys.updateConfig(challenge.config.id, { difficulty: 1 });
    const load = await seedLoad(poster, {
      siteKey: challenge.config.siteKey!,
      classifyKey,
      solutions: options.solutions ?? 700,
    });
    return { workspace, classifyKey, challenge, ...load };
  };
  // A set-up that fails stops what it started: the row never gets the stack to stop.
  const { workspace, classifyKey, challenge, solutions, baseline } = await seeded().catch(
    async (err: unknown) => {
      await stop();
      throw err;
    },
  );

  const restart = async (name: ServiceName) => {
    const child = spawnService(name, stack.env[name], { quiet: true, output });
    stack.children.set(name, child);
    const port = name === "gateway" ? stack.ports.gateway : stack.ports[name];
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000);
    return child;
  };
  return {
    redis,
    nats,
    stack,
    poster,
    logs,
    classifyKey,
    challengeSecret: challenge.secretKey,
    solutions,
    baseline,
    countedBefore: CONTENTS.length,
    usage: async () => (await meter.status({ id: workspace.id, plan: "paid", allowance: 1e9 })).used30d,
    restart,
    stop,
  };
};

export type Kind = "classify" | "verify" | "feedback";

export interface Sent {
  kind: Kind;
  answer: Answer;
  /** The content's index (classify) or the solution (verify). */
  content: number;
  solution?: string;
}

/**
 * Steady mixed load: `classify` senders posting the test contents with the real key, `verify`
 * senders each spending a fresh pre-solved solution and `feedback` senders reporting a test
 * content as spam or clean (with `feedbackKey`), every sender one request at a time with a
 * short pause (`pauseMs`, one for all or one per kind), until stopped. `inFlight(kind)` is how
 * many are outstanding right now.
 */
export const startLoad = (
  fs: LoadTarget,
  options: {
    classify?: number;
    verify?: number;
    feedback?: number;
    pauseMs?: number | Partial<Record<Kind, number>>;
  } = {},
) => {
  const sent: Sent[] = [];
  let running = true;
  const outstanding = { classify: 0, verify: 0, feedback: 0 };
  let n = 0;
  // A failed answer gets a longer pause, as a caller backs off; a row outlasts its solutions otherwise.
  const pauseOf = (kind: Kind) =>
    (typeof options.pauseMs === "number" ? options.pauseMs : options.pauseMs?.[kind]) ?? 10;
  const pause = (a: Answer, kind: Kind) =>
    new Promise((r) => setTimeout(r, a.status === 200 && !a.text.includes("false") ? pauseOf(kind) : 50));
  const classifySender = async () => {
    while (running) {
      const content = n++ % CONTENTS.length;
      outstanding.classify++;
      const answer = await fs.poster.post("/classify", classifyBody(content), {
        authorization: `Bearer ${fs.classifyKey}`,
      });
      outstanding.classify--;
      sent.push({ kind: "classify", answer, content });
      await pause(answer, "classify");
    }
  };
  const verifySender = async () => {
    while (running) {
      const solution = fs.solutions.pop();
      // Out of solutions: this sender stops (the row's counts show it); the checks still hold.
      if (!solution) return;
      outstanding.verify++;
      const answer = await fs.poster.post(
        "/verify",
        JSON.stringify({ secretKey: fs.challengeSecret, solution }),
      );
      outstanding.verify--;
      sent.push({ kind: "verify", answer, content: -1, solution });
      await pause(answer, "verify");
    }
  };
  let reports = 0;
  const feedbackSender = async () => {
    while (running) {
      const content = reports++ % CONTENTS.length;
      outstanding.feedback++;
      const body = JSON.stringify({ content: CONTENTS[content], label: reports % 2 ? "spam" : "clean" });
      const answer = await fs.poster.post("/feedback", body, { authorization: `Bearer ${fs.feedbackKey}` });
      outstanding.feedback--;
      sent.push({ kind: "feedback", answer, content });
      await pause(answer, "feedback");
    }
  };
  const senders = [
    ...Array.from({ length: options.classify ?? 3 }, classifySender),
    ...Array.from({ length: options.verify ?? 2 }, verifySender),
    ...Array.from({ length: options.feedback ?? 0 }, feedbackSender),
  ];
  return {
    sent,
    inFlight: (kind: Kind) => outstanding[kind],
    stop: async () => {
      running = false;
      await Promise.all(senders);
      return sent;
    },
  };
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const now = () => performance.now();

/**
 * Sends `signal` to a service process and resolves with the exit code and how long the exit took
 * (ms). spawnService runs node itself (tsx's loader imported), so the signal reaches the service,
 * as in a container: no `tsx` command in front to relay it (which SIGKILLed a child that missed
 * its 30 ms acknowledgement on the loaded machine).
 */
export const signalAndWait = (
  child: ChildProcess,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; ms: number }> =>
  new Promise((resolve) => {
    const started = performance.now();
    child.once("exit", (code) => resolve({ code, ms: performance.now() - started }));
    child.kill(signal);
  });

/** One line per row, as docs/reliability.md quotes it. */
export const report = (row: string, fields: Record<string, unknown>) =>
  console.warn(`fault ${row}: ${JSON.stringify(fields)}`);
