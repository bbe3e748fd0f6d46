import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Result } from "ioredis";
import type { TokenScope } from "@sift/contracts";
import { GCRA_FUNCTION } from "./gcra.ts";
import { orderMember } from "./directory.ts";
import { RedisStore, type RedisStoreDeps } from "./redis-store.ts";
import { hashSecret } from "./secrets.ts";

/**
 * Management tokens (DESIGN, "management tokens"): `st_` and 32 random bytes, shown once and
 * stored only as SHA-256. A token's record lives under its hash (`mtok:<hash>`) so one script
 * reads it, takes a request from its rate limit and keeps its last use in one round trip; its
 * id points at the hash (`mtok-id:<id>`) for listing and revoking.
 *
 * The `st_` secrets live under their own Redis names, never `key:<hash>`, so a management token
 * resolves to nothing on /classify, /verify and the drop-in paths, and a classify or challenge
 * secret to nothing on /v1: not interchangeable in either direction, by construction.
 */
export interface TokenRecord {
  tokenId: string;
  name: string;
  scope: TokenScope;
  workspaceId?: string;
  readOnly: boolean;
  createdAt: number;
  expiresAt?: number;
  lastUsedAt?: number;
  revokedAt?: number;
}

export type TokenCheck =
  | { ok: true; token: TokenRecord; retryAfterMs: number }
  | { ok: false; reason: "unknown" | "revoked" | "expired" };

const TOKEN_FIELDS = [
  "tokenId",
  "name",
  "scope",
  "workspaceId",
  "readOnly",
  "createdAt",
  "expiresAt",
  "lastUsedAt",
  "revokedAt",
  "secretHash",
] as const;

/**
 * KEYS[1] the token's record; ARGV now, interval ms, burst. Reads the record; for a live token
 * takes a request (field `tat`) and, when taken, keeps `lastUsedAt`. Returns the fields and the
 * wait (0: taken), or nil for no record.
 */
const AUTHENTICATE = `${GCRA_FUNCTION}
local row = redis.call('HMGET', KEYS[1], ${TOKEN_FIELDS.map((f) => `'${f}'`).join(", ")}, 'tat')
if not row[1] then return nil end
local now = tonumber(ARGV[1])
local wait = 0
local live = (not row[9]) and ((not row[7]) or tonumber(row[7]) > now)
if live then
  local newTat
  wait, newTat = gcraStep(tonumber(row[11]), now, tonumber(ARGV[2]), tonumber(ARGV[3]))
  if newTat then redis.call('HSET', KEYS[1], 'tat', newTat, 'lastUsedAt', now) end
end
for i = 1, ${TOKEN_FIELDS.length} do row[i] = row[i] or '' end
row[11] = wait
return row
`;

/** A token's rate: 50 calls a second with bursts of 100 (a control panel's loop; /v1/batch carries 1,000 operations a call). */
export const TOKEN_RATE = { rate: 50, burst: 100 };

export class TokenStore extends RedisStore {
  constructor(deps: RedisStoreDeps) {
    super(deps, { siftTokenAuth: { keys: 1, lua: AUTHENTICATE } });
  }

  async create(input: {
    name: string;
    scope: TokenScope;
    workspaceId?: string;
    readOnly?: boolean;
    expiresAt?: number;
  }): Promise<{ record: TokenRecord; token: string }> {
    const token = `st_${randomBytes(32).toString("base64url")}`;
    const secretHash = hashSecret(token);
    const record: TokenRecord = {
      tokenId: `tok_${randomBytes(9).toString("base64url")}`,
      name: input.name,
      scope: input.scope,
      ...(input.workspaceId ? { workspaceId: input.workspaceId } : {}),
      readOnly: input.readOnly ?? false,
      createdAt: this.clock.now(),
      ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
    };
    await this.redis.hset(this.layout.token(secretHash), { ...toHash(record), secretHash });
    if (record.expiresAt) await this.redis.pexpireat(this.layout.token(secretHash), record.expiresAt);
    await this.redis.set(this.layout.tokenById(record.tokenId), secretHash);
    await this.redis.zadd(
      this.layout.tokens,
      0,
      orderMember({ id: record.tokenId, createdAt: record.createdAt }),
    );
    return { record, token };
  }

  /** One round trip: the token, whether it may call now (`retryAfterMs` 0), or why not. */
  async authenticate(token: string, rate = TOKEN_RATE): Promise<TokenCheck> {
    const secretHash = hashSecret(token);
    const now = this.clock.now();
    const row = await this.redis.siftTokenAuth(
      this.layout.token(secretHash),
      now,
      1000 / rate.rate,
      rate.burst,
    );
    if (!row) return { ok: false, reason: "unknown" };
    // The lookup was by hash already; the stored hash is compared again in constant time so a
    // record under a colliding name could never pass.
    const stored = Buffer.from(String(row[9]), "hex");
    const sent = Buffer.from(secretHash, "hex");
    if (stored.length !== sent.length || !timingSafeEqual(stored, sent))
      return { ok: false, reason: "unknown" };
    const record = fromRow(row.slice(0, 9).map(String));
    if (record.revokedAt) return { ok: false, reason: "revoked" };
    if (record.expiresAt !== undefined && record.expiresAt <= now) return { ok: false, reason: "expired" };
    return { ok: true, token: record, retryAfterMs: Number(row[10]) };
  }

  async get(tokenId: string): Promise<TokenRecord | null> {
    const secretHash = await this.redis.get(this.layout.tokenById(tokenId));
    if (!secretHash) return null;
    const row = await this.redis.hmget(this.layout.token(secretHash), ...TOKEN_FIELDS);
    // An expired token's record is gone (PEXPIREAT): listed as expired from its id alone.
    if (row[0] === null) return null;
    return fromRow(row.slice(0, 9).map((v) => v ?? ""));
  }

  /** A page of tokens in creation order, by a cursor that survives creates and revokes. */
  async page(limit: number, cursor: string | null): Promise<{ data: TokenRecord[]; next: string | null }> {
    const start = cursor === null ? "-" : Buffer.concat([Buffer.from("("), Buffer.from(cursor, "base64url")]);
    const members = await this.redis.zrangebylexBuffer(this.layout.tokens, start, "+", "LIMIT", 0, limit + 1);
    const ids = members.slice(0, limit).map((m) => m.toString().slice(m.toString().indexOf(":") + 1));
    const found = await Promise.all(ids.map((id) => this.get(id)));
    const last = members[limit - 1];
    return {
      data: found.filter((t): t is TokenRecord => t !== null),
      next: members.length > limit && last ? last.toString("base64url") : null,
    };
  }

  /** Revokes a token: refused from the return on. Returns it as it was, or null for no such token. */
  async revoke(tokenId: string): Promise<TokenRecord | null> {
    const secretHash = await this.redis.get(this.layout.tokenById(tokenId));
    if (!secretHash) return null;
    const current = await this.get(tokenId);
    if (!current) return null;
    await this.redis.hset(this.layout.token(secretHash), "revokedAt", this.clock.now());
    return current;
  }

  /** Forgets a token altogether (DELETE /v1/tokens/{id}): its record, its id and its place in the list. */
  async delete(tokenId: string): Promise<TokenRecord | null> {
    const current = await this.revoke(tokenId);
    if (!current) return null;
    const secretHash = await this.redis.get(this.layout.tokenById(tokenId));
    if (secretHash) await this.redis.del(this.layout.token(secretHash));
    await this.redis.del(this.layout.tokenById(tokenId));
    await this.redis.zrem(this.layout.tokens, orderMember({ id: tokenId, createdAt: current.createdAt }));
    return current;
  }
}

const toHash = (record: TokenRecord): Record<string, string> =>
  Object.fromEntries(
    Object.entries(record)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, typeof v === "boolean" ? (v ? "1" : "0") : String(v)]),
  );

const num = (v: string | undefined): number | undefined => (v ? Number(v) : undefined);

const fromRow = (row: string[]): TokenRecord => {
  const [tokenId, name, scope, workspaceId, readOnly, createdAt, expiresAt, lastUsedAt, revokedAt] = row;
  const expires = num(expiresAt);
  const used = num(lastUsedAt);
  const revoked = num(revokedAt);
  return {
    tokenId: tokenId ?? "",
    name: name ?? "",
    scope: scope === "workspace" ? "workspace" : "operator",
    ...(workspaceId ? { workspaceId } : {}),
    readOnly: readOnly === "1",
    createdAt: Number(createdAt),
    ...(expires === undefined ? {} : { expiresAt: expires }),
    ...(used === undefined ? {} : { lastUsedAt: used }),
    ...(revoked === undefined ? {} : { revokedAt: revoked }),
  };
};

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftTokenAuth(
      key: string,
      now: number,
      intervalMs: number,
      burst: number,
    ): Result<Array<string | number> | null, Context>;
  }
}
