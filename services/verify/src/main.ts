import {
  closeServer,
  createLogger,
  createRedis,
  IdentitySigner,
  serveHttp,
  onShutdown,
  systemClock,
} from "@sift/runtime";
import { challengeKeyRing } from "@sift/challenge/server";
import { loadConfig } from "./config.ts";
import { createVerifyApp } from "./wiring.ts";

const config = loadConfig(process.env);
const logger = createLogger("verify", config.logLevel);
const redis = createRedis(
  { url: config.redisUrl, clusterNodes: config.redisClusterNodes },
  "sift-verify",
  logger,
);

const app = createVerifyApp({
  redis,
  clock: systemClock,
  logger,
  signer: new IdentitySigner(config.internalSecret),
  challengeKeys: challengeKeyRing(config.challengeKeys, config.internalSecret),
});

const { server, port } = await serveHttp(app, config.port, config.host);
logger.info({ port }, "verify listening");

onShutdown(logger, [
  ["http", () => closeServer(server)],
  ["redis", () => redis.quit()],
]);
