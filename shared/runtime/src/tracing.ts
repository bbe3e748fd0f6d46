import type { ClientRequest, IncomingHttpHeaders } from "node:http";
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type HrTime,
  type Span,
  type SpanOptions,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from "@opentelemetry/api";
import type { MsgHdrs } from "nats";
import type { SpanExporter } from "@opentelemetry/sdk-trace";
import type { Logger } from "pino";

export { ROOT_CONTEXT, SpanKind, trace };
export type { Context, Span, Tracer };

/**
 * A service's tracer and the W3C trace-context propagator, made by `startTracing` when an OTLP
 * endpoint is configured. Services take it as an optional dependency: when it is absent nothing
 * below is called, so an untraced request costs one `undefined` check per hop.
 */
export interface Tracing {
  readonly tracer: Tracer;
  inject<C>(context: Context, carrier: C, setter: TextMapSetter<C>): void;
  extract<C>(carrier: C, getter: TextMapGetter<C>): Context;
  /** Exports every finished span now (tests; shutdown). */
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** The service's name (`service.name`; `service.namespace` is `sift`). */
  service: string;
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: the collector's base URL; spans go to `<endpoint>/v1/traces`. */
  endpoint?: string | undefined;
  /** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: the full URL for spans, used as is (wins over `endpoint`). */
  tracesEndpoint?: string | undefined;
  /**
   * The share of traces this service starts that are recorded (0-1, default 1). A span with a
   * parent always follows the parent's decision, so the gateway, where traces start, decides
   * for the whole call.
   */
  sampleRatio?: number | undefined;
  /** Where failed exports are reported (the SDK's own error handler is silent). */
  logger?: Logger | undefined;
}

/**
 * A tracer provider of the service's own (never registered globally, so two services in one
 * process, as the tests run them, keep their own `service.name`), exporting OTLP/HTTP JSON in
 * batches. Undefined when no endpoint is set: the SDK is then not even loaded.
 */
export const startTracing = async (options: TracingOptions): Promise<Tracing | undefined> => {
  const url = options.tracesEndpoint || tracesUrl(options.endpoint);
  if (!url) return undefined;
  const [sdk, { resourceFromAttributes }, { OTLPTraceExporter }, core] = await Promise.all([
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/core"),
  ]);
  const ratio = options.sampleRatio ?? 1;
  const otlp = new OTLPTraceExporter({ url });
  const exporter: SpanExporter = {
    export: (spans, done) =>
      otlp.export(spans, (result) => {
        // Non-zero is ExportResultCode.FAILED: the batch is dropped (the SDK does not keep it).
        if (result.code !== 0)
          options.logger?.warn({ err: result.error?.message, url }, "trace export failed");
        done(result);
      }),
    shutdown: () => otlp.shutdown(),
    forceFlush: () => otlp.forceFlush(),
  };
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({ "service.name": options.service, "service.namespace": "sift" }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
    sampler: new sdk.ParentBasedSampler({
      root: ratio >= 1 ? new sdk.AlwaysOnSampler() : new sdk.TraceIdRatioBasedSampler(ratio),
    }),
  });
  const propagator = new core.W3CTraceContextPropagator();
  return {
    tracer: preciseTimes(provider.getTracer("sift"), () => core.hrTime()),
    inject: (context, carrier, setter) => propagator.inject(context, carrier, setter),
    extract: (carrier, getter) => propagator.extract(ROOT_CONTEXT, carrier, getter),
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
};

/**
 * A tracer whose spans start and end at `now()` (performance.timeOrigin + performance.now(), in
 * microseconds) unless the caller gives a time. The SDK stamps a span's start with Date.now(), in
 * whole milliseconds, and its end at start + a precise duration: a span's length is right but
 * its place on the time line is off by up to a millisecond, which hides where a sub-millisecond
 * call spends its time across processes (issue 40's breakdown, `pnpm bench`). Only a traced
 * service pays for it (two hrtime reads per span).
 */
export const preciseTimes = (tracer: Tracer, now: () => HrTime): Tracer => ({
  startSpan: (name, options = {}, context) => {
    const span = tracer.startSpan(name, { ...options, startTime: options.startTime ?? now() }, context);
    const end = span.end.bind(span);
    span.end = (time) => end(time ?? now());
    return span;
  },
  startActiveSpan: tracer.startActiveSpan.bind(tracer) as Tracer["startActiveSpan"],
});

/** The OTLP spec's rule for the generic endpoint variable: the signal's path is appended. */
const tracesUrl = (endpoint: string | undefined): string | undefined =>
  endpoint ? new URL("v1/traces", endpoint.endsWith("/") ? endpoint : `${endpoint}/`).href : undefined;

/** Ends a span, marked failed with `error` (a reason or an exception) when given. */
export const endSpan = (span: Span, error?: unknown): void => {
  if (error !== undefined) {
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
  }
  span.end();
};

/** Ends `span` when `work` settles, failed if it rejects. */
export const traced = async <T>(span: Span, work: Promise<T>): Promise<T> => {
  try {
    const value = await work;
    endSpan(span);
    return value;
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
};

/**
 * Runs `work` inside a new span of `tracing` under `parent`, handing it the span's context, and
 * ends the span when it settles: failed when it throws, or when `failure` names a reason for
 * the value (an expected failure returned as a value, not thrown). What the decorators that
 * trace a client or a handler from outside are built on, so the traced code has no branch.
 */
export const inSpan = async <T>(
  tracing: Tracing,
  parent: Context,
  name: string,
  options: SpanOptions,
  work: (context: Context) => Promise<T>,
  failure: (value: T) => string | undefined = () => undefined,
): Promise<T> => {
  const span = tracing.tracer.startSpan(name, options, parent);
  let value: T;
  try {
    value = await work(trace.setSpan(parent, span));
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
  endSpan(span, failure(value));
  return value;
};

/**
 * `work` run synchronously inside a span of `parent` when tracing is on (else just run): the
 * hot path's parts that never await (featurising, the verdict log's record), named for
 * `pnpm bench`'s lone-classify table by part.
 */
export const syncSpan = <T>(
  tracing: Tracing | undefined,
  parent: Context | undefined,
  name: string,
  work: () => T,
): T => {
  if (!tracing || !parent) return work();
  const span = tracing.tracer.startSpan(name, {}, parent);
  try {
    const value = work();
    endSpan(span);
    return value;
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
};

/** `syncSpan` for work that awaits: a span of `parent` around it when tracing is on. */
export const asyncSpan = <T>(
  tracing: Tracing | undefined,
  parent: Context | undefined,
  name: string,
  work: () => Promise<T>,
): Promise<T> => (tracing && parent ? traced(tracing.tracer.startSpan(name, {}, parent), work()) : work());

/** The context that makes `span` the parent of what follows. */
export const withSpan = (parent: Context, span: Span): Context => trace.setSpan(parent, span);

/** Incoming HTTP headers (node lower-cases their names, as W3C's `traceparent` already is). */
export const incomingHeaders: TextMapGetter<IncomingHttpHeaders> = {
  get: (carrier, key) => carrier[key],
  keys: (carrier) => Object.keys(carrier),
};

/** An outgoing HTTP request, before its headers are sent (the proxy's `proxyReq`). */
export const outgoingRequest: TextMapSetter<ClientRequest> = {
  set: (carrier, key, value) => carrier.setHeader(key, value),
};

/** NATS message headers, both ways. */
export const natsHeaderGetter: TextMapGetter<MsgHdrs | undefined> = {
  get: (carrier, key) => carrier?.get(key) || undefined,
  keys: (carrier) => carrier?.keys() ?? [],
};
export const natsHeaderSetter: TextMapSetter<MsgHdrs> = {
  set: (carrier, key, value) => carrier.set(key, value),
};
