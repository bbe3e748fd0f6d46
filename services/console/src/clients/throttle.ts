import type { RateLimiter } from "@sift/keystore";

export interface ThrottleRate {
  /** Attempts per minute, sustained. */
  perMinute: number;
  /** Attempts allowed at once. */
  burst: number;
}

/**
 * Sign-in attempts, limited per client address and per account by the keystore's rate limiter
 * (the GCRA behind the gateway's per-address limits). An attempt takes from both buckets; the
 * wait is the longer one's.
 */
export class SignInThrottle {
  readonly #limiter: RateLimiter;
  readonly #rates: { address: ThrottleRate; account: ThrottleRate };

  constructor(deps: { limiter: RateLimiter; rates: { address: ThrottleRate; account: ThrottleRate } }) {
    this.#limiter = deps.limiter;
    this.#rates = deps.rates;
  }

  /** 0 when the attempt may go ahead, else the ms to wait. */
  async take(address: string, email: string): Promise<number> {
    const take = async (key: string, { perMinute, burst }: ThrottleRate) => {
      const decision = await this.#limiter.take(key, perMinute / 60, burst);
      return decision.allowed ? 0 : decision.retryAfterMs;
    };
    const waits = await Promise.all([
      take(`console:addr:${address}`, this.#rates.address),
      take(`console:acct:${email}`, this.#rates.account),
    ]);
    return Math.max(...waits);
  }
}
