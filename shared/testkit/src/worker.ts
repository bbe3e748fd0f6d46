import type { NatsConnection } from "nats";
import { SPAM_STANDARD, type ModelName } from "@sift/contracts";
import type { InferenceWorker } from "@sift/model-worker";
import { createModelWorker } from "@sift/model-worker/wiring";
import {
  connectNats,
  createRedis,
  redisReady,
  createRegistry,
  silentLogger,
  startTracing,
  type Registry,
} from "@sift/runtime";
import { startServer, type TestServer } from "./servers.ts";
import { startStack, type Stack, type StackOptions } from "./stack.ts";

export interface RunningModelWorker {
  worker: InferenceWorker;
  nats: NatsConnection;
  /** Its metrics registry, as main.ts serves it on the probe port. */
  metrics: Registry;
  /** Exports every finished span now (no-op without `otlpEndpoint`). */
  flushTraces(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A model worker as its main.ts wires it (real onnxruntime, the committed model, real NATS),
 * on a connection of its own; its probe port is not served. With `otlpEndpoint` it traces to
 * that collector with a tracer provider of its own.
 */
export const startModelWorker = async (
  natsUrl: string,
  config: { batchWindowMs: number; batchMaxItems: number } = { batchWindowMs: 1, batchMaxItems: 64 },
  options: {
    redisUrl?: string;
    redisClusterNodes?: string;
    modelPath?: string;
    otlpEndpoint?: string;
    /** The models it serves (default the shipped one) and files in place of committed ones. */
    models?: readonly ModelName[];
    artifacts?: Readonly<Record<string, string>>;
    /** Attach to natsUrl's first node rather than a random one (connectNats's `inOrder`). */
    natsInOrder?: boolean;
    /** How often it reads the version in service (issue 53; default 1 s). */
    modelPollMs?: number;
  } = {},
): Promise<RunningModelWorker> => {
  const nats = await connectNats(natsUrl, "sift-test-worker", { inOrder: options.natsInOrder ?? false });
  // With a Redis, the worker scores with workspaces' learned state, as main.ts wires it.
  const redis =
    options.redisUrl || options.redisClusterNodes
      ? createRedis(
          { url: options.redisUrl ?? "", clusterNodes: options.redisClusterNodes },
          "sift-test-worker",
        )
      : undefined;
  const metrics = createRegistry("model-worker");
  const tracing = await startTracing({ service: "model-worker", endpoint: options.otlpEndpoint });
  const { worker, scorers, serving } = await createModelWorker({
    nats,
    ...(redis ? { redis } : {}),
    logger: silentLogger(),
    config: {
      ...config,
      models: [...(options.models ?? [SPAM_STANDARD])],
      intraOpThreads: 1,
      modelPath: options.modelPath,
      ...(options.modelPollMs ? { modelPollMs: options.modelPollMs } : {}),
    },
    ...(options.artifacts ? { artifacts: options.artifacts } : {}),
    metrics,
    tracing,
  });
  // Connected to its state Redis before it takes requests, so a test's first request does not
  // race the connection (it would get the base model's score, the fallback for a Redis it cannot
  // reach); a Redis that is down does not hold the worker up beyond a few seconds.
  if (redis) await redisReady(redis).catch(() => undefined);
  await serving.start();
  worker.start();
  // A round trip proves the subscription reached the server before anyone publishes.
  await nats.flush();
  return {
    worker,
    nats,
    metrics,
    flushTraces: async () => void (await tracing?.forceFlush()),
    stop: async () => {
      await worker.stop();
      await serving.stop();
      await nats.drain();
      await Promise.all(scorers.map((s) => s.close()));
      redis?.disconnect();
      await tracing?.shutdown();
    },
  };
};

export interface ScoringStack {
  stack: Stack;
  worker: RunningModelWorker;
  /** The NATS of its own that the stack and the worker share. */
  nats: TestServer;
  stop(): Promise<void>;
}

/**
 * A stack whose classify calls are answered by a model worker of its own, on a NATS of its own
 * (so no other file's worker answers its calls, and it answers none of theirs), the worker
 * scoring with the workspaces' learned state from the stack's Redis, as main.ts wires it.
 */
export const startScoringStack = async (
  options: Omit<StackOptions, "natsUrl" | "redisClusterNodes">,
): Promise<ScoringStack> => {
  const nats = await startServer("nats");
  const stack = await startStack({ ...options, natsUrl: nats.url });
  const worker = await startModelWorker(nats.url, undefined, { redisUrl: options.redisUrl });
  return {
    stack,
    worker,
    nats,
    async stop() {
      await worker.stop();
      await stack.stop();
      await nats.stop();
    },
  };
};
