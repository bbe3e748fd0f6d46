export interface RetryOptions {
  /** Retries after the first attempt. */
  readonly retries: number;
  /** The first backoff; each retry doubles it. */
  readonly baseDelayMs: number;
  /**
   * The longest single wait. A 429 whose `Retry-After` asks for more is not retried: the call
   * fails at once with `retryAfterSeconds`, since a form handler cannot hold a visitor that long
   * (a paused Free workspace's `Retry-After` runs to days).
   */
  readonly maxDelayMs: number;
}

/**
 * Two retries, 250 ms then 500 ms (each plus up to as much again in jitter), at most 5 s per
 * wait: a request that a visitor is waiting on gives up within a few seconds, and a rate-limit
 * answer (whose `Retry-After` is about one second) is still honoured.
 */
export const DEFAULT_RETRY: RetryOptions = Object.freeze({ retries: 2, baseDelayMs: 250, maxDelayMs: 5_000 });

/**
 * How long to wait before retry number `retry` (0 for the first), or `undefined` for "do not
 * retry". Exponential backoff with jitter (half fixed, half random, so waits never collapse to
 * zero and clients that failed together spread out). With a `Retry-After`, never earlier than
 * it asks, plus the same jitter.
 */
export const retryDelayMs = (
  retry: number,
  options: RetryOptions,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined => {
  if (retry >= options.retries) return undefined;
  if (retryAfterMs !== undefined && retryAfterMs > options.maxDelayMs) return undefined;
  const backoff = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  const jittered = backoff / 2 + (random() * backoff) / 2;
  if (retryAfterMs === undefined) return Math.round(jittered);
  return Math.round(Math.min(options.maxDelayMs, retryAfterMs + jittered / 2));
};

/**
 * `Retry-After` in milliseconds: delta-seconds (what Sift sends) or an HTTP date (RFC 9110
 * 10.2.3); `undefined` when absent or unreadable.
 */
export const parseRetryAfter = (value: string | null, now: number = Date.now()): number | undefined => {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date names its day and month; Date.parse alone would also read "-1" as a year.
  if (!/^[A-Za-z]{3}, /.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
