import type { NatsConnection, Subscription } from "nats";
import {
  FEEDBACK_UPDATED_SUBJECT,
  FeedbackUpdated,
  inferenceQueue,
  inferenceSubject,
  REQUEST_ID_HEADER,
} from "@sift/contracts";
import { exampleRescorer } from "@sift/learning";
import type { Features } from "@sift/model";
import { Counter, Histogram, type Context, type Logger, type Registry, type Tracing } from "@sift/runtime";
import type { Scorer } from "./clients/scorer.ts";
import type { WorkspaceStates } from "./clients/workspace-states.ts";
import { MicroBatcher } from "./domain/batcher.ts";
import { createRowIndex, handleInference } from "./handlers/inference.ts";
import type { LanguageIdentifier } from "@sift/model/language";
import { tracedProcess, tracedRun, type ProcessMessage, type RunBatch } from "./tracing.ts";

export interface WorkerDeps {
  nats: NatsConnection;
  /** One per model served, each on its own subject (names must differ). */
  scorers: readonly Scorer[];
  logger: Logger;
  config: { batchWindowMs: number; batchMaxItems: number };
  /** Workspaces' learned state; absent, every request gets the base model's score. */
  states?: WorkspaceStates;
  /** Identifies a message's language against its site's (`unexpected_language`); absent: off. */
  languageIdentifier?: LanguageIdentifier;
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
  /** The models it serves, each on its own subject. */
  readonly models: readonly string[];
  /** The version of `model` in service here. */
  version(model: string): string | undefined;
  /**
   * Puts `scorer` in service for its model (issue 53): later requests go to it; `retired`
   * resolves once the previous version answered everything it took (then it may be closed).
   */
  switchTo(scorer: Scorer): { retired: Promise<void>; previous: Scorer };
  /** Subscribed (for `model`, else for every model it serves), connected and not stopping. */
  ready(model?: string): boolean;
  readonly stats: { handled: number; batches: number; items: number };
}

/**
 * One version of a model in service: its scorer and its batcher (a batch never mixes models or
 * versions), and how many requests it still holds. A request is scored by the version that was
 * current when it arrived, from featurising to the reply's `version` (issue 53).
 */
interface Generation {
  scorer: Scorer;
  batcher: MicroBatcher<Features, number, Context>;
  process: ProcessMessage;
  holding: number;
  /** Resolves once it holds nothing and its batcher is empty (after it was replaced). */
  retired?: Promise<void>;
  settle?: () => void;
}

/** One model served: the version in service, and its subscription. */
interface Served {
  current: Generation;
  subscription?: Subscription;
}

/**
 * The model worker's app: for each model it serves, a subscriber in that model's queue group on
 * that model's subject (so each request reaches one worker that loaded the model) that hands each
 * message to its handler, with a micro-batcher in front of the model's scorer; and, with learned
 * state, a plain subscriber (every worker hears it) on the learner's announcements. Tracing wraps
 * the handler and the batch run from outside (tracing.ts). The NATS connection belongs to the
 * caller, who drains it after stop(). `switchTo` puts another version of a model in service
 * without a restart: requests that arrive after it go to the new one, those already taken finish
 * on the old, and the old one's returned promise resolves when it holds nothing more.
 */
export const createInferenceWorker = (deps: WorkerDeps): InferenceWorker => {
  const { nats, logger, tracing } = deps;
  const metrics = workerMetrics(deps.metrics);
  const inFlight = new Set<Promise<void>>();
  let updates: Subscription | undefined;
  let stopping = false;
  let handled = 0;

  const generation = (scorer: Scorer): Generation => {
    const run: RunBatch = async (features) => {
      metrics.batchSize.observe(features.length);
      const end = metrics.inference.startTimer();
      try {
        return await scorer.score(features);
      } finally {
        end();
      }
    };
    const batcher = new MicroBatcher<Features, number, Context>({
      windowMs: deps.config.batchWindowMs,
      maxItems: deps.config.batchMaxItems,
      run: tracing ? tracedRun(tracing, scorer.model, run) : run,
    });
    const handlerDeps = {
      score: (features: Features[], trace?: Context) => batcher.submit(features, trace),
      scoreSingles: (ids: Int32Array, vals: Float32Array) => scorer.scoreSingles(ids, vals),
      rows: createRowIndex(),
      ...(scorer.parts ? { parts: scorer.parts } : {}),
      model: scorer.model,
      version: scorer.version,
      strictness: scorer.strictness,
      population: scorer.population,
      logger,
      ...(deps.states ? { states: deps.states } : {}),
      ...(deps.languageIdentifier ? { languageIdentifier: deps.languageIdentifier } : {}),
      rescorer: scorer.weights ? exampleRescorer(scorer.version, scorer.weights) : null,
      tracing,
    };
    const process: ProcessMessage = async (msg, trace) => {
      const requestIds = msg.headers?.values(REQUEST_ID_HEADER) ?? [];
      const reply = await handleInference(msg.data, handlerDeps, requestIds, trace);
      handled++;
      metrics.requests.inc({ outcome: reply.ok ? "ok" : reply.error });
      msg.respond(JSON.stringify(reply));
      return reply;
    };
    return { scorer, batcher, process: tracing ? tracedProcess(tracing, process) : process, holding: 0 };
  };
  const served = deps.scorers.map((scorer): Served => ({ current: generation(scorer) }));
  const settleIfDone = (g: Generation) => {
    if (g.settle && g.holding === 0) void g.batcher.drain().then(g.settle);
  };

  return {
    start() {
      for (const model of served) {
        const name = model.current.scorer.model;
        const subject = inferenceSubject(name);
        const queue = inferenceQueue(name);
        model.subscription = nats.subscribe(subject, {
          queue,
          callback: (err, msg) => {
            if (err) return logger.warn({ err, subject }, "subscription error");
            const g = model.current;
            g.holding++;
            const task = g.process(msg).then(() => undefined);
            inFlight.add(task);
            void task.finally(() => {
              inFlight.delete(task);
              g.holding--;
              settleIfDone(g);
            });
          },
        });
        logger.info(
          { subject, queue, model: name, version: model.current.scorer.version },
          "worker subscribed",
        );
      }
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
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      // Drain unsubscribes first (no new work reaches this worker; NATS routes it to the others)
      // and still delivers what was already sent to us.
      await Promise.all(
        served.map((model) =>
          model.subscription
            ?.drain()
            .catch((err: unknown) =>
              logger.warn({ err, model: model.current.scorer.model }, "subscription drain failed"),
            ),
        ),
      );
      updates?.unsubscribe();
      await Promise.all(inFlight);
      await Promise.all(served.map((model) => model.current.batcher.drain()));
      logger.info({ handled }, "worker stopped");
    },
    models: served.map((model) => model.current.scorer.model),
    version: (name) => served.find((m) => m.current.scorer.model === name)?.current.scorer.version,
    switchTo(scorer) {
      const model = served.find((m) => m.current.scorer.model === scorer.model);
      if (!model) throw new Error(`this worker does not serve ${scorer.model}`);
      const old = model.current;
      if (old.scorer === scorer) return { retired: Promise.resolve(), previous: old.scorer };
      model.current = generation(scorer);
      old.retired = new Promise<void>((resolve) => (old.settle = resolve));
      settleIfDone(old);
      logger.info({ model: scorer.model, from: old.scorer.version, to: scorer.version }, "model switched");
      return { retired: old.retired, previous: old.scorer };
    },
    ready: (name) =>
      !stopping &&
      !nats.isClosed() &&
      served.every(
        (model) =>
          (name !== undefined && model.current.scorer.model !== name) ||
          (model.subscription !== undefined && !model.subscription.isClosed()),
      ),
    get stats() {
      const batches = served.reduce((sum, model) => sum + model.current.batcher.stats.batches, 0);
      const items = served.reduce((sum, model) => sum + model.current.batcher.stats.items, 0);
      return { handled, batches, items };
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
