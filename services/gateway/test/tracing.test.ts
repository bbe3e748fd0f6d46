import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import {
  createKey,
  post,
  startModelWorker,
  startOtlpCollector,
  startServer,
  startStack,
  type CollectedSpan,
  type OtlpCollector,
  type RunningModelWorker,
  type Stack,
  type TestServer,
} from "@sift/testkit";

/**
 * Traces through the real stack: every service and the model worker with a tracer provider of
 * its own (as their main.ts make them), exporting OTLP/HTTP JSON to a collector in this test.
 * Its own NATS, so the worker here answers only this test.
 */
let collector: OtlpCollector;
let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker;

beforeAll(async () => {
  collector = await startOtlpCollector();
  nats = await startServer("nats");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url, otlpEndpoint: collector.url });
  worker = await startModelWorker(nats.url, undefined, { otlpEndpoint: collector.url });
});
afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
  await nats?.stop();
  await collector?.stop();
});

/** The trace whose gateway span carries `requestId`, once every service has exported it. */
const traceOf = async (requestId: string): Promise<CollectedSpan[]> => {
  await Promise.all([stack.flushTraces(), worker.flushTraces()]);
  const root = collector.spans.find(
    (s) => s.service === "gateway" && s.kind === "server" && s.attributes["sift.request_id"] === requestId,
  );
  expect(root, `a gateway span for ${requestId}`).toBeDefined();
  return collector.spans.filter((s) => s.traceId === root!.traceId);
};

/** Each span as `service kind name ← parent service name`, sorted: the trace's shape. */
const shape = (spans: CollectedSpan[]): string[] => {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  return spans
    .map((s) => {
      const parent = byId.get(s.parentSpanId);
      return `${s.service} ${s.kind} ${s.name} ← ${parent ? `${parent.service} ${parent.name}` : "root"}`;
    })
    .sort();
};

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";

describe("traces", () => {
  it("follow a classify call from the gateway over HTTP and NATS to the model worker as one trace", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    const reply = await post(
      `${stack.gatewayUrl}/classify`,
      { content: { name: "Ann", message: "Is the shop open on Sunday?" }, model: "spam-standard" },
      { authorization: `Bearer ${key.secretKey}`, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    );
    expect(reply.status).toBe(200);
    const spans = await traceOf(reply.headers.get("x-request-id")!);

    expect(shape(spans)).toEqual(
      [
        "gateway server POST /classify ← root",
        "gateway internal key resolve ← gateway POST /classify",
        "gateway client POST /classify ← gateway POST /classify",
        "classify server POST /classify ← gateway POST /classify",
        "classify internal usage admit ← classify POST /classify",
        "classify client send sift.inference.v1 ← classify POST /classify",
        "model-worker consumer process sift.inference.v1 ← classify send sift.inference.v1",
        "model-worker internal model batch ← model-worker process sift.inference.v1",
        // The hot path's own parts (issue 58: pnpm bench's lone classify by part).
        "model-worker internal featurise ← model-worker process sift.inference.v1",
        "model-worker internal reasons ← model-worker process sift.inference.v1",
        "model-worker internal per-site state ← model-worker process sift.inference.v1",
        "classify internal verdict log ← classify POST /classify",
      ].sort(),
    );
    // The classify server span hangs off the gateway's CLIENT span (the proxied request's traceparent).
    const gatewayClient = spans.find((s) => s.service === "gateway" && s.kind === "client")!;
    const classifyServer = spans.find((s) => s.service === "classify" && s.kind === "server")!;
    expect(classifyServer.parentSpanId).toBe(gatewayClient.spanId);
    // A caller's traceparent is linked from the gateway's root span, never continued.
    const root = spans.find((s) => s.service === "gateway" && s.kind === "server")!;
    expect(root.traceId).not.toBe(CALLER_TRACE);
    expect(root.links.map((l) => [l.traceId, l.spanId])).toEqual([[CALLER_TRACE, CALLER_SPAN]]);
    expect(root.attributes).toMatchObject({ "http.route": "/classify", "http.response.status_code": 200 });
    const batch = spans.find((s) => s.name === "model batch")!;
    expect(batch.attributes).toMatchObject({ "sift.batch.size": 1, "sift.model": "spam-standard" });
    expect(spans.every((s) => s.status !== 2)).toBe(true);
    // Every span starts after its parent on one time line, across processes, to the microsecond:
    // starts and ends are performance.timeOrigin + performance.now(), not whole milliseconds
    // (an end may follow its parent's: a server span ends on its answer's close event, which
    // can come after the proxy's span has seen the answer whole).
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    // A microsecond clock lands on a whole millisecond one time in a thousand (CI once saw it on
    // one of the twelve spans): whole-millisecond times would put every start there, or most.
    const whole = spans.filter((s) => Number.isInteger(s.startMs)).map((s) => s.name);
    expect(whole.length, `spans starting at a whole millisecond: ${whole.join(", ")}`).toBeLessThanOrEqual(1);
    for (const s of spans) {
      expect(s.endMs, `${s.name} ends after it starts`).toBeGreaterThanOrEqual(s.startMs);
      const parent = byId.get(s.parentSpanId);
      if (parent) expect(s.startMs, `${s.name} after ${parent.name}`).toBeGreaterThanOrEqual(parent.startMs);
    }
    // The model's request goes out with the usage script, not after it (issue 40).
    const send = spans.find((s) => s.service === "classify" && s.kind === "client")!;
    const admit = spans.find((s) => s.name === "usage admit")!;
    expect(send.startMs).toBeLessThanOrEqual(admit.startMs);
    // Secrets never reach a span.
    expect(JSON.stringify(collector.spans)).not.toContain(key.secretKey);
    expect(collector.rejected).toBe(0);
  });

  it("mark the NATS request and the service's span failed when no model worker answers", async () => {
    await worker.stop();
    try {
      const key = await createKey(stack.keystore, { kind: "classify" });
      const reply = await post(
        `${stack.gatewayUrl}/classify`,
        { content: "Is the shop open on Sunday?", model: "spam-standard" },
        { authorization: `Bearer ${key.secretKey}` },
      );
      expect(reply.status).toBe(503);
      const spans = await traceOf(reply.headers.get("x-request-id")!);
      const failed = spans.filter((s) => s.status === 2).map((s) => `${s.service} ${s.kind} ${s.name}`);
      expect(failed.sort()).toEqual(
        [
          "gateway server POST /classify",
          "gateway client POST /classify",
          "classify server POST /classify",
          "classify client send sift.inference.v1",
        ].sort(),
      );
    } finally {
      worker = await startModelWorker(nats.url, undefined, { otlpEndpoint: collector.url });
    }
  });

  it("follow a verify call from the gateway to the verify service", async () => {
    const reply = await post(`${stack.gatewayUrl}/verify`, { secretKey: "test", solution: "ok" });
    expect(reply.json).toEqual({ ok: true, message: "Test key" });
    const spans = await traceOf(reply.headers.get("x-request-id")!);
    expect(shape(spans)).toEqual(
      [
        "gateway server POST /verify ← root",
        "gateway client POST /verify ← gateway POST /verify",
        "verify server POST /verify ← gateway POST /verify",
      ].sort(),
    );
    expect(JSON.stringify(spans)).not.toContain('"test"');
  });

  it("record nothing anywhere on the path for a call the gateway does not sample", async () => {
    const unsampled = await startStack({
      redisUrl: inject("redisUrl"),
      natsUrl: nats.url,
      otlpEndpoint: collector.url,
      traceSampleRatio: 0,
    });
    try {
      await Promise.all([stack.flushTraces(), worker.flushTraces()]);
      const before = collector.spans.length;
      const key = await createKey(unsampled.keystore, { kind: "classify" });
      const reply = await post(
        `${unsampled.gatewayUrl}/classify`,
        { content: "Is the shop open on Sunday?", model: "spam-standard" },
        { authorization: `Bearer ${key.secretKey}` },
      );
      expect(reply.status).toBe(200);
      await Promise.all([unsampled.flushTraces(), worker.flushTraces()]);
      expect(collector.spans.slice(before).map((s) => `${s.service} ${s.name}`)).toEqual([]);
    } finally {
      await unsampled.stop();
    }
  });
});
