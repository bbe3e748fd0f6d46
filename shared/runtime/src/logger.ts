import { pino, type Logger } from "pino";

export type { Logger };

/**
 * Secrets never reach a log line: every place a key can sit in a request is redacted, and
 * services log identities (key ids), never keys.
 */
const REDACT = [
  "req.headers.authorization",
  "req.headers['x-api-key']",
  "req.headers['x-sift-identity']",
  "req.headers['x-sift-signature']",
  "secretKey",
  "*.secretKey",
];

export const createLogger = (service: string, level = "info"): Logger =>
  pino({ name: service, level, redact: { paths: REDACT, censor: "[redacted]" } });

/** For tests and tools: a logger that writes nothing. */
export const silentLogger = (): Logger => pino({ level: "silent" });
