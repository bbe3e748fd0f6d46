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

/** Where a session was started from, for the user's list of their sessions. */
export interface SessionOrigin {
  /** The browser's User-Agent header (cut to USER_AGENT_MAX characters). */
  userAgent?: string;
  /** The client address the gateway saw. */
  address?: string;
}

/** A session as its user's list shows it. */
export interface SessionSummary extends SessionOrigin {
  /** A public handle for the revoke button (not the token's hash, which names the Redis key). */
  ref: string;
  id: string;
  createdAt: number;
  lastSeenAt: number;
}

/** Enough of a User-Agent to name browser and system; longer ones are cut. */
const USER_AGENT_MAX = 300;

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
  async start(userId: string, origin: SessionOrigin = {}): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString("base64url");
    const now = this.clock.now();
    const session: Session = {
      id: digest(token),
      userId,
      csrf: randomBytes(24).toString("base64url"),
      createdAt: now,
      lastSeenAt: now,
    };
    await this.redis.hset(this.keys.session(session.id), {
      ...session,
      ref: randomBytes(9).toString("base64url"),
      userAgent: (origin.userAgent ?? "").slice(0, USER_AGENT_MAX),
      address: origin.address ?? "",
    });
    await this.redis.pexpire(this.keys.session(session.id), this.#life.idleMs);
    // The user's index of sessions: no session in it outlives its absolute lifetime, so neither
    // does the index past the newest one's; entries whose session ended idle are dropped as the
    // index is read (list).
    const index = this.keys.userSessions(userId);
    await this.redis.sadd(index, session.id);
    await this.redis.pexpire(index, this.#life.absoluteMs);
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

  /** The user's live sessions, most recently used first; ended ones leave the index on the way. */
  async list(userId: string): Promise<SessionSummary[]> {
    const index = this.keys.userSessions(userId);
    const ids = await this.redis.smembers(index);
    const now = this.clock.now();
    const live: SessionSummary[] = [];
    for (const id of ids) {
      const row = await this.redis.hgetall(this.keys.session(id));
      const createdAt = Number(row["createdAt"]);
      const lastSeenAt = Number(row["lastSeenAt"]);
      const ended =
        row["userId"] !== userId ||
        now >= createdAt + this.#life.absoluteMs ||
        now - lastSeenAt >= this.#life.idleMs;
      if (ended) {
        await this.end(id, userId);
        continue;
      }
      live.push({
        ref: row["ref"] || id.slice(0, 16),
        id,
        createdAt,
        lastSeenAt,
        ...(row["userAgent"] ? { userAgent: row["userAgent"] } : {}),
        ...(row["address"] ? { address: row["address"] } : {}),
      });
    }
    return live.sort((a, b) => b.lastSeenAt - a.lastSeenAt);
  }

  /** Ends the user's session whose handle is `ref`; null when they have none by it. */
  async revoke(userId: string, ref: string): Promise<SessionSummary | null> {
    const found = (await this.list(userId)).find((s) => s.ref === ref);
    if (!found) return null;
    await this.end(found.id, userId);
    return found;
  }
}
