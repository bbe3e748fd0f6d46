import { closeServer, connectNats, createLogger, listen, onShutdown } from "@sift/runtime";
import { createWorker } from "./app.ts";
import { loadOnnxScorer } from "./clients/scorer.ts";
import { loadConfig } from "./config.ts";
import { createHealthServer } from "./health.ts";

const config = loadConfig(process.env);
const logger = createLogger("model-worker", config.logLevel);

const scorer = await loadOnnxScorer({ modelPath: config.modelPath, intraOpThreads: config.intraOpThreads });
logger.info({ version: scorer.version }, "model loaded");
const nats = await connectNats(config.natsUrl, "sift-model-worker");
const worker = createWorker({ nats, scorer, logger, config });
worker.start();
const health = createHealthServer(() => worker.ready());
const port = await listen(health, config.httpPort, config.httpHost);
logger.info(
  { port, batchWindowMs: config.batchWindowMs, batchMaxItems: config.batchMaxItems },
  "model worker ready",
);

// Readiness turns 503 as soon as the worker stops; the health port closes last so probes can see it.
onShutdown(
  logger,
  [
    ["worker", () => worker.stop()],
    ["nats", () => nats.drain()],
    ["scorer", () => scorer.close()],
    ["http", () => closeServer(health)],
  ],
  config.shutdownDeadlineMs,
);
