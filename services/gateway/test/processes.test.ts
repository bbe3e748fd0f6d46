import { randomBytes } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { Keystore } from "@sift/keystore";
import { createRedis, systemClock } from "@sift/runtime";
import { createKey, startOtlpCollector, type OtlpCollector } from "@sift/testkit";
import { post, startServer, type TestServer } from "@sift/testkit";
import { spawnStack, type ServiceName } from "@sift/testkit";

/**
 * Every service's main.ts as its own process, wired by environment exactly as the launcher and
 * the containers do: the stack answers through the gateway, and each process exits 0 on SIGTERM.
 * Its own NATS, so the worker here answers only this test; an OTLP collector of its own, which
 * every process exports its spans to.
 */
let nats: TestServer;
let collector: OtlpCollector;
let redis: Redis;
const children = new Map<ServiceName, ChildProcess>();
let gateway = "";
let metricsPort = 0;
/** Each internal service's own port (probes and metrics). */
const servicePorts: Partial<Record<ServiceName, number>> = {};

beforeAll(async () => {
  nats = await startServer("nats");
  collector = await startOtlpCollector();
  redis = createRedis(inject("redisUrl"), "sift-test-processes");
  const stack = await spawnStack({
    REDIS_URL: inject("redisUrl"),
    NATS_URL: nats.url,
    SIFT_INTERNAL_SECRET: randomBytes(32).toString("base64url"),
    LOG_LEVEL: "warn",
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
  });
  for (const [name, child] of stack.children) children.set(name, child);
  metricsPort = stack.ports.metrics;
  Object.assign(servicePorts, stack.ports);
  gateway = stack.baseUrl;
}, 90_000);

afterAll(async () => {
  for (const child of children.values()) if (child.exitCode === null) child.kill("SIGKILL");
  await nats?.stop();
  await collector?.stop();
  redis?.disconnect();
});

describe("the services as processes", () => {
  it("answer both operations through the gateway and serve metrics on their own port", async () => {
    const classify = await post(
      `${gateway}/classify`,
      { content: "vendor-test-spam", model: "spam-standard" },
      {
        authorization: "Bearer test",
      },
    );
    expect(classify.json).toEqual({ label: "spam", score: 1, model: "spam-standard" });
    const verify = await post(`${gateway}/verify`, { solution: "ok", secretKey: "test" });
    expect(verify.json).toEqual({ ok: true, message: "Test key" });
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/sift_http_request_duration_seconds_count\{[^}]*route="classify"/);
    expect((await fetch(`${gateway}/metrics`)).status).toBe(404);
  });

  it("trace a real-key classify call across the gateway, classify and model-worker processes as one trace", async () => {
    const key = await createKey(new Keystore({ redis, clock: systemClock }), { kind: "classify" });
    const reply = await post(
      `${gateway}/classify`,
      { content: "Is the shop open on Sunday?", model: "spam-standard" },
      { authorization: `Bearer ${key.secretKey}` },
    );
    expect(reply.status).toBe(200);
    const requestId = reply.headers.get("x-request-id");
    // Each process exports in batches (every 5 s by default).
    const services = async () => {
      const root = collector.spans.find((s) => s.attributes["sift.request_id"] === requestId);
      const trace = collector.spans.filter((s) => root && s.traceId === root.traceId);
      return [...new Set(trace.map((s) => s.service))].sort();
    };
    await expect
      .poll(services, { timeout: 15_000, interval: 250 })
      .toEqual(["classify", "gateway", "model-worker"]);
    const worker = await fetch(`http://127.0.0.1:${servicePorts.worker}/metrics`).then((r) => r.text());
    expect(worker).toMatch(/sift_model_batch_size_count\{[^}]*\} [1-9]/);
    expect(worker).toMatch(/sift_model_inference_duration_seconds_count\{[^}]*\} [1-9]/);
  }, 30_000);

  it("each answer /readyz with its named checks and serve /metrics", async () => {
    const ready = async (base: string) => {
      const res = await fetch(`${base}/readyz`);
      return { status: res.status, body: (await res.json()) as unknown };
    };
    expect(await ready(gateway)).toEqual({
      status: 200,
      body: { ok: true, checks: { redis: "ok", verify: "ok", classify: "ok", serving: "ok" } },
    });
    const expected = {
      worker: { "model spam-standard": "ok" },
      verify: { redis: "ok", serving: "ok" },
      classify: { redis: "ok", nats: "ok", serving: "ok" },
    };
    for (const [name, checks] of Object.entries(expected)) {
      const base = `http://127.0.0.1:${servicePorts[name as ServiceName]}`;
      expect({ name, ...(await ready(base)) }).toEqual({ name, status: 200, body: { ok: true, checks } });
      const metrics = await fetch(`${base}/metrics`).then((r) => r.text());
      expect(metrics).toContain(`service="${name === "worker" ? "model-worker" : name}"`);
    }
  });

  it("each exit 0 on SIGTERM; the gateway, verify and classify answer /readyz 503 during their drain", async () => {
    const exited = (name: ServiceName) =>
      new Promise<number | null>((resolve) => children.get(name)!.once("exit", resolve));
    /** SIGTERM, then a balancer's probe inside the drain (SIFT_SHUTDOWN_DRAIN_MS, 1 s by default). */
    const drained = async (name: ServiceName, base: string) => {
      const exit = exited(name);
      children.get(name)!.kill("SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 200));
      const res = await fetch(`${base}/readyz`);
      return { name, status: res.status, body: (await res.json()) as unknown, exit: await exit };
    };
    expect(await drained("gateway", gateway)).toEqual({
      name: "gateway",
      status: 503,
      body: {
        ok: false,
        checks: { redis: "ok", verify: "ok", classify: "ok", serving: "shutting down" },
      },
      exit: 0,
    });
    for (const name of ["verify", "classify"] as const)
      expect(await drained(name, `http://127.0.0.1:${servicePorts[name]}`)).toMatchObject({
        name,
        status: 503,
        body: { ok: false, checks: { serving: "shutting down" } },
        exit: 0,
      });
    const worker = exited("worker");
    children.get("worker")!.kill("SIGTERM");
    expect(await worker).toBe(0);
  }, 30_000);
});
