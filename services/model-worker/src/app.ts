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
import type { Logger } from "@sift/runtime";
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
}

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
  const { nats, scorer, logger } = deps;
  const batcher = new MicroBatcher<Features, number>({
    windowMs: deps.config.batchWindowMs,
    maxItems: deps.config.batchMaxItems,
    run: (items) => scorer.score(items),
  });
  const inFlight = new Set<Promise<void>>();
  let subscription: Subscription | undefined;
  let updates: Subscription | undefined;
  let stopping = false;
  let handled = 0;
  const handlerDeps = {
    score: (items: Features[]) => batcher.submit(items),
    model: scorer.model,
    version: scorer.version,
    logger,
    ...(deps.states ? { states: deps.states } : {}),
  };

  const answer = (reply: InferenceReply, respond: (data: string) => boolean) => {
    handled++;
    respond(JSON.stringify(reply));
  };

  return {
    start() {
      subscription = nats.subscribe(INFERENCE_SUBJECT, {
        queue: INFERENCE_QUEUE,
        callback: (err, msg) => {
          if (err) return logger.warn({ err }, "subscription error");
          const requestId = msg.headers?.get(REQUEST_ID_HEADER) || undefined;
          const task = handleInference(msg.data, handlerDeps, requestId).then((reply) =>
            answer(reply, (data) => msg.respond(data)),
          );
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
