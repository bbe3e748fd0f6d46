import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { headers as natsHeaders, type MsgHdrs } from "nats";
import { pino } from "pino";
import { closeServer, listen } from "./lifecycle.ts";
import {
  natsHeaderGetter,
  natsHeaderSetter,
  ROOT_CONTEXT,
  startTracing,
  trace,
  withSpan,
} from "./tracing.ts";

describe("startTracing", () => {
  it("makes nothing when no OTLP endpoint is set", async () => {
    expect(await startTracing({ service: "gateway" })).toBeUndefined();
    expect(await startTracing({ service: "gateway", endpoint: "", tracesEndpoint: "" })).toBeUndefined();
  });

  it("carries a span's context through NATS headers as a W3C traceparent", async () => {
    // Nothing listens here: no span is ended, so nothing is ever exported.
    const tracing = (await startTracing({ service: "classify", endpoint: "http://127.0.0.1:9/otlp" }))!;
    const span = tracing.tracer.startSpan("send", {}, ROOT_CONTEXT);
    const headers: MsgHdrs = natsHeaders();
    tracing.inject(withSpan(ROOT_CONTEXT, span), headers, natsHeaderSetter);
    const { traceId, spanId } = span.spanContext();
    expect(headers.get("traceparent")).toBe(`00-${traceId}-${spanId}-01`);
    const received = trace.getSpanContext(tracing.extract(headers, natsHeaderGetter));
    expect(received).toMatchObject({ traceId, spanId, isRemote: true });
    await tracing.shutdown();
  });

  it("logs a failed export instead of dropping it silently", async () => {
    // A collector that refuses every export (a 400 is not retried).
    const collector = createServer((req, res) => {
      req.resume();
      res.writeHead(400).end();
    });
    const port = await listen(collector, 0, "127.0.0.1");
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
    const endpoint = `http://127.0.0.1:${port}`;
    const tracing = (await startTracing({ service: "verify", endpoint, logger }))!;
    tracing.tracer.startSpan("lost", {}, ROOT_CONTEXT).end();
    // A flush reports the failure to its caller too.
    await expect(tracing.forceFlush()).rejects.toThrow();
    await tracing.shutdown();
    await closeServer(collector);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      expect.objectContaining({
        msg: "trace export failed",
        url: `${endpoint}/v1/traces`,
        err: "Bad Request",
      }),
    ]);
  });
});
