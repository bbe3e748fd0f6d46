import { SiftError } from "./errors.js";
import { SPEC_OUTAGE_POLICY, type OutagePolicy } from "./policy.js";
import { DEFAULT_RETRY, parseRetryAfter, retryDelayMs, sleep, type RetryOptions } from "./retry.js";
import { attempt, isRecord, type Attempt } from "./transport.js";
import {
  errorBodyOf,
  exhausted,
  isClassifyResponse,
  isInternalError,
  isVerifyResponse,
  RETRY,
  retryableStatus,
  throwRefusal,
  timeoutError,
  unexpected,
} from "./answers.js";
import {
  ClassifyMessage,
  VERIFY_TOO_LARGE_TEXT,
  VerifyMessage,
  type ClassifyResponse,
  type Content,
  type FeedbackResponse,
  type Label,
  type ModelName,
  type Reason,
  type VerifyResponse,
} from "./types.js";

export interface SiftClientOptions {
  /** Where Sift's gateway answers, e.g. `https://sift.example.com` (a trailing slash is fine). */
  baseUrl: string;
  /** The Classify secret key (needed by `classify()` and `feedback()`); `"test"` for test mode. */
  classifyKey?: string;
  /** The Challenge secret key (needed by `verify()`); `"test"` for test mode. */
  challengeKey?: string;
  /**
   * Time-out of each request, retries apart. The spec states none ("Callers set their own
   * time-out"); 5 s lets a loaded service answer while a visitor still waits for the form.
   */
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** What an outage means; default `SPEC_OUTAGE_POLICY`, the spec's advice. */
  policy?: OutagePolicy;
}

export interface CallOptions {
  /** Aborts the call (retries included); the abort reason is thrown as is. */
  signal?: AbortSignal;
}

/** A Classify verdict: from the service, or from the outage policy (spec 7.1, on 503). */
export type ClassifyOutcome =
  /** `reasons` only when asked for with `explain` (Sift's `?explain=1`). */
  | (ClassifyResponse & { decidedBy: "service"; reasons?: Reason[] })
  | {
      decidedBy: "policy";
      label: "clean";
      cause: "unavailable";
      /** The service's message: `Classification is temporarily unavailable`. */
      message: string;
      attempts: number;
    };

/** Whether to accept a submission, and who decided. */
export type VerifyOutcome =
  /** The service's answer (spec 2.5): `accepted` is `response.ok`. */
  | { decidedBy: "service"; accepted: boolean; response: VerifyResponse }
  /** The outage policy (spec 7.2) decided; `accepted` follows `OutagePolicy.verify`. */
  | {
      decidedBy: "policy";
      accepted: boolean;
      cause: "network-failure" | "timeout" | "internal-error";
      /** The answer, for `internal-error`; the fetch error, for `network-failure`. */
      response?: VerifyResponse;
      error?: unknown;
      attempts: number;
    }
  /** No solution to send (`_vendor` absent or empty): never accepted, and no request made. */
  | { decidedBy: "client"; accepted: false; cause: "missing-solution" };

/** Sift's HTTP API with the spec's retry and outage advice applied. */
export class SiftClient {
  readonly policy: OutagePolicy;
  readonly #baseUrl: string;
  readonly #classifyKey: string | undefined;
  readonly #challengeKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #retry: RetryOptions;

  constructor(options: SiftClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#classifyKey = options.classifyKey;
    this.#challengeKey = options.challengeKey;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.policy = options.policy ?? SPEC_OUTAGE_POLICY;
  }

  /**
   * `POST /classify`. Retries 429 (after its `Retry-After`), 500, 503 and network failures; a
   * 503 that outlasts them is `clean` by the policy. Anything else the service refuses (400,
   * 401, 403, 413, a 429 longer than `retry.maxDelayMs`) throws a `SiftError` whose message is
   * the spec's text.
   */
  async classify(
    content: Content,
    options: CallOptions & { model?: ModelName; explain?: boolean } = {},
  ): Promise<ClassifyOutcome> {
    const body = { content, model: options.model ?? "spam-standard" };
    const path = options.explain ? "/classify?explain=1" : "/classify";
    return this.#run<ClassifyOutcome>(path, this.#key("classifyKey"), body, options.signal, {
      interpret: (a, attempts) => {
        if (a.kind === "timeout") throw timeoutError(this.#timeoutMs, attempts);
        if (a.kind === "network") return RETRY;
        if (a.status === 200) {
          if (!isClassifyResponse(a.json)) throw unexpected(a, attempts);
          const { label, score, model } = a.json;
          const reasons = options.explain ? reasonsOf(a.json) : undefined;
          return { done: { decidedBy: "service", label, score, model, ...(reasons ? { reasons } : {}) } };
        }
        return retryableStatus(a.status) ? RETRY : throwRefusal(a, attempts);
      },
      giveUp: (a, attempts) => {
        if (a.kind === "answer" && a.status === 503 && this.policy.classify.cleanOnUnavailable) {
          const message = errorBodyOf(a)?.message ?? ClassifyMessage.unavailable;
          return { decidedBy: "policy", label: "clean", cause: "unavailable", message, attempts };
        }
        throw exhausted(a, attempts);
      },
    });
  }

  /**
   * `POST /verify` with the form's `_vendor` value. Never accepts a missing or empty solution.
   * Retries 429, 500, 503 and the answer `Internal server error`; a network failure or time-out
   * is not retried (the policy already decides it, and a second try after a request that did
   * reach the service could only find the solution spent). Throws a `SiftError` for answers
   * the spec does not describe, for 413, and for a 429, 500 or 503 that outlasts the retries.
   * `Spent challenge` on a retry after `Internal server error` is decided as that error was: the
   * service may spend a solution before answering it (when it could not read the key), so the
   * retry finds its own spend, and the first answer was already one the spec says to accept.
   */
  async verify(solution: unknown, options: CallOptions = {}): Promise<VerifyOutcome> {
    // Spec 7.2: "Never accept a submission just because its `_vendor` field is missing."
    // Checked before any request, so no outage can turn it into an acceptance.
    if (typeof solution !== "string" || solution === "") {
      return { decidedBy: "client", accepted: false, cause: "missing-solution" };
    }
    const accept = this.policy.verify;
    let internal: VerifyResponse | undefined;
    return this.#run<VerifyOutcome>("/verify", this.#key("challengeKey"), { solution }, options.signal, {
      interpret: (a, attempts) => {
        if (a.kind === "timeout") {
          return {
            done: { decidedBy: "policy", accepted: accept.acceptOnTimeout, cause: "timeout", attempts },
          };
        }
        if (a.kind === "network") {
          const cause = "network-failure" as const;
          return {
            done: {
              decidedBy: "policy",
              accepted: accept.acceptOnNetworkFailure,
              cause,
              error: a.error,
              attempts,
            },
          };
        }
        if (a.status === 200) {
          if (!isVerifyResponse(a.json)) throw unexpected(a, attempts);
          if (isInternalError(a.json)) {
            internal = a.json;
            return RETRY;
          }
          if (internal && a.json.message === VerifyMessage.spent) {
            const response = internal;
            return {
              done: {
                decidedBy: "policy",
                accepted: accept.acceptOnInternalError,
                cause: "internal-error",
                response,
                attempts,
              },
            };
          }
          return { done: { decidedBy: "service", accepted: a.json.ok, response: a.json } };
        }
        if (a.status === 413) throw new SiftError("http", VERIFY_TOO_LARGE_TEXT, { status: 413, attempts });
        return retryableStatus(a.status) ? RETRY : throwRefusal(a, attempts);
      },
      giveUp: (a, attempts) => {
        if (a.kind === "answer" && a.status === 200 && isVerifyResponse(a.json)) {
          const response = a.json;
          return {
            decidedBy: "policy",
            accepted: accept.acceptOnInternalError,
            cause: "internal-error",
            response,
            attempts,
          };
        }
        throw exhausted(a, attempts);
      },
    });
  }

  /**
   * `POST /feedback` (Sift's DESIGN.md; not in the spec, and not served by releases before the
   * one that adds it, which answer 404: a `SiftError`). Reports that `content` should have been
   * `label`. Retries as `classify()` does; no outage policy (nothing is lost by a failed report).
   */
  async feedback(content: Content, label: Label, options: CallOptions = {}): Promise<FeedbackResponse> {
    return this.#run<FeedbackResponse>(
      "/feedback",
      this.#key("classifyKey"),
      { content, label },
      options.signal,
      {
        interpret: (a, attempts) => {
          if (a.kind === "timeout") throw timeoutError(this.#timeoutMs, attempts);
          if (a.kind === "network") return RETRY;
          if (a.status === 200) {
            if (!isRecord(a.json) || a.json["ok"] !== true) throw unexpected(a, attempts);
            return { done: { ok: true } };
          }
          return retryableStatus(a.status) ? RETRY : throwRefusal(a, attempts);
        },
        giveUp: (a, attempts) => {
          throw exhausted(a, attempts);
        },
      },
    );
  }

  #key(name: "classifyKey" | "challengeKey"): string {
    const key = name === "classifyKey" ? this.#classifyKey : this.#challengeKey;
    if (!key) throw new TypeError(`SiftClient: this call needs the ${name} option`);
    return key;
  }

  /** Attempts until `interpret` returns a result or throws, or the retries run out (`giveUp`). */
  async #run<T>(
    path: string,
    secretKey: string,
    body: unknown,
    signal: AbortSignal | undefined,
    steps: {
      interpret: (a: Attempt, attempts: number) => { done: T } | typeof RETRY;
      giveUp: (last: Attempt, attempts: number) => T;
    },
  ): Promise<T> {
    const url = `${this.#baseUrl}${path}`;
    for (let attempts = 1; ; attempts++) {
      const a = await attempt({ url, secretKey, body, timeoutMs: this.#timeoutMs, signal });
      const step = steps.interpret(a, attempts);
      if (step !== RETRY) return step.done;
      const retryAfter = a.kind === "answer" ? parseRetryAfter(a.headers.get("retry-after")) : undefined;
      const wait = retryDelayMs(attempts - 1, this.#retry, retryAfter);
      if (wait === undefined) return steps.giveUp(a, attempts);
      await sleep(wait, signal);
    }
  }
}

/** The `reasons` of an explained answer, each checked for the fields the type promises. */
const reasonsOf = (json: unknown): Reason[] | undefined => {
  const reasons = isRecord(json) ? json["reasons"] : undefined;
  if (!Array.isArray(reasons)) return undefined;
  return reasons.filter(
    (r): r is Reason => isRecord(r) && typeof r["signal"] === "string" && typeof r["weight"] === "number",
  );
};
