import express, { type ErrorRequestHandler, type Express, type RequestHandler } from "express";
import {
  MAX_BODY_BYTES,
  TEST_OK_SOLUTION,
  VerifyMessage,
  VERIFY_TOO_LARGE_TEXT,
  type Identity,
  type ResolvedKey,
  type VerifyResponse,
} from "@sift/contracts";
import {
  isJsonObject,
  ownField,
  parseBody,
  type Clock,
  type IdentitySigner,
  type Logger,
} from "@sift/runtime";

/** Checks a real solution for a resolved Challenge key; every expected failure is a value. */
export interface SolutionChecker {
  check(key: ResolvedKey, solution: string, requestId: string): Promise<VerifyResponse>;
}

export interface VerifyDeps {
  signer: IdentitySigner;
  clock: Clock;
  logger: Logger;
  solutions: SolutionChecker;
  /** The browser-facing challenge issuer, mounted at POST /challenge. */
  challenge?: RequestHandler;
}

const answer = (message: VerifyMessage, ok = false): VerifyResponse => ({ ok, message });

/**
 * DESIGN.md's verify order up to the key: Missing secret key → Missing solution → Test key →
 * Invalid secret key; the rest belongs to the solution checker. Every outcome is a 200.
 */
export const buildVerifyApp = (deps: VerifyDeps): Express => {
  const app = express();
  app.disable("x-powered-by");
  app.get("/healthz", (_req, res) => void res.json({ ok: true }));
  const body = express.raw({ type: () => true, limit: MAX_BODY_BYTES });

  app.post("/verify", body, async (req, res) => {
    const identity = deps.signer.verify(req.headers, "verify", deps.clock);
    if (!identity) return void res.status(401).json({ ok: false, message: "Unsigned request" });
    res.setHeader("X-Request-Id", identity.requestId);
    res.json(
      await decide(deps, identity.key, solutionOf(req.headers["content-type"], req.body), identity.requestId),
    );
  });

  if (deps.challenge) {
    const challenge = deps.challenge;
    app.post("/challenge", body, (req, res, next) => {
      const identity = deps.signer.verify(req.headers, "challenge", deps.clock);
      if (!identity) return void res.status(401).json({ ok: false, message: "Unsigned request" });
      res.setHeader("X-Request-Id", identity.requestId);
      challenge(req, res, next);
    });
  }

  app.use(errorHandler(deps.logger));
  return app;
};

const decide = async (
  deps: VerifyDeps,
  key: Identity["key"],
  solution: unknown,
  requestId: string,
): Promise<VerifyResponse> => {
  if (key.status === "missing") return answer(VerifyMessage.missingKey);
  if (solution === undefined || solution === null || solution === "")
    return answer(VerifyMessage.missingSolution);
  if (key.status === "test") return answer(VerifyMessage.testKey, solution === TEST_OK_SOLUTION);
  if (key.status === "invalid") return answer(VerifyMessage.invalidKey);
  if (typeof solution !== "string") return answer(VerifyMessage.invalidSolution);
  try {
    return await deps.solutions.check(key, solution, requestId);
  } catch (err) {
    deps.logger.error({ err, requestId }, "solution check failed");
    return answer(VerifyMessage.internal);
  }
};

const solutionOf = (contentType: string | undefined, raw: unknown): unknown => {
  const parsed = parseBody(contentType, Buffer.isBuffer(raw) ? raw : Buffer.alloc(0));
  if (parsed.kind === "form") return ownField(parsed.value, "solution");
  if (parsed.kind === "json" && isJsonObject(parsed.value)) return ownField(parsed.value, "solution");
  return undefined;
};

const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (err: { type?: string; status?: number }, req, res, _next) => {
    if (res.headersSent) return void res.destroy();
    if (err.type === "entity.too.large")
      return void res.status(413).type("text/plain").send(VERIFY_TOO_LARGE_TEXT);
    logger.error({ err, path: req.path }, "verify service error");
    res.status(200).json(answer(VerifyMessage.internal));
  };
