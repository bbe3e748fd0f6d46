import { createServer } from "node:http";
import { gunzipSync } from "node:zlib";
import { closeServer, listen } from "@sift/runtime";

/** One span as a test reads it, flattened from OTLP/JSON. */
export interface CollectedSpan {
  /** The resource's `service.name`. */
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: "internal" | "server" | "client" | "producer" | "consumer" | "unspecified";
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
  links: Array<{ traceId: string; spanId: string }>;
  /** Start and end, milliseconds since the epoch with the exporter's nanoseconds as a fraction. */
  startMs: number;
  endMs: number;
}

export interface OtlpCollector {
  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it. */
  url: string;
  readonly spans: CollectedSpan[];
  /** Export requests that were not OTLP/JSON traces (the test should expect none). */
  readonly rejected: number;
  stop(): Promise<void>;
}

const KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"] as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpAttribute[];
  status?: { code?: number };
  links?: Array<{ traceId: string; spanId: string }>;
  /** Nanoseconds since the epoch, as a decimal string (or a number from other exporters). */
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

const valueOf = (value: OtlpValue): string | number | boolean =>
  value.stringValue ??
  (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
  value.doubleValue ??
  value.boolValue ??
  "";

/** Epoch nanoseconds (too large for a double's precision) as milliseconds with a fraction. */
const msOf = (nanos: string | number | undefined): number => {
  if (nanos === undefined || !/^\d+$/.test(String(nanos))) return NaN;
  const n = BigInt(nanos);
  return Number(n / 1_000_000n) + Number(n % 1_000_000n) / 1e6;
};

const attributesOf = (list: OtlpAttribute[] | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

/**
 * A minimal OTLP/HTTP collector for tests: a real HTTP server that accepts JSON trace exports
 * at /v1/traces (what `@opentelemetry/exporter-trace-otlp-http` sends) and keeps the spans.
 */
export const startOtlpCollector = async (): Promise<OtlpCollector> => {
  const spans: CollectedSpan[] = [];
  let rejected = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const json =
        req.method === "POST" &&
        req.url === "/v1/traces" &&
        req.headers["content-type"]?.startsWith("application/json");
      if (!json) {
        rejected++;
        return void res.writeHead(415).end();
      }
      const parsed = JSON.parse(body.toString("utf8")) as OtlpExport;
      for (const resourceSpans of parsed.resourceSpans ?? []) {
        const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"] ?? "");
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? "",
              name: span.name,
              kind: KINDS[span.kind ?? 0] ?? "unspecified",
              attributes: attributesOf(span.attributes),
              status: span.status?.code ?? 0,
              links: span.links ?? [],
              startMs: msOf(span.startTimeUnixNano),
              endMs: msOf(span.endTimeUnixNano),
            });
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  const port = await listen(server, 0, "127.0.0.1");
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get rejected() {
      return rejected;
    },
    stop: () => closeServer(server),
  };
};
