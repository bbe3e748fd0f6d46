import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  solveChallenge,
  startModelWorker,
  startServer,
  startStack,
  type Answer,
  type RunningModelWorker,
  type Stack,
  type TestServer,
} from "../../src/index.ts";
import { spellings } from "./mutations.ts";
import { judge } from "./oracle.ts";
import { fuzzRequests, limitRequests, type Endpoint, type FuzzRequest, type Keys } from "./requests.ts";

/**
 * Fuzz at scale (docs/reliability.md): SIFT_FUZZ_RUNS generated requests per endpoint (10⁴ in
 * `pnpm test`; SIFT_FUZZ_RUNS=100000 for 10⁵), bodies at the 1 MB limit ± 1 byte with a length
 * and chunked, and as many spellings of real solutions, through the real gateway and services.
 *
 * The services run in this process (startStack, the model worker too), built by the same wiring
 * as their main.ts: so after the run, `({}).polluted` and the prototypes checked here are the
 * very ones every service's code ran against. A debug route in each service process would show
 * the same, but would be a route in production code that must never be switched on.
 */
const RUNS = Number(process.env["SIFT_FUZZ_RUNS"] ?? 10_000);
const SEED = Number(process.env["SIFT_FUZZ_SEED"] ?? Date.now() % 1_000_000);
const CONCURRENCY = 32;
/** Spellings per real solution: RUNS of them in all. */
const PER_SOLUTION = 50;

let redis: TestServer;
let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker;
let keys: Keys;
let base: URL;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

beforeAll(async () => {
  [redis, nats] = await Promise.all([startServer("redis"), startServer("nats")]);
  stack = await startStack({
    redisUrl: redis.url,
    natsUrl: nats.url,
    testKeyRate: 1e6,
    challengeRate: 1e6,
    challengeBurst: 1e6,
  });
  worker = await startModelWorker(nats.url);
  base = new URL(stack.gatewayUrl);
  const workspace = await stack.keystore.createWorkspace({ name: "fuzz", plan: "paid", allowance: 1e9 });
  await stack.keystore.updateWorkspace(workspace.id, { rateLimit: 1e6, burst: 1e6 });
  const classify = (await stack.keystore.createConfig(workspace.id, "classify"))!;
  const challenge = (await stack.keystore.createConfig(workspace.id, "challenge"))!;
  await stack.keystore.updateConfig(challenge.config.id, { difficulty: 1 });
  keys = {
    classify: classify.secretKey,
    challenge: challenge.secretKey,
    siteKey: challenge.config.siteKey!,
    solution: await solve(challenge.config.siteKey!),
  };
}, 60_000);

afterAll(async () => {
  agent.destroy();
  await worker?.stop();
  await stack?.stop();
  await Promise.all([redis?.stop(), nats?.stop()]);
});

const solve = (siteKey: string) => solveChallenge(stack.gatewayUrl, siteKey);

/** One request, never throwing; chunked ones go out in three writes without a length. */
const send = (r: FuzzRequest): Promise<Answer> =>
  new Promise((resolve) => {
    const startedAt = performance.now();
    let done = false;
    const finish = (a: Omit<Answer, "startedAt" | "endedAt">) => {
      if (done) return;
      done = true;
      resolve({ ...a, startedAt, endedAt: performance.now() });
    };
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        path: r.path,
        method: "POST",
        agent,
        headers: r.chunked ? r.headers : { ...r.headers, "content-length": r.body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          finish({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString("utf8"),
            contentType: String(res.headers["content-type"] ?? ""),
          }),
        );
      },
    );
    // A hang is a failure: no answer within 15 s.
    req.setTimeout(15_000, () => req.destroy(Object.assign(new Error("timeout"), { code: "timeout" })));
    req.on("error", (err: NodeJS.ErrnoException) =>
      finish({ status: 0, text: "", contentType: "", error: err.code ?? err.message }),
    );
    if (r.chunked) {
      const third = Math.ceil(r.body.length / 3);
      for (let i = 0; i < r.body.length; i += third) req.write(r.body.subarray(i, i + third));
      req.end();
    } else req.end(r.body);
  });

/** Sends everything with CONCURRENCY in flight; returns each answer beside its request. */
const sendAll = async <T extends FuzzRequest>(items: readonly T[]): Promise<Array<[T, Answer]>> => {
  const out: Array<[T, Answer]> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        out.push([item, await send(item)]);
      }
    }),
  );
  return out;
};

const prototypes = () =>
  [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype].map((p) =>
    Object.getOwnPropertyNames(p).sort().join(","),
  );
const pristine = prototypes();

const fuzzEndpoint = async (endpoint: Endpoint) => {
  const started = performance.now();
  const counts: Record<string, number> = {};
  const wrong: string[] = [];
  // Generated in batches so 10⁵ requests never sit in memory at once.
  for (let batch = 0; batch * 10_000 < RUNS; batch++) {
    const n = Math.min(10_000, RUNS - batch * 10_000);
    const generated = fc.sample(fuzzRequests(endpoint, keys), { numRuns: n, seed: SEED + batch });
    const items = batch === 0 ? [...limitRequests(endpoint, keys), ...generated] : generated;
    for (const [r, a] of await sendAll(items)) {
      counts[a.error ?? String(a.status)] = (counts[a.error ?? String(a.status)] ?? 0) + 1;
      const problem = judge(endpoint, a);
      if (problem && wrong.length < 20)
        wrong.push(
          `${problem} ← ${r.headers["content-type"] ?? "-"} ${r.chunked ? "chunked" : "length"} ${r.body.subarray(0, 80).toString()}`,
        );
      if (r.body.length > 1_000_000 && r.body.length > 1024 * 1024 !== (a.status === 413))
        wrong.push(`${r.body.length} bytes answered ${a.status}`);
    }
  }
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  console.warn(
    `fuzz /${endpoint}: ${total} requests (seed ${SEED}) in ${((performance.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(counts)}`,
  );
  return { total, wrong };
};

describe(`fuzz: ${RUNS} generated requests per endpoint`, () => {
  for (const endpoint of ["classify", "verify", "feedback", "challenge"] as const) {
    it(`/${endpoint} answers every one with a spec answer, including bodies at 1 MB ± 1 byte with and without a length`, async () => {
      const { total, wrong } = await fuzzEndpoint(endpoint);
      expect(wrong).toEqual([]);
      expect(total).toBeGreaterThanOrEqual(RUNS);
    }, 600_000);
  }

  it(`accepts each of ${RUNS / PER_SOLUTION} real solutions at most once, across ${RUNS} spellings sent concurrently`, async () => {
    const originals: string[] = [];
    while (originals.length < RUNS / PER_SOLUTION)
      originals.push(...(await Promise.all(Array.from({ length: 20 }, () => solve(keys.siteKey)))));
    const items = spellings(originals, PER_SOLUTION, SEED).map((s) => ({
      ...s,
      path: "/verify",
      headers: { "content-type": s.contentType, authorization: `Bearer ${keys.challenge}` },
      body: Buffer.from(s.body),
      chunked: false,
    }));
    const accepted = new Map<number, number>();
    const wrong: string[] = [];
    const messages: Record<string, number> = {};
    for (const [s, a] of await sendAll(items)) {
      const problem = judge("verify", a);
      if (problem && wrong.length < 20) wrong.push(`${problem} ← ${s.body.slice(0, 80)}`);
      const answer = JSON.parse(a.text || "{}") as { ok?: boolean; message?: string };
      messages[answer.message ?? (answer.ok ? "ok" : "?")] =
        (messages[answer.message ?? (answer.ok ? "ok" : "?")] ?? 0) + 1;
      if (answer.ok) accepted.set(s.of, (accepted.get(s.of) ?? 0) + 1);
    }
    console.warn(
      `fuzz solutions: ${items.length} spellings of ${originals.length} solutions: ${JSON.stringify(messages)}`,
    );
    expect(wrong).toEqual([]);
    expect([...accepted.values()].filter((n) => n > 1)).toEqual([]);
    // The exact re-spellings decode to the solution itself, so each one was accepted once.
    expect(accepted.size).toBe(originals.length);
  }, 600_000);

  it("leaves Object.prototype and friends as they were: ({}).polluted is undefined", () => {
    const probe = {} as Record<string, unknown>;
    for (const name of ["polluted", "isAdmin", "a", "x"]) {
      expect(probe[name]).toBeUndefined();
      expect(([] as unknown as Record<string, unknown>)[name]).toBeUndefined();
      expect((Object.create(null) as Record<string, unknown>)[name]).toBeUndefined();
    }
    expect(prototypes()).toEqual(pristine);
  });
});
