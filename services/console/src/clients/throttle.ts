import type { Result } from "ioredis";
import { GCRA } from "@sift/keystore";
import { ConsoleStore, type ConsoleStoreDeps } from "./store.ts";

export interface ThrottleRate {
  /** Attempts per minute, sustained. */
  perMinute: number;
  /** Attempts allowed at once. */
  burst: number;
}

/**
 * Sign-in attempts, limited per client address and per account with the key store's GCRA
 * script (the same one behind the gateway's per-address limits). An attempt takes from both
 * buckets; the wait is the longer one's.
 */
export class SignInThrottle extends ConsoleStore {
  readonly #rates: { address: ThrottleRate; account: ThrottleRate };

  constructor(deps: ConsoleStoreDeps & { rates: { address: ThrottleRate; account: ThrottleRate } }) {
    super(deps);
    this.#rates = deps.rates;
    this.redis.defineCommand("siftConsoleGcra", { numberOfKeys: 1, lua: GCRA });
  }

  /** 0 when the attempt may go ahead, else the ms to wait. */
  async take(address: string, email: string): Promise<number> {
    const now = this.clock.now();
    const take = (key: string, rate: ThrottleRate) =>
      this.redis.siftConsoleGcra(this.keys.throttle(key), now, 60_000 / rate.perMinute, rate.burst);
    const waits = await Promise.all([
      take(`addr:${address}`, this.#rates.address),
      take(`acct:${email}`, this.#rates.account),
    ]);
    return Math.max(...waits.map(Number));
  }
}

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftConsoleGcra(
      key: string,
      now: number,
      intervalMs: number,
      burst: number,
    ): Result<number | string, Context>;
  }
}
