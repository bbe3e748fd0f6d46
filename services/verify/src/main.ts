import { createServer } from "node:http";
import { VerifyMessage } from "@sift/contracts";
import {
  closeServer,
  createLogger,
  createRedis,
  IdentitySigner,
  listen,
  onShutdown,
  systemClock,
} from "@sift/runtime";
import { buildVerifyApp } from "./app.ts";
import { loadConfig } from "./config.ts";

const config = loadConfig(process.env);
const logger = createLogger("verify", config.logLevel);
const redis = createRedis(config.redisUrl, "sift-verify");
redis.on("error", (err) => logger.warn({ err: err.message }, "redis"));

const app = buildVerifyApp({
  signer: new IdentitySigner(config.internalSecret),
  clock: systemClock,
  logger,
  // Until challenge issuing is wired in, no challenge has ever been signed by this service.
  solutions: { check: async () => ({ ok: false, message: VerifyMessage.invalidSignature }) },
});

const server = createServer(app);
server.keepAliveTimeout = 65_000;
const port = await listen(server, config.port, config.host);
logger.info({ port }, "verify listening");

onShutdown(logger, [
  ["http", () => closeServer(server)],
  ["redis", () => redis.quit()],
]);
