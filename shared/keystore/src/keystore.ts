import type { Redis, Result } from "ioredis";
import type { Clock } from "@sift/runtime";
import { hashSecret, newId, newSecretKey, newSiteKey } from "./secrets.ts";
import { RATE_LIMIT_PREFIX } from "./gcra.ts";
import { REROLL, RESOLVE, RESOLVE_AND_TAKE } from "./scripts.ts";
import {
  Configuration,
  DEFAULT_ALLOWANCE,
  DEFAULT_BURST,
  DEFAULT_RATE_LIMIT,
  Workspace,
  type KeyKind,
  type Plan,
  type ResolvedKeyRecord,
} from "./types.ts";

export interface WorkspaceInput {
  name: string;
  plan: Plan;
  allowance?: number;
}

export type WorkspaceChanges = Partial<
  Pick<Workspace, "plan" | "allowance" | "classify" | "rateLimit" | "burst">
>;

export type ConfigChanges = Partial<Pick<Configuration, "challengeTtlMs" | "difficulty" | "adaptive">>;

/**
 * Workspaces, configurations and secret keys in Redis. Secrets are returned once, at creation
 * or reroll, and stored only as SHA-256.
 */
export class KeyStore {
  readonly #redis: Redis;
  readonly #clock: Clock;
  readonly #prefix: string;

  constructor(deps: { redis: Redis; clock: Clock; prefix?: string }) {
    this.#redis = deps.redis;
    this.#clock = deps.clock;
    this.#prefix = deps.prefix ?? "sift:";
    this.#redis.defineCommand("siftResolveKey", { numberOfKeys: 1, lua: RESOLVE });
    this.#redis.defineCommand("siftResolveAndTake", { numberOfKeys: 1, lua: RESOLVE_AND_TAKE });
    this.#redis.defineCommand("siftRerollKey", { numberOfKeys: 2, lua: REROLL });
  }

  async createWorkspace(input: WorkspaceInput): Promise<Workspace> {
    const workspace: Workspace = {
      id: newId("ws"),
      name: input.name,
      plan: input.plan,
      allowance: input.allowance ?? DEFAULT_ALLOWANCE,
      classify: true,
      rateLimit: DEFAULT_RATE_LIMIT,
      burst: DEFAULT_BURST,
      createdAt: this.#clock.now(),
    };
    await this.#redis
      .multi()
      .hset(this.#key("ws", workspace.id), toHash(workspace))
      .sadd(`${this.#prefix}workspaces`, workspace.id)
      .exec();
    return workspace;
  }

  async getWorkspace(id: string): Promise<Workspace | null> {
    const hash = await this.#redis.hgetall(this.#key("ws", id));
    if (Object.keys(hash).length === 0) return null;
    return Workspace.parse({
      ...hash,
      allowance: Number(hash["allowance"]),
      classify: hash["classify"] === "1",
      rateLimit: Number(hash["rateLimit"]),
      burst: Number(hash["burst"]),
      createdAt: Number(hash["createdAt"]),
    });
  }

  async listWorkspaceIds(): Promise<string[]> {
    return this.#redis.smembers(`${this.#prefix}workspaces`);
  }

  /** Applies the changes; returns the updated workspace, or null when it does not exist. */
  async updateWorkspace(id: string, changes: WorkspaceChanges): Promise<Workspace | null> {
    const current = await this.getWorkspace(id);
    if (!current) return null;
    const next = Workspace.parse({ ...current, ...changes });
    await this.#redis.hset(this.#key("ws", id), toHash(next));
    return next;
  }

  async createConfig(
    workspaceId: string,
    kind: KeyKind,
  ): Promise<{ config: Configuration; secretKey: string } | null> {
    if (!(await this.getWorkspace(workspaceId))) return null;
    const secretKey = newSecretKey();
    const config: Configuration = {
      id: newId("cfg"),
      workspaceId,
      kind,
      keyId: newId("key"),
      ...(kind === "challenge" ? { siteKey: newSiteKey() } : {}),
      createdAt: this.#clock.now(),
    };
    const hash = hashSecret(secretKey);
    const tx = this.#redis
      .multi()
      .hset(this.#key("cfg", config.id), { ...toHash(config), secretHash: hash })
      .hset(this.#key("key", hash), { configId: config.id });
    if (config.siteKey) tx.set(this.#key("site", config.siteKey), config.id);
    await tx.exec();
    return { config, secretKey };
  }

  async getConfig(id: string): Promise<Configuration | null> {
    const hash = await this.#redis.hgetall(this.#key("cfg", id));
    if (Object.keys(hash).length === 0) return null;
    return Configuration.parse({
      ...hash,
      createdAt: Number(hash["createdAt"]),
      challengeTtlMs: optionalNumber(hash["challengeTtlMs"]),
      difficulty: optionalNumber(hash["difficulty"]),
      adaptive: hash["adaptive"] === undefined ? undefined : hash["adaptive"] === "1",
    });
  }

  async updateConfig(id: string, changes: ConfigChanges): Promise<Configuration | null> {
    const current = await this.getConfig(id);
    if (!current) return null;
    const next = Configuration.parse({ ...current, ...changes });
    await this.#redis.hset(this.#key("cfg", id), toHash(next));
    return next;
  }

  async configBySiteKey(siteKey: string): Promise<Configuration | null> {
    const id = await this.#redis.get(this.#key("site", siteKey));
    return id ? this.getConfig(id) : null;
  }

  /** A new secret for the configuration; the old one is refused from this moment on. */
  async reroll(configId: string): Promise<string | null> {
    const secretKey = newSecretKey();
    const hash = hashSecret(secretKey);
    const done = await this.#redis.siftRerollKey(
      this.#key("cfg", configId),
      this.#key("key", hash),
      this.#prefix,
      hash,
      newId("key"),
    );
    return done === 1 ? secretKey : null;
  }

  /** One round trip: the key's configuration and workspace, or null for an unknown key. */
  async resolve(secretKey: string): Promise<ResolvedKeyRecord | null> {
    const row = await this.#redis.siftResolveKey(this.#key("key", hashSecret(secretKey)), this.#prefix);
    return row ? toRecord(row) : null;
  }

  /**
   * One round trip for a classify call: resolve the key and, when it is an enabled classify
   * key, take a request from its rate limit (`retryAfterMs` 0 when taken, else the wait).
   */
  async resolveAndTake(
    secretKey: string,
  ): Promise<{ record: ResolvedKeyRecord; retryAfterMs: number } | null> {
    const row = await this.#redis.siftResolveAndTake(
      this.#key("key", hashSecret(secretKey)),
      this.#prefix,
      RATE_LIMIT_PREFIX,
      this.#clock.now(),
    );
    return row ? { record: toRecord(row), retryAfterMs: Number(row[9]) } : null;
  }

  #key(kind: "ws" | "cfg" | "key" | "site", id: string): string {
    return `${this.#prefix}${kind}:${id}`;
  }
}

const toRecord = ([
  configId,
  workspaceId,
  kind,
  keyId,
  plan,
  classify,
  rateLimit,
  burst,
  allowance,
]: readonly [...ResolveRow, ...unknown[]]): ResolvedKeyRecord => ({
  configId,
  workspaceId,
  kind: kind as KeyKind,
  keyId,
  plan: plan as Plan,
  classify: classify === "1",
  rateLimit: Number(rateLimit),
  burst: Number(burst),
  allowance: Number(allowance),
});

/** configId, workspaceId, kind, keyId, plan, classify, rateLimit, burst, allowance */
type ResolveRow = [string, string, string, string, string, string, string, string, string];

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftResolveKey(key: string, prefix: string): Result<ResolveRow | null, Context>;
    siftResolveAndTake(
      key: string,
      prefix: string,
      ratePrefix: string,
      now: number,
    ): Result<[...ResolveRow, number] | null, Context>;
    siftRerollKey(
      config: string,
      newKey: string,
      prefix: string,
      hash: string,
      keyId: string,
    ): Result<number, Context>;
  }
}

const toHash = (record: object): Record<string, string> => {
  const hash: Record<string, string> = {};
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined) continue;
    hash[name] = typeof value === "boolean" ? (value ? "1" : "0") : String(value);
  }
  return hash;
};

const optionalNumber = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Number(value);
