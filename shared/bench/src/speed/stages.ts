// One lone classify's time line by stage, in wall-clock time, from the services' own trace spans
// (issue 40). A second Sift stack with tracing on (OTLP to a collector in the bench's process,
// its own NATS so only its worker answers it) takes classify calls one at a time; each call's
// spans give the moment it reached each stage, on one clock (every span's start and end are
// performance.timeOrigin + performance.now(), the same time line in every process of the
// machine: @sift/runtime's preciseTimes). The untraced stack pays nothing for this: tracing off,
// no span is made.
import { Agent, request } from "node:http";
import { spawnStack, startOtlpCollector, startServer, type CollectedSpan } from "@sift/testkit";
import { median } from "./load.ts";

/**
 * The stages of one call, in the order it reaches them (the chain: each row's time is from the
 * row before), and beside them the moments that overlap the chain (`from`: each row's time is
 * from that stage): the usage script runs beside the model's request since issue 40, and the
 * worker's own span ends with the write of its reply, which can return after classify read it.
 */
const STAGES: ReadonlyArray<{ stage: string; note: string; from?: string }> = [
  { stage: "client sent", note: "the bench's clock as the request is written" },
  { stage: "gateway in", note: "loopback, the gateway's HTTP parse and its first middlewares" },
  { stage: "gateway key script done", note: "body read, key resolved and rate limit taken (one Lua call)" },
  { stage: "gateway → classify sent", note: "identity signed, the proxy hop opened" },
  { stage: "classify in", note: "loopback, the classify service's HTTP parse" },
  {
    stage: "NATS request sent",
    note: "body, identity check, request parse, content rules (and, before issue 40, the usage script)",
  },
  { stage: "worker in", note: "classify → NATS server → the worker's callback" },
  { stage: "model run started", note: "parse, schema check, featurise" },
  { stage: "model run done", note: "the ONNX session's run" },
  {
    stage: "classify has the reply",
    note: "reasons (the log's or asked), learned state, the reply's JSON, worker → NATS server → classify, the reply's parse",
  },
  { stage: "classify answered", note: "the answer's JSON and write, the verdict log's record" },
  { stage: "gateway out", note: "classify → gateway over loopback, the proxy's copy of the answer" },
  { stage: "client has the answer", note: "loopback to the bench, its HTTP parse" },
  {
    stage: "usage script done",
    note: "beside the chain, from classify in: body, identity, parse, content rules, the usage script",
    from: "classify in",
  },
  {
    stage: "worker's span ends",
    note: "beside the chain, from model run done: reasons, learned state, the reply's JSON and its write",
    from: "model run done",
  },
];

export interface StageFigure {
  stage: string;
  note: string;
  /** The stage this one is timed from, when it is not the one before (a moment beside the chain). */
  from?: string;
  /** Median time since the client sent the call, ms. */
  atMs: number;
  /** Mean and median of each call's time from the stage before (or `from`), ms. */
  stepMeanMs: number;
  stepMedianMs: number;
}

/**
 * The parts issue 58 asks the lone classify's time be read by: each call's wall clock cut at its
 * spans' edges, so the parts of one call sum to its whole time (client sent → client has it).
 */
const PARTS: ReadonlyArray<{ part: string; note: string }> = [
  { part: "client ↔ gateway", note: "loopback both ways, the gateway's HTTP parse and the bench's" },
  { part: "gateway", note: "its own handling: body read, identity signed, the proxy (key script aside)" },
  { part: "gateway's key script", note: "key resolved and rate limit taken: one Lua call (a floor part)" },
  { part: "gateway ↔ classify", note: "loopback both ways, the classify service's HTTP parse" },
  {
    part: "classify",
    note: "body, identity, request parse, content rules, the answer's JSON (the usage script runs beside)",
  },
  {
    part: "NATS both ways",
    note: "classify → NATS server → worker and back, the reply's parse (a floor part)",
  },
  { part: "worker", note: "the request's parse and schema check, batching, the reply's JSON" },
  { part: "featuriser", note: "the submission's features" },
  { part: "model", note: "one ONNX run (a batch of one)" },
  { part: "reasons", note: "the verdict log's light reasons (no extra model run)" },
  { part: "per-site state", note: "the site's learned layer, lists, strictness, languages" },
  { part: "verdict log", note: "the entry's record, after the answer is written" },
];

export interface PartFigure {
  part: string;
  note: string;
  meanMs: number;
  medianMs: number;
}

export interface StageBreakdown {
  calls: number;
  /** Calls whose trace came back whole (every stage's span), the ones the figures are read from. */
  complete: number;
  stages: StageFigure[];
  /** The same calls by part (PARTS); each call's parts sum to its whole time. */
  parts: PartFigure[];
  /** Mean whole time of those calls, client sent → client has the answer, ms. */
  wholeMeanMs: number;
}

/** A call's span by its service, kind and (for internal spans) name. */
const spanFinder =
  (spans: readonly CollectedSpan[]) =>
  (service: string, kind: CollectedSpan["kind"], name?: string): CollectedSpan | undefined =>
    spans.find((s) => s.service === service && s.kind === kind && (name === undefined || s.name === name));

/** One call's time by part, in PARTS' order (ms), from its trace; null when a span is missing. */
const partsOf = (spans: CollectedSpan[], sent: number, answered: number): number[] | null => {
  const find = spanFinder(spans);
  const length = (s: CollectedSpan | undefined) => (s ? s.endMs - s.startMs : 0);
  const gateway = find("gateway", "server");
  const key = find("gateway", "internal", "key resolve");
  const hop = find("gateway", "client");
  const classify = find("classify", "server");
  const send = find("classify", "client");
  const worker = find("model-worker", "consumer");
  const batch = find("model-worker", "internal", "model batch");
  const featurise = find("model-worker", "internal", "featurise");
  if (!gateway || !key || !hop || !classify || !send || !worker || !batch || !featurise) return null;
  const reasons = length(find("model-worker", "internal", "reasons"));
  const perSite = length(find("model-worker", "internal", "per-site state"));
  const log = length(find("classify", "internal", "verdict log"));
  const inWorker = length(featurise) + length(batch) + reasons + perSite;
  return [
    answered - sent - length(gateway),
    length(gateway) - length(hop) - length(key),
    length(key),
    length(hop) - length(classify),
    length(classify) - length(send) - log,
    length(send) - length(worker),
    length(worker) - inWorker,
    length(featurise),
    length(batch),
    reasons,
    perSite,
    log,
  ];
};

/** The wall-clock moment of each stage of one call (ms since the epoch), from its trace. */
const timeline = (spans: CollectedSpan[], sent: number, answered: number): number[] | null => {
  const find = spanFinder(spans);
  const gatewayServer = find("gateway", "server");
  const keyResolve = find("gateway", "internal", "key resolve");
  const gatewayClient = find("gateway", "client");
  const classifyServer = find("classify", "server");
  const usageAdmit = find("classify", "internal", "usage admit");
  const send = find("classify", "client");
  const process = find("model-worker", "consumer");
  const batch = find("model-worker", "internal", "model batch");
  const parts = [gatewayServer, keyResolve, gatewayClient, classifyServer, usageAdmit, send, process, batch];
  if (parts.some((p) => p === undefined)) return null;
  // In STAGES' order.
  return [
    sent,
    gatewayServer!.startMs,
    keyResolve!.endMs,
    gatewayClient!.startMs,
    classifyServer!.startMs,
    send!.startMs,
    process!.startMs,
    batch!.startMs,
    batch!.endMs,
    send!.endMs,
    classifyServer!.endMs,
    gatewayServer!.endMs,
    answered,
    usageAdmit!.endMs,
    process!.endMs,
  ];
};

const now = () => performance.timeOrigin + performance.now();

/**
 * Starts the traced stack, sends `warmup` then `count` classify calls one after another on one
 * keep-alive connection, reads their traces, and stops it all again.
 */
export const stageBreakdown = async (options: {
  /** The environment every Sift service of the bench gets (Redis, the internal secret, log keys). */
  common: Record<string, string>;
  built: boolean;
  secretKey: string;
  body: () => string;
  warmup: number;
  count: number;
  log: (line: string) => void;
}): Promise<StageBreakdown> => {
  const collector = await startOtlpCollector();
  const nats = await startServer("nats");
  const stack = await spawnStack(
    { ...options.common, NATS_URL: nats.url, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
    { built: options.built },
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const calls: Array<{ requestId: string; sent: number; answered: number }> = [];
  try {
    const post = (requestId: string, body: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          `${stack.baseUrl}/classify`,
          {
            method: "POST",
            agent,
            headers: {
              "content-type": "application/json",
              authorization: `Bearer ${options.secretKey}`,
              "x-request-id": requestId,
            },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    for (let i = 0; i < options.warmup + options.count; i++) {
      const requestId = `bench-stage-${i}`;
      const body = options.body();
      const sent = now();
      const status = await post(requestId, body);
      const answered = now();
      if (status !== 200) throw new Error(`the traced stack answered ${status}`);
      if (i >= options.warmup) calls.push({ requestId, sent, answered });
    }
    // Each service exports its spans in batches (every 5 s): wait for the last call's whole trace.
    const deadline = Date.now() + 20_000;
    /** Each call's spans, read off the collector (a call whose root has not arrived: none). */
    const traces = () => {
      const byTrace = new Map<string, CollectedSpan[]>();
      for (const s of collector.spans) byTrace.set(s.traceId, [...(byTrace.get(s.traceId) ?? []), s]);
      const roots = new Map(
        collector.spans
          .filter((s) => s.service === "gateway" && s.kind === "server")
          .map((s) => [String(s.attributes["sift.request_id"]), s.traceId]),
      );
      return calls.map((c) => ({ call: c, spans: byTrace.get(roots.get(c.requestId) ?? "") ?? [] }));
    };
    const complete = () => traces().map(({ call, spans }) => timeline(spans, call.sent, call.answered));
    const partLines = () =>
      traces().flatMap(({ call, spans }) => {
        const parts = partsOf(spans, call.sent, call.answered);
        return parts ? [{ parts, whole: call.answered - call.sent }] : [];
      });
    let lines = complete();
    while (lines.some((l) => l === null) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      lines = complete();
    }
    const whole = lines.filter((l): l is number[] => l !== null);
    options.log(`stage breakdown: ${whole.length} of ${calls.length} traces whole`);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const byPart = partLines();
    return {
      calls: calls.length,
      complete: whole.length,
      parts: PARTS.map(({ part, note }, i) => {
        const xs = byPart.map((l) => l.parts[i]!);
        return { part, note, meanMs: mean(xs), medianMs: median(xs) };
      }),
      wholeMeanMs: mean(byPart.map((l) => l.whole)),
      stages: STAGES.map(({ stage, note, from }, i) => {
        const base = from === undefined ? i - 1 : STAGES.findIndex((x) => x.stage === from);
        const steps = whole.map((l) => (i === 0 ? 0 : l[i]! - l[base]!));
        return {
          stage,
          note,
          ...(from === undefined ? {} : { from }),
          atMs: median(whole.map((l) => l[i]! - l[0]!)),
          stepMeanMs: mean(steps),
          stepMedianMs: median(steps),
        };
      }),
    };
  } finally {
    agent.destroy();
    await stack.stop();
    await nats.stop();
    await collector.stop();
  }
};
