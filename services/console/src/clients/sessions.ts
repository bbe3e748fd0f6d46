import { createHash, randomBytes } from "node:crypto";
import { ConsoleStore, type ConsoleStoreDeps } from "./store.ts";

export interface SessionLifetimes {
  /** A session unused this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, used or not. */
  absoluteMs: number;
}

export interface Session {
  /** The SHA-256 of the cookie's token: the only form of it that is stored. */
  id: string;
  userId: string;
  /** The session's CSRF token, sent back in every form. */
  csrf: string;
  createdAt: number;
  lastSeenAt: number;
}

const digest = (token: string): string => createHash("sha256").update(token).digest("hex");

/**
 * Sessions in Redis under the hash of their token (the token itself lives only in the browser's
 * cookie): each ends when unused for `idleMs` (the key's expiry, pushed forward on use) or
 * `absoluteMs` after sign-in (checked on every read, and the expiry never set past it).
 */
export class SessionStore extends ConsoleStore {
  readonly #life: SessionLifetimes;

  constructor(deps: ConsoleStoreDeps & { lifetimes: SessionLifetimes }) {
    super(deps);
    this.#life = deps.lifetimes;
  }

  /** A new session for the user: the token goes into the cookie, never into Redis. */
  async start(userId: string): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString("base64url");
    const now = this.clock.now();
    const session: Session = {
      id: digest(token),
      userId,
      csrf: randomBytes(24).toString("base64url"),
      createdAt: now,
      lastSeenAt: now,
    };
    await this.redis.hset(this.keys.session(session.id), { ...session });
    await this.redis.pexpire(this.keys.session(session.id), this.#life.idleMs);
    await this.redis.sadd(this.keys.userSessions(userId), session.id);
    return { token, session };
  }

  /** The live session of a cookie's token (its idle time restarted), or null. */
  async resume(token: string): Promise<Session | null> {
    const id = digest(token);
    const row = await this.redis.hgetall(this.keys.session(id));
    if (!row["userId"] || !row["csrf"]) return null;
    const now = this.clock.now();
    const createdAt = Number(row["createdAt"]);
    const endsAt = createdAt + this.#life.absoluteMs;
    if (now >= endsAt || now - Number(row["lastSeenAt"]) >= this.#life.idleMs) {
      await this.end(id, row["userId"]);
      return null;
    }
    await this.redis.hset(this.keys.session(id), "lastSeenAt", now);
    await this.redis.pexpire(this.keys.session(id), Math.min(this.#life.idleMs, endsAt - now));
    return { id, userId: row["userId"], csrf: row["csrf"], createdAt, lastSeenAt: now };
  }

  async end(id: string, userId: string): Promise<void> {
    await this.redis.del(this.keys.session(id));
    await this.redis.srem(this.keys.userSessions(userId), id);
  }

  /** Ends every session of the user (sign-out everywhere). */
  async endAll(userId: string): Promise<void> {
    const ids = await this.redis.smembers(this.keys.userSessions(userId));
    await Promise.all(ids.map((id) => this.redis.del(this.keys.session(id))));
    await this.redis.del(this.keys.userSessions(userId));
  }
}
