import type { Redis } from "ioredis";
import { VerifyMessage } from "@sift/contracts";
import type { Clock, IdentitySigner, Logger } from "@sift/runtime";
import { buildVerifyApp } from "./app.ts";

/** The verify app on real clients; main.ts and the test harness both build it here. */
export const createVerifyApp = (deps: {
  redis: Redis;
  clock: Clock;
  logger: Logger;
  signer: IdentitySigner;
}) =>
  buildVerifyApp({
    signer: deps.signer,
    clock: deps.clock,
    logger: deps.logger,
    // Until challenge issuing is wired in, no challenge has ever been signed by this service.
    solutions: { check: async () => ({ ok: false, message: VerifyMessage.invalidSignature }) },
  });
