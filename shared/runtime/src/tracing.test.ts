import { describe, expect, it } from "vitest";
import { headers as natsHeaders, type MsgHdrs } from "nats";
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
});
