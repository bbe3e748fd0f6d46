import type { NatsConnection, Subscription } from "nats";
import {
  FEEDBACK_UPDATED_SUBJECT,
  FeedbackUpdated,
  INFERENCE_QUEUE,
  INFERENCE_SUBJECT,
  REQUEST_ID_HEADER,
  type InferenceReply,
} from "@sift/contracts";
import type { Features } from "@sift/model";
import {
  Counter,
  endSpan,
  Histogram,
  natsHeaderGetter,
  SpanKind,
  trace,
  withSpan,
  type Context,
  type Logger,
  type Registry,
  type Span,
  type Tracing,
} from "@sift/runtime";
import type { Scorer } from "./clients/scorer.ts";
import type { WorkspaceStates } from "./clients/workspace-states.ts";
import { MicroBatcher } from "./domain/batcher.ts";
import { handleInference } from "./handlers/inference.ts";

export interface WorkerDeps {
  nats: NatsConnection;
  scorer: Scorer;
  logger: Logger;
  config: { batchWindowMs: number; batchMaxItems: number };
  /** Workspaces' learned state; absent, every request gets the base model's score. */
  states?: WorkspaceStates;
  /** Batch sizes, model time and requests by outcome go here when given (served on the probe port). */
  metrics?: Registry | undefined;
  /** When given, each request continues the classify service's trace, and each batch is a span. */
  tracing?: Tracing | undefined;
}

/** Powers of two up to the largest batch the configuration allows (1,024). */
const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
/** Seconds: one item takes ~60 µs, a batch of 64 under a millisecond (docs/model-worker.md). */
const MODEL_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25];

const workerMetrics = (registry: Registry | undefined) => {
  const registers = registry ? [registry] : [];
  return {
    batchSize: new Histogram({
      name: "sift_model_batch_size",
      help: "Submissions per model run",
      buckets: BATCH_SIZE_BUCKETS,
      registers,
    }),
    inference: new Histogram({
      name: "sift_model_inference_duration_seconds",
      help: "Time of one model run (one batch), from featurised input to scores",
      buckets: MODEL_BUCKETS,
      registers,
    }),
    requests: new Counter({
      name: "sift_model_requests_total",
      help: "Inference requests answered, by outcome (ok, or the reply's error)",
      labelNames: ["outcome"] as const,
      registers,
    }),
  };
};

export interface InferenceWorker {
  start(): void;
  /** Stops taking work, answers everything already received, then resolves. */
  stop(): Promise<void>;
  /** Subscribed, connected and not stopping. */
  ready(): boolean;
  readonly stats: { handled: number; batches: number; items: number };
}

/**
 * The model worker's app: a queue-group subscriber on the inference subject (so each request
 * reaches one worker) that hands each message to its handler, with a micro-batcher in front of
 * the scorer; and, with learned state, a plain subscriber (every worker hears it) on the
 * learner's announcements. The NATS connection belongs to the caller, who drains it after stop().
 */
export const createInferenceWorker = (deps: WorkerDeps): InferenceWorker => {
  const { nats, scorer, logger, tracing } = deps;
  const metrics = workerMetrics(deps.metrics);
  const runBatch = async (items: Features[], traces: Context[]): Promise<Float32Array> => {
    metrics.batchSize.observe(items.length);
    // The batch belongs to its first request's trace and links the others'.
    const span =
      tracing && traces[0]
        ? tracing.tracer.startSpan(
            "model batch",
            {
              attributes: { "sift.batch.size": items.length, "sift.model": scorer.model },
              links: traces.slice(1).flatMap((t) => {
                const context = trace.getSpanContext(t);
                return context ? [{ context }] : [];
              }),
            },
            traces[0],
          )
        : undefined;
    const end = metrics.inference.startTimer();
    try {
      const scores = await scorer.score(items);
      if (span) endSpan(span);
      return scores;
    } catch (err) {
      if (span) endSpan(span, err);
      throw err;
    } finally {
      end();
    }
  };
  const batcher = new MicroBatcher<Features, number, Context>({
    windowMs: deps.config.batchWindowMs,
    maxItems: deps.config.batchMaxItems,
    run: runBatch,
  });
  const inFlight = new Set<Promise<void>>();
  let subscription: Subscription | undefined;
  let updates: Subscription | undefined;
  let stopping = false;
  let handled = 0;
  const handlerDeps = {
    score: (items: Features[], trace?: Context) => batcher.submit(items, trace),
    model: scorer.model,
    version: scorer.version,
    logger,
    ...(deps.states ? { states: deps.states } : {}),
  };

  const answer = (reply: InferenceReply, respond: (data: string) => boolean) => {
    handled++;
    metrics.requests.inc({ outcome: reply.ok ? "ok" : reply.error });
    respond(JSON.stringify(reply));
  };

  return {
    start() {
      subscription = nats.subscribe(INFERENCE_SUBJECT, {
        queue: INFERENCE_QUEUE,
        callback: (err, msg) => {
          if (err) return logger.warn({ err }, "subscription error");
          const requestId = msg.headers?.get(REQUEST_ID_HEADER) || undefined;
          let span: Span | undefined;
          let context: Context | undefined;
          if (tracing) {
            const parent = tracing.extract(msg.headers, natsHeaderGetter);
            span = tracing.tracer.startSpan(
              `process ${INFERENCE_SUBJECT}`,
              {
                kind: SpanKind.CONSUMER,
                attributes: { "messaging.system": "nats", "messaging.destination.name": INFERENCE_SUBJECT },
              },
              parent,
            );
            context = withSpan(parent, span);
          }
          const task = handleInference(msg.data, handlerDeps, requestId, context).then((reply) => {
            answer(reply, (data) => msg.respond(data));
            if (span) endSpan(span, reply.ok ? undefined : reply.error);
          });
          inFlight.add(task);
          void task.finally(() => inFlight.delete(task));
        },
      });
      const states = deps.states;
      if (states) {
        updates = nats.subscribe(FEEDBACK_UPDATED_SUBJECT, {
          callback: (err, msg) => {
            if (err) return logger.warn({ err }, "subscription error");
            const update = FeedbackUpdated.safeParse(safeJson(msg.data));
            if (update.success) states.announce(update.data.workspaceId, update.data.version);
          },
        });
      }
      logger.info(
        { subject: INFERENCE_SUBJECT, queue: INFERENCE_QUEUE, model: scorer.model, version: scorer.version },
        "worker subscribed",
      );
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      // Drain unsubscribes first (no new work reaches this worker; NATS routes it to the others)
      // and still delivers what was already sent to us.
      await subscription?.drain().catch((err: unknown) => logger.warn({ err }, "subscription drain failed"));
      updates?.unsubscribe();
      await Promise.all(inFlight);
      await batcher.drain();
      logger.info({ handled }, "worker stopped");
    },
    ready: () => !stopping && subscription !== undefined && !subscription.isClosed() && !nats.isClosed(),
    get stats() {
      return { handled, ...batcher.stats };
    },
  };
};

const safeJson = (data: Uint8Array): unknown => {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
};
