// pnpm bench:gateway [--duration 10] [--connections 16]
//
// Throughput and latency of the gateway against the services reached directly (the bare hop
// without key resolution, rate limiting and the proxy), each service in its own process as in
// production. Prints one row per path and the gateway/direct ratio.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import { SPAM_STANDARD } from "@sift/contracts";
import { KeyStore } from "@sift/keystore";
import { IdentitySigner, systemClock } from "@sift/runtime";
import { spawnStack, startServer } from "../src/index.ts";

const { values } = parseArgs({
  options: { duration: { type: "string", default: "10" }, connections: { type: "string", default: "16" } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

const redisServer = await startServer("redis");
const natsServer = await startServer("nats");
const secret = randomBytes(32).toString("base64url");
const services = await spawnStack(
  { REDIS_URL: redisServer.url, NATS_URL: natsServer.url, SIFT_INTERNAL_SECRET: secret, LOG_LEVEL: "warn" },
  { extra: { gateway: { SIFT_TEST_KEY_RATE: "1000000", SIFT_TEST_KEY_BURST: "1000000" } } },
);
const { verify: verifyPort, classify: classifyPort } = services.ports;
const gateway = services.baseUrl;
const results: Array<{ path: string; rps: number; p50: number; p99: number; non2xx: number }> = [];
try {
  const redis = new Redis(redisServer.url);
  const keys = new KeyStore({ redis, clock: systemClock });
  const workspace = await keys.createWorkspace({ name: "bench", plan: "paid", allowance: 1e9 });
  await keys.updateWorkspace(workspace.id, { rateLimit: 1e6, burst: 1e6 });
  const { secretKey, config } = (await keys.createConfig(workspace.id, "classify"))!;
  const record = (await keys.resolve(secretKey))!;
  redis.disconnect();

  const signer = new IdentitySigner(secret);
  // Signed once: valid for a minute, longer than any run here.
  const identity = (route: "classify" | "verify", key: Parameters<IdentitySigner["headers"]>[0]["key"]) =>
    signer.headers({ requestId: "bench", iat: Date.now(), route, key });
  const body = JSON.stringify({
    content: {
      name: "Sam",
      email: "sam@example.org",
      message: "Hello, is the flat still available next month?",
    },
    model: SPAM_STANDARD,
  });
  const json = { "content-type": "application/json" };
  const valid = { status: "valid" as const, ...record, configId: config.id };

  const paths: Array<[string, string, Record<string, string>, string]> = [
    [
      "classify direct, test key",
      `http://127.0.0.1:${classifyPort}/classify`,
      { ...json, ...identity("classify", { status: "test" }) },
      body,
    ],
    [
      "classify via gateway, test key",
      `${gateway}/classify`,
      { ...json, authorization: "Bearer test" },
      body,
    ],
    [
      "classify direct, real key (model)",
      `http://127.0.0.1:${classifyPort}/classify`,
      { ...json, ...identity("classify", valid) },
      body,
    ],
    [
      "classify via gateway, real key (model)",
      `${gateway}/classify`,
      { ...json, authorization: `Bearer ${secretKey}` },
      body,
    ],
    [
      "verify direct, test key",
      `http://127.0.0.1:${verifyPort}/verify`,
      { ...json, ...identity("verify", { status: "test" }) },
      '{"solution":"ok"}',
    ],
    [
      "verify via gateway, test key",
      `${gateway}/verify`,
      { ...json, "x-api-key": "test" },
      '{"solution":"ok"}',
    ],
  ];
  for (const [path, url, headers, payload] of paths) {
    // A short warm-up so JIT and connection pools are settled before measuring.
    await autocannon({ url, method: "POST", headers, body: payload, connections, duration: 1 });
    const r = await autocannon({ url, method: "POST", headers, body: payload, connections, duration });
    results.push({ path, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx });
  }
} finally {
  await services.stop();
  await redisServer.stop();
  await natsServer.stop();
}

console.log(`\n${connections} connections, ${duration} s per path, each service its own process\n`);
console.log("| path | req/s | p50 ms | p99 ms | non-2xx |\n| --- | ---: | ---: | ---: | ---: |");
for (const r of results)
  console.log(`| ${r.path} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.non2xx} |`);
const ratio = (via: string, direct: string) => {
  const a = results.find((r) => r.path === via)?.rps ?? 0;
  const b = results.find((r) => r.path === direct)?.rps ?? 1;
  return (a / b).toFixed(2);
};
console.log(
  `\ngateway / direct: classify test key ${ratio("classify via gateway, test key", "classify direct, test key")}×, ` +
    `classify real key ${ratio("classify via gateway, real key (model)", "classify direct, real key (model)")}×, ` +
    `verify ${ratio("verify via gateway, test key", "verify direct, test key")}×`,
);
process.exit(0);
