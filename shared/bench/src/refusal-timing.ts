/**
 * How long the real gateway takes to refuse a key that is unknown, rotated (a former secret of
 * a live configuration) or valid but of the wrong kind, on /classify and /verify; and how much
 * Redis work each refusal does (commandstats deltas, scripted calls included).
 * Usage: pnpm --filter @sift/bench bench:refusal-timing [n per kind, default 2000]
 */
import { performance } from "node:perf_hooks";
import { newSecretKey } from "@sift/keystore";
import { createKey, startServer, startStack } from "@sift/testkit";

const n = Number(process.argv[2] ?? 2000);
const [redis, nats] = await Promise.all([startServer("redis"), startServer("nats")]);
const stack = await startStack({ redisUrl: redis.url, natsUrl: nats.url });

const rotate = async (kind: "classify" | "challenge"): Promise<string> => {
  const key = await createKey(stack.keystore, { kind });
  await stack.keystore.rotate(key.configId);
  return key.secretKey;
};
const classifyKey = await createKey(stack.keystore, { kind: "classify" });
const challengeKey = await createKey(stack.keystore, { kind: "challenge" });

type Endpoint = "classify" | "verify";
/** The keys an endpoint refuses: one never issued, one rotated away, and one of the other kind. */
const refusedKeys = async (
  kind: "classify" | "challenge",
  wrongKind: "classify" | "challenge",
  wrongKey: string,
): Promise<Record<string, () => string>> => {
  const rotated = await rotate(kind);
  return {
    unknown: () => newSecretKey(),
    rotated: () => rotated,
    [`wrong kind (${wrongKind} key)`]: () => wrongKey,
  };
};
const kinds: Record<Endpoint, Record<string, () => string>> = {
  classify: await refusedKeys("classify", "challenge", challengeKey.secretKey),
  verify: await refusedKeys("challenge", "classify", classifyKey.secretKey),
};
const bodies: Record<Endpoint, object> = {
  classify: { content: { message: "hello" }, model: "spam-standard" },
  verify: { solution: "1.a.b.c" },
};

const send = async (endpoint: Endpoint, secretKey: string): Promise<string> => {
  const res = await fetch(`${stack.gatewayUrl}/${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${secretKey}` },
    body: JSON.stringify(bodies[endpoint]),
  });
  return `${res.status} ${((await res.json()) as { message?: string }).message}`;
};

const commandStats = async (): Promise<Map<string, number>> => {
  const info = await stack.redis.info("commandstats");
  return new Map(
    [...info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])] as [string, number]),
  );
};

const stats = (times: number[]) => {
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  const mean = times.reduce((s, t) => s + t, 0) / times.length;
  return { p10: at(0.1), p50: at(0.5), p90: at(0.9), p99: at(0.99), mean };
};
const ms = (v: number) => `${v.toFixed(3)} ms`;

for (const endpoint of ["classify", "verify"] as const) {
  const entries = Object.entries(kinds[endpoint]);
  // The answer each kind gets, and the Redis work behind it (100 each, alone).
  for (const [name, key] of entries) {
    const before = await commandStats();
    let answer = "";
    for (let i = 0; i < 100; i++) answer = await send(endpoint, key());
    const after = await commandStats();
    const work = [...after]
      .map(([cmd, calls]) => [cmd, (calls - (before.get(cmd) ?? 0)) / 100] as const)
      .filter(([cmd, per]) => per > 0 && cmd !== "info")
      .map(([cmd, per]) => `${cmd} ${per}`)
      .join(", ");
    console.log(`${endpoint} ${name}: answer "${answer}"; Redis per refusal: ${work}`);
  }
  // Timings: the kinds interleaved round-robin, so load drift hits them alike.
  const times = new Map(entries.map(([name]) => [name, [] as number[]]));
  for (let i = 0; i < n + 200; i++) {
    for (const [name, key] of entries) {
      const secret = key();
      const start = performance.now();
      await send(endpoint, secret);
      if (i >= 200) times.get(name)!.push(performance.now() - start);
    }
  }
  const summaries = entries.map(([name]) => [name, stats(times.get(name)!)] as const);
  for (const [name, s] of summaries) {
    console.log(
      `${endpoint} ${name}: n=${n} p10 ${ms(s.p10)}, p50 ${ms(s.p50)}, p90 ${ms(s.p90)}, p99 ${ms(s.p99)}, mean ${ms(s.mean)}`,
    );
  }
  const medians = summaries.map(([, s]) => s.p50);
  console.log(
    `${endpoint}: largest difference of medians ${ms(Math.max(...medians) - Math.min(...medians))}`,
  );
}

await stack.stop();
await Promise.all([redis.stop(), nats.stop()]);
