import { hashSecret, keyChange, type Keystore, type ResolvedKeyRecord } from "@sift/keystore";
import type { Clock, Logger, RedisClient } from "@sift/runtime";

/** How the gateway looks a key up where no rate limit is taken with it (verify). */
export interface KeyResolver {
  resolve(secretKey: string): Promise<ResolvedKeyRecord | null>;
}

/** Keys held at once; past it the least recently resolved is dropped. */
const MAX_ENTRIES = 10_000;

/**
 * A short in-process cache of key resolutions, so a verify call costs the gateway no Redis round
 * trip. It is emptied entry by entry by the key store's announcements (Keystore: a rotated-away
 * secret, a changed workspace) on a Redis pub/sub connection of its own, and bypassed whole
 * while that connection is not subscribed (at start, and from the moment it drops until it is
 * subscribed again, the cache emptied), so no announcement can be missed. A lookup that was in
 * flight when any announcement arrived is not kept: it may have read the record just before the
 * change. Unknown keys are never kept (a flood of guesses cannot push real keys out), and no
 * entry outlives `ttlMs` whatever happens. Classify's lookup is not cached: its rate limit is
 * taken in the same Redis call and must stay exact across gateways.
 */
export class CachedKeyResolver implements KeyResolver {
  readonly #keystore: Keystore;
  readonly #subscriber: RedisClient;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #ttlMs: number;
  readonly #entries = new Map<string, { record: ResolvedKeyRecord; expiresAt: number }>();
  /** Bumped by every announcement and every loss of the subscription. */
  #generation = 0;
  #subscribed = false;

  constructor(deps: {
    keystore: Keystore;
    subscriber: RedisClient;
    clock: Clock;
    logger: Logger;
    ttlMs: number;
  }) {
    this.#keystore = deps.keystore;
    this.#subscriber = deps.subscriber;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#ttlMs = deps.ttlMs;
  }

  /** Subscribes (now if the connection is ready, else when it is), and again after each reconnect. */
  start(): void {
    const channel = this.#keystore.changesChannel;
    this.#subscriber.on("message", (from: string, message: string) => {
      if (from === channel) this.#invalidate(message);
    });
    const lost = () => this.#lose();
    for (const event of ["close", "end"]) this.#subscriber.on(event, lost);
    // The gateway's main client reports Redis trouble; this one only stops caching ("close").
    this.#subscriber.on("error", () => undefined);
    const subscribe = () => {
      const generation = this.#generation;
      this.#subscriber.subscribe(channel).then(
        () => {
          // Announcements missed while subscribing bumped the generation: stay off until the next ready.
          if (generation === this.#generation) this.#subscribed = true;
        },
        (err: unknown) => this.#logger.warn({ err: (err as Error).message }, "key cache not subscribed"),
      );
    };
    this.#subscriber.on("ready", subscribe);
    if (this.#subscriber.status === "ready") subscribe();
  }

  /**
   * Closes the subscriber at once: it holds nothing to flush, and a QUIT sent while Redis is
   * down or the connection is between retries could wait on a reply that never comes.
   */
  async stop(): Promise<void> {
    this.#lose();
    this.#subscriber.disconnect();
  }

  async resolve(secretKey: string): Promise<ResolvedKeyRecord | null> {
    const hash = hashSecret(secretKey);
    const now = this.#clock.now();
    const cached = this.#entries.get(hash);
    if (cached && this.#subscribed && cached.expiresAt > now) {
      // Most recently used last, so the first key is the one to drop.
      this.#entries.delete(hash);
      this.#entries.set(hash, cached);
      return cached.record;
    }
    const generation = this.#generation;
    const record = await this.#keystore.resolveHash(hash);
    if (record && this.#subscribed && generation === this.#generation && this.#ttlMs > 0) {
      this.#entries.delete(hash);
      // A secret in its rotation grace is cached no longer than the grace lasts.
      const expiresAt = Math.min(now + this.#ttlMs, record.validUntil ?? Infinity);
      this.#entries.set(hash, { record, expiresAt });
      if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    }
    return record;
  }

  /** `key:<hash>` drops that key; `ws:<id>` every key of the workspace; anything else, all. */
  #invalidate(message: string): void {
    this.#generation++;
    const workspace = message.startsWith(keyChange.workspace(""))
      ? message.slice(keyChange.workspace("").length)
      : null;
    if (message.startsWith(keyChange.key(""))) {
      this.#entries.delete(message.slice(keyChange.key("").length));
    } else if (workspace) {
      for (const [hash, entry] of this.#entries)
        if (entry.record.workspaceId === workspace) this.#entries.delete(hash);
    } else {
      this.#entries.clear();
    }
  }

  #lose(): void {
    this.#subscribed = false;
    this.#generation++;
    this.#entries.clear();
  }
}
