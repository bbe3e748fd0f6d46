import { randomUUID } from "node:crypto";
import type { Result } from "ioredis";
import { RedisStore, type RedisStoreDeps } from "./redis-store.ts";
import { hashFoldedSecret, hashSecret, newId, newSecretKey, newSiteKey } from "./secrets.ts";
import { workspaceLogFrom } from "@sift/contracts";
import {
  KEY_RECORD_FIELDS,
  REQUIRED_KEY_FIELDS,
  RESOLVE_AND_TAKE,
  SWAP_SECRET,
  SYNC_KEY,
  WORKSPACE_FIELDS,
} from "./scripts.ts";
import { directoryPage, reindex, type DirectoryFilter, type DirectoryPage } from "./directory.ts";
import {
  Configuration,
  DEFAULT_ALLOWANCE,
  DEFAULT_BURST,
  DEFAULT_RATE_LIMIT,
  Workspace,
  type KeyKind,
  type Labels,
  type Plan,
  type ResolvedKeyRecord,
} from "./types.ts";

export interface WorkspaceInput {
  name: string;
  plan: Plan;
  allowance?: number;
  externalId?: string;
  labels?: Labels;
}

/** A create or change that would give a second workspace an external id: the one that has it. */
export interface ExternalIdTaken {
  ok: false;
  existingId: string;
}

export type WorkspaceChanges = Partial<
  Pick<
    Workspace,
    | "plan"
    | "allowance"
    | "classify"
    | "rateLimit"
    | "burst"
    | "logPrivacy"
    | "network"
    | "logRetentionDays"
    | "logMaxEntries"
    | "name"
    | "labels"
  >
>;

export type ConfigChanges = Partial<
  Pick<Configuration, "challengeTtlMs" | "difficulty" | "adaptive" | "name" | "hostnames">
>;

/**
 * Workspaces, configurations and secret keys in Redis (one server or a cluster: layout.ts).
 * Secrets are returned once, at creation or rotate, and stored only as SHA-256.
 *
 * A key record copies what the gateway needs from its configuration and workspace, so the
 * gateway reads one key. The copy is kept in step by revision: every workspace update bumps
 * the workspace's `rev` in the same MULTI as its fields and then writes the new fields into the
 * key record of each of its configurations (SYNC_KEY, which only ever moves a record forward
 * and never recreates a deleted one); whoever writes a key record reads the workspace again
 * afterwards and syncs, so an update racing a key's creation or rotate is never lost.
 *
 * Whoever caches key records (the gateway: clients/key-cache.ts) hears every change on the
 * `keyChanges` channel: `key:<hash>` for each rotated-away secret once its record is deleted,
 * `ws:<id>` once a workspace update reached all its key records.
 */
export class Keystore extends RedisStore {
  constructor(deps: RedisStoreDeps) {
    super(deps, {
      siftResolveAndTake: { keys: 1, lua: RESOLVE_AND_TAKE },
      siftSyncKey: { keys: 1, lua: SYNC_KEY },
      siftSwapSecret: { keys: 2, lua: SWAP_SECRET },
      siftTakeClaim: { keys: 1, lua: TAKE_CLAIM },
    });
  }

  async createWorkspace(input: WorkspaceInput): Promise<Workspace> {
    const created = await this.createWorkspaceUnique(input);
    if (!created.ok) throw new Error(`external id taken by ${created.existingId}`);
    return created.workspace;
  }

  /**
   * A new workspace, or the id of the one that already has `externalId`: the external id is
   * claimed first (HSETNX), so of two creates racing with one id exactly one makes a workspace.
   */
  async createWorkspaceUnique(
    input: WorkspaceInput,
  ): Promise<{ ok: true; workspace: Workspace } | ExternalIdTaken> {
    const now = this.clock.now();
    const workspace: Workspace = {
      id: newId("ws"),
      name: input.name,
      plan: input.plan,
      allowance: input.allowance ?? DEFAULT_ALLOWANCE,
      classify: true,
      rateLimit: DEFAULT_RATE_LIMIT,
      burst: DEFAULT_BURST,
      createdAt: now,
      ...(input.externalId === undefined ? {} : { externalId: input.externalId }),
      ...(input.labels === undefined ? {} : { labels: input.labels }),
    };
    const record = { ...toHash(workspace), rev: 0 };
    if (input.externalId !== undefined) {
      // The record before the claim, so a claim always names a workspace that can be read: a
      // create that dies after claiming leaves a workspace the retry's 409 names and finishes
      // (#claimExternalId), never an id that blocks the external id for good. One that dies
      // before claiming leaves a record nothing lists.
      await this.redis.hset(this.layout.workspace(workspace.id), record);
      const taken = await this.#claimExternalId(input.externalId, workspace.id);
      if (taken) {
        await this.redis.del(this.layout.workspace(workspace.id));
        return { ok: false, existingId: taken };
      }
      await this.redis.sadd(this.layout.workspaces, workspace.id);
    } else {
      // Two slots, so two commands: indexed first, as the month-end check skips an id it cannot read.
      await this.redis.sadd(this.layout.workspaces, workspace.id);
      await this.redis.hset(this.layout.workspace(workspace.id), record);
    }
    // The directory's lists after the record, so a page never names a workspace not yet readable.
    await reindex(this.redis, this.layout, null, workspace);
    return { ok: true, workspace };
  }

  /** The workspace holding an external id, if any. */
  async workspaceIdByExternalId(externalId: string): Promise<string | null> {
    return this.redis.hget(this.layout.externalIds, externalId);
  }

  /** One page of workspace ids from the directory (directory.ts), never the whole deployment. */
  async pageWorkspaceIds(
    filter: DirectoryFilter,
    limit: number,
    cursor: string | null,
  ): Promise<DirectoryPage> {
    return directoryPage(this.redis, this.layout, filter, limit, cursor);
  }

  /**
   * Every workspace id, `count` at a time (SSCAN of the index set): the jobs' walk. An id can come
   * twice (SSCAN's guarantee is every member present throughout at least once), so a step must be
   * idempotent, as the month-end check and the retention are.
   */
  async *walkWorkspaceIds(count = 500): AsyncGenerator<string[]> {
    let cursor = "0";
    do {
      const [next, ids] = await this.redis.sscan(this.layout.workspaces, cursor, "COUNT", count);
      cursor = next;
      if (ids.length > 0) yield ids;
    } while (cursor !== "0");
  }

  /**
   * Puts every workspace in the directory's sorted sets (directory.ts), a page of the workspace
   * set at a time: for a deployment whose workspaces were made before the directory existed
   * (`sift workspace reindex`, once after upgrading). Adding a member already there changes
   * nothing, so it can run again. Returns the workspaces seen.
   */
  async reindexWorkspaces(): Promise<number> {
    let seen = 0;
    for await (const ids of this.walkWorkspaceIds()) {
      const found = await Promise.all(ids.map((id) => this.getWorkspace(id)));
      for (const workspace of found) {
        if (!workspace) continue;
        await reindex(this.redis, this.layout, null, workspace);
        seen++;
      }
    }
    return seen;
  }

  /**
   * The directory made for a deployment from before it (1.5), once, without a manual
   * `sift workspace reindex`: whichever process starts first with the marker missing takes a
   * lock (renewed each page) and reindexes page by page, then sets the marker; others skip. A
   * process that dies mid-way leaves the lock to expire and the next start does it again
   * (reindexing is idempotent). Returns what it did.
   */
  async upgradeDirectory(): Promise<{ reindexed: number } | { skipped: "done" | "another process" }> {
    if (await this.redis.exists(this.layout.directoryVersion)) return { skipped: "done" };
    const owner = randomUUID();
    const lockMs = 60_000;
    if (!(await this.redis.set(this.layout.directoryLock, owner, "PX", lockMs, "NX")))
      return { skipped: "another process" };
    let seen = 0;
    for await (const ids of this.walkWorkspaceIds()) {
      if ((await this.redis.get(this.layout.directoryLock)) !== owner) return { skipped: "another process" };
      await this.redis.pexpire(this.layout.directoryLock, lockMs);
      const found = await Promise.all(ids.map((id) => this.getWorkspace(id)));
      for (const workspace of found) {
        if (!workspace) continue;
        await reindex(this.redis, this.layout, null, workspace);
        seen++;
      }
    }
    await this.redis.set(this.layout.directoryVersion, "1");
    if ((await this.redis.get(this.layout.directoryLock)) === owner)
      await this.redis.del(this.layout.directoryLock);
    return { reindexed: seen };
  }

  /**
   * Deletes a workspace: its configurations first (their keys stop at once), then its record,
   * its usage and its place in the directory. Returns what it was, or null when there was none.
   */
  async deleteWorkspace(workspaceId: string): Promise<Workspace | null> {
    const workspace = await this.getWorkspace(workspaceId);
    if (!workspace) return null;
    for (const configId of await this.redis.smembers(this.layout.workspaceConfigs(workspaceId)))
      await this.deleteConfig(configId);
    await reindex(this.redis, this.layout, workspace, null);
    if (workspace.externalId) await this.#releaseExternalId(workspace.externalId, workspaceId);
    await this.redis.srem(this.layout.workspaces, workspaceId);
    await this.redis.del(
      this.layout.workspace(workspaceId),
      this.layout.workspaceConfigs(workspaceId),
      this.layout.usage(workspaceId),
      this.layout.quota(workspaceId),
      this.layout.usageMonthly(workspaceId),
      this.layout.refusals(workspaceId),
      this.layout.verified(workspaceId),
    );
    await this.redis.publish(this.layout.keyChanges, keyChange.workspace(workspaceId));
    return workspace;
  }

  /** Deletes a configuration and every secret of it (grace or not): refused from the return on. */
  async deleteConfig(configId: string): Promise<Configuration | null> {
    const hash = await this.redis.hgetall(this.layout.config(configId));
    if (Object.keys(hash).length === 0) return null;
    const config = configFromHash(hash);
    const secrets = [
      ...(hash["secretHash"] ? [hash["secretHash"]] : []),
      ...(await this.redis.smembers(this.layout.retiredSecrets(configId))),
    ];
    await Promise.all(secrets.map((h) => this.redis.del(this.layout.key(h))));
    await Promise.all(secrets.map((h) => this.redis.publish(this.layout.keyChanges, keyChange.key(h))));
    if (hash["foldedHash"]) await this.redis.del(this.layout.keyFolded(hash["foldedHash"]));
    if (config.siteKey) await this.redis.del(this.layout.site(config.siteKey));
    await this.redis.srem(this.layout.workspaceConfigs(config.workspaceId), configId);
    await this.redis.del(this.layout.config(configId), this.layout.retiredSecrets(configId));
    return config;
  }

  /** A workspace's configuration ids (one workspace's set: a site has a handful). */
  async configIdsOf(workspaceId: string): Promise<string[]> {
    return this.redis.smembers(this.layout.workspaceConfigs(workspaceId));
  }

  /**
   * Returns the workspace holding `externalId` when another one does; else claims it for
   * `workspaceId`. A holder whose record is gone (a create of a version before 1.5 that died
   * between its claim and its record, or a record removed by hand) holds nothing: the claim is
   * taken over, if it still names that holder. A holder whose create died before it was listed
   * is listed now, so the 409 names a workspace the caller can find.
   */
  async #claimExternalId(externalId: string, workspaceId: string): Promise<string | null> {
    for (let tries = 0; tries < 3; tries++) {
      if (await this.redis.hsetnx(this.layout.externalIds, externalId, workspaceId)) return null;
      const holder = await this.redis.hget(this.layout.externalIds, externalId);
      if (holder === null) continue; // released meanwhile: claim again
      if (holder === workspaceId) return null;
      const held = await this.getWorkspace(holder);
      if (held) {
        if (!(await this.redis.sismember(this.layout.workspaces, holder))) {
          await this.redis.sadd(this.layout.workspaces, holder);
          await reindex(this.redis, this.layout, null, held);
        }
        return holder;
      }
      if (await this.redis.siftTakeClaim(this.layout.externalIds, externalId, holder, workspaceId))
        return null;
    }
    // Three rounds of claims changing under us: whoever holds it now.
    return this.redis.hget(this.layout.externalIds, externalId);
  }

  async #releaseExternalId(externalId: string, workspaceId: string): Promise<void> {
    if ((await this.redis.hget(this.layout.externalIds, externalId)) === workspaceId)
      await this.redis.hdel(this.layout.externalIds, externalId);
  }

  async getWorkspace(workspaceId: string): Promise<Workspace | null> {
    return this.#read(this.layout.workspace(workspaceId), workspaceFromHash);
  }

  /**
   * Applies the changes; returns the updated workspace, or null when it does not exist. When it
   * returns, every key of the workspace answers with the new fields.
   */
  async updateWorkspace(workspaceId: string, changes: WorkspaceChanges): Promise<Workspace | null> {
    const updated = await this.updateWorkspaceUnique(workspaceId, changes);
    if (updated && !updated.ok) throw new Error(`external id taken by ${updated.existingId}`);
    return updated && updated.workspace;
  }

  /** `updateWorkspace`, with an external id that must stay unique (as at creation). */
  async updateWorkspaceUnique(
    workspaceId: string,
    changes: WorkspaceChanges & { externalId?: string },
  ): Promise<{ ok: true; workspace: Workspace } | ExternalIdTaken | null> {
    const current = await this.getWorkspace(workspaceId);
    if (!current) return null;
    const next = Workspace.parse({ ...current, ...changes, updatedAt: this.clock.now() });
    if (next.externalId !== undefined && next.externalId !== current.externalId) {
      const taken = await this.#claimExternalId(next.externalId, workspaceId);
      if (taken) return { ok: false, existingId: taken };
    }
    const redisKey = this.layout.workspace(workspaceId);
    const replies = await this.redis.multi().hset(redisKey, toHash(next)).hincrby(redisKey, "rev", 1).exec();
    const rev = replies?.[1]?.[1];
    if (typeof rev !== "number") throw new Error("workspace update failed");
    const fields = toHash(next);
    const configIds = await this.redis.smembers(this.layout.workspaceConfigs(workspaceId));
    await Promise.all(
      configIds.map(async (configId) => {
        const secretHash = await this.redis.hget(this.layout.config(configId), "secretHash");
        if (secretHash) await this.#syncKey(secretHash, rev, fields);
      }),
    );
    await this.redis.publish(this.layout.keyChanges, keyChange.workspace(workspaceId));
    await reindex(this.redis, this.layout, current, next);
    if (current.externalId !== undefined && current.externalId !== next.externalId)
      await this.#releaseExternalId(current.externalId, workspaceId);
    return { ok: true, workspace: next };
  }

  async createConfig(
    workspaceId: string,
    kind: KeyKind,
    options: ConfigChanges = {},
  ): Promise<{ config: Configuration; secretKey: string } | null> {
    const workspace = await this.#read(this.layout.workspace(workspaceId), (hash) => hash);
    if (!workspace) return null;
    const secretKey = newSecretKey();
    const config: Configuration = {
      id: newId("cfg"),
      workspaceId,
      kind,
      keyId: newId("key"),
      ...(options.name ? { name: Configuration.shape.name.parse(options.name) } : {}),
      ...(kind === "challenge" ? { siteKey: newSiteKey() } : {}),
      ...definedOnly({
        hostnames: options.hostnames,
        difficulty: options.difficulty,
        challengeTtlMs: options.challengeTtlMs,
        adaptive: options.adaptive,
      }),
      createdAt: this.clock.now(),
    };
    const hash = hashSecret(secretKey);
    const folded = hashFoldedSecret(secretKey);
    // Each on its own slot, so no MULTI; independent writes go out together (one round trip a
    // step, not one a write: issue 52's provisioning rate). The configuration joins its
    // workspace's set before its key record is written, so a concurrent workspace update either
    // sees it or is seen by #catchUp.
    await Promise.all([
      this.redis.hset(this.layout.config(config.id), {
        ...toHash(config),
        secretHash: hash,
        foldedHash: folded,
      }),
      this.redis.sadd(this.layout.workspaceConfigs(workspaceId), config.id),
    ]);
    await Promise.all([
      this.redis.hset(this.layout.key(hash), keyRecord(config, workspace)),
      this.redis.set(this.layout.keyFolded(folded), hash),
      ...(config.siteKey ? [this.redis.set(this.layout.site(config.siteKey), config.id)] : []),
    ]);
    await this.#catchUp(hash, workspaceId);
    return { config, secretKey };
  }

  async getConfig(id: string): Promise<Configuration | null> {
    return this.#read(this.layout.config(id), configFromHash);
  }

  async updateConfig(id: string, changes: ConfigChanges): Promise<Configuration | null> {
    const current = await this.getConfig(id);
    if (!current) return null;
    const next = Configuration.parse({ ...current, ...changes, updatedAt: this.clock.now() });
    // None of these fields is in the key record: the gateway never needs them.
    await this.redis.hset(this.layout.config(id), toHash(next));
    return next;
  }

  async configBySiteKey(siteKey: string): Promise<Configuration | null> {
    const id = await this.redis.get(this.layout.site(siteKey));
    return id ? this.getConfig(id) : null;
  }

  /**
   * A new secret for the configuration; the old one is refused from the moment the new one is
   * returned. The new key record is written first, the configuration swapped to it atomically
   * (SWAP_SECRET), and every hash it swapped out deleted before returning: of concurrent
   * rotates exactly one secret is left working, the one the configuration names. A rotate that
   * dies before its deletes leaves the hashes in the retired set; the next rotate deletes them.
   */
  async rotate(configId: string, options: { graceMs?: number } = {}): Promise<string | null> {
    const graceMs = options.graceMs ?? 0;
    const config = await this.getConfig(configId);
    if (!config) return null;
    const workspace = await this.redis.hgetall(this.layout.workspace(config.workspaceId));
    const secretKey = newSecretKey();
    const hash = hashSecret(secretKey);
    const keyId = newId("key");
    await this.redis.hset(this.layout.key(hash), keyRecord({ ...config, keyId }, workspace));
    const [oldFolded, swappedOut] = await this.redis.hmget(
      this.layout.config(configId),
      "foldedHash",
      "secretHash",
    );
    await this.#indexFolded(configId, secretKey, hash);
    const retired = await this.redis.siftSwapSecret(
      this.layout.config(configId),
      this.layout.retiredSecrets(configId),
      hash,
      keyId,
    );
    if (!retired) {
      await this.redis.del(this.layout.key(hash));
      return null;
    }
    const graced = graceMs > 0 ? retired.find((h) => h === swappedOut) : undefined;
    const ended = retired.filter((h) => h !== graced);
    if (graced) {
      // The secret just swapped out keeps working for the grace (rotate-secret): its record
      // says until when (the gateway's cache keeps it no longer) and Redis drops it then. Any
      // other retired one, an earlier rotation's still in its grace included, ends now.
      const until = this.clock.now() + graceMs;
      await this.redis.hset(this.layout.key(graced), "validUntil", until);
      await this.redis.pexpireat(this.layout.key(graced), until);
      await this.redis.publish(this.layout.keyChanges, keyChange.key(graced));
    }
    if (ended.length > 0) {
      // One DEL per key: the records live on different slots.
      await Promise.all(ended.map((old) => this.redis.del(this.layout.key(old))));
      await Promise.all(ended.map((old) => this.redis.publish(this.layout.keyChanges, keyChange.key(old))));
      await this.redis.srem(this.layout.retiredSecrets(configId), ...ended);
    }
    // The old secret's case-blind entry: its record is gone, so it would resolve to nothing;
    // deleted so the index does not grow with every rotate (kept through a grace).
    if (!graced && oldFolded && oldFolded !== hashFoldedSecret(secretKey))
      await this.redis.del(this.layout.keyFolded(oldFolded));
    await this.#catchUp(hash, config.workspaceId);
    return secretKey;
  }

  /** One round trip: the key's configuration and workspace, or null for an unknown key. */
  async resolve(secretKey: string): Promise<ResolvedKeyRecord | null> {
    return this.resolveHash(hashSecret(secretKey));
  }

  /** `resolve` for a secret already hashed (hashSecret). */
  async resolveHash(secretHash: string): Promise<ResolvedKeyRecord | null> {
    const row = await this.redis.hmget(this.layout.key(secretHash), ...KEY_RECORD_FIELDS);
    return row.slice(0, REQUIRED_KEY_FIELDS).every((v) => v !== null) ? toRecord(row as ResolveRow) : null;
  }

  /**
   * The exact hash of a secret given in any case (a key from a host name, which URL parsers
   * lowercase), or null when no secret folds to it. Keys made before the index existed are not
   * in it until `indexFolded` sees them once in their own case (docs/integrations.md).
   */
  async foldedHash(secretInAnyCase: string): Promise<string | null> {
    return this.redis.get(this.layout.keyFolded(hashFoldedSecret(secretInAnyCase)));
  }

  /**
   * Adds a secret known to be valid (it resolved in its exact case) to the case-blind index when
   * it is not there yet: the migration path for keys made before the index existed.
   */
  async indexFolded(secretKey: string): Promise<void> {
    const hash = hashSecret(secretKey);
    await this.redis.set(this.layout.keyFolded(hashFoldedSecret(secretKey)), hash, "NX");
  }

  /** The channel `keyChange` messages are published on (for a subscriber of this store's prefix). */
  get changesChannel(): string {
    return this.layout.keyChanges;
  }

  /**
   * One round trip for a classify call: resolve the key and, when it is an enabled classify
   * key, take a request from its rate limit (`retryAfterMs` 0 when taken, else the wait).
   */
  async resolveAndTake(
    secretKey: string,
  ): Promise<{ record: ResolvedKeyRecord; retryAfterMs: number } | null> {
    return this.resolveAndTakeHash(hashSecret(secretKey));
  }

  /** `resolveAndTake` for a secret already hashed (hashSecret, or `foldedHash`'s answer). */
  async resolveAndTakeHash(
    secretHash: string,
  ): Promise<{ record: ResolvedKeyRecord; retryAfterMs: number } | null> {
    const row = await this.redis.siftResolveAndTake(this.layout.key(secretHash), this.clock.now());
    return row ? { record: toRecord(row), retryAfterMs: Number(row[KEY_RECORD_FIELDS.length]) } : null;
  }

  /** A record read through `parse`, or null when there is none (Redis reads a missing hash as empty). */
  async #read<T>(key: string, parse: (hash: Record<string, string>) => T): Promise<T | null> {
    const hash = await this.redis.hgetall(key);
    return Object.keys(hash).length === 0 ? null : parse(hash);
  }

  /**
   * Points the secret's lowercase form at its exact hash, and remembers the entry on the
   * configuration so a rotate can delete it. Overwrites: of two secrets folding alike (odds
   * about 2^-222) the newer answers to its host-name form.
   */
  async #indexFolded(configId: string, secretKey: string, hash: string): Promise<void> {
    const folded = hashFoldedSecret(secretKey);
    await this.redis.set(this.layout.keyFolded(folded), hash);
    await this.redis.hset(this.layout.config(configId), "foldedHash", folded);
  }

  /** After writing a key record from a workspace read: bring it up to the workspace as it is now. */
  async #catchUp(secretHash: string, workspaceId: string): Promise<void> {
    const workspace = await this.redis.hgetall(this.layout.workspace(workspaceId));
    await this.#syncKey(secretHash, Number(workspace["rev"] ?? 0), workspace);
  }

  async #syncKey(secretHash: string, rev: number, workspace: Record<string, string>): Promise<void> {
    await this.redis.siftSyncKey(this.layout.key(secretHash), rev, ...workspaceFields(workspace));
  }
}

/**
 * Takes an external id's claim over from a holder that holds nothing (#claimExternalId), only if
 * it still names that holder. KEYS[1] the external ids hash; ARGV: the external id, the holder,
 * the new workspace. Returns 1 when taken.
 */
const TAKE_CLAIM = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0
`;

/** The messages on the key-changes channel: a secret's record is gone, or a workspace changed. */
export const keyChange = {
  key: (secretHash: string) => `key:${secretHash}`,
  workspace: (workspaceId: string) => `ws:${workspaceId}`,
};

/** A key record: what the gateway needs, from the configuration and the workspace hash. */
const keyRecord = (
  config: Pick<Configuration, "id" | "workspaceId" | "kind" | "keyId">,
  workspace: Record<string, string>,
): Record<string, string> => ({
  configId: config.id,
  workspaceId: config.workspaceId,
  kind: config.kind,
  keyId: config.keyId,
  rev: workspace["rev"] ?? "0",
  ...Object.fromEntries(WORKSPACE_FIELDS.map((f) => [f, workspace[f] ?? ""])),
});

const workspaceFields = (workspace: Record<string, string>): string[] =>
  WORKSPACE_FIELDS.flatMap((f) => [f, workspace[f] ?? ""]);

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
  logPrivacy,
  logRetentionDays,
  logMaxEntries,
  createdAt,
  network,
  validUntil,
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
  log: workspaceLogFrom({ logPrivacy, logRetentionDays, logMaxEntries }),
  network: {
    on: network !== "0",
    ...(createdAt && Number.isFinite(Number(createdAt)) ? { since: Number(createdAt) } : {}),
  },
  ...(validUntil ? { validUntil: Number(validUntil) } : {}),
});

/**
 * configId, workspaceId, kind, keyId, plan, classify, rateLimit, burst, allowance, then the log's
 * privacy, retention days and max entries, the workspace's creation time and network choice
 * (null or '' in a record written before them), and the end of a rotated-away secret's grace.
 */
type ResolveRow = [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
];

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftResolveAndTake(key: string, now: number): Result<[...ResolveRow, number] | null, Context>;
    siftSyncKey(key: string, rev: number, ...fieldsAndValues: string[]): Result<number, Context>;
    siftSwapSecret(
      config: string,
      retired: string,
      hash: string,
      keyId: string,
    ): Result<string[] | null, Context>;
    siftTakeClaim(
      externalIds: string,
      externalId: string,
      holder: string,
      workspaceId: string,
    ): Result<number, Context>;
  }
}

const workspaceFromHash = (hash: Record<string, string>): Workspace =>
  Workspace.parse({
    ...hash,
    allowance: Number(hash["allowance"]),
    classify: hash["classify"] === "1",
    rateLimit: Number(hash["rateLimit"]),
    burst: Number(hash["burst"]),
    createdAt: Number(hash["createdAt"]),
    logPrivacy: hash["logPrivacy"] || undefined,
    logRetentionDays: optionalNumber(hash["logRetentionDays"] || undefined),
    logMaxEntries: optionalNumber(hash["logMaxEntries"] || undefined),
    network: hash["network"] === undefined ? undefined : hash["network"] === "1",
    labels: optionalJson(hash["labels"]),
    updatedAt: optionalNumber(hash["updatedAt"]),
  });

const configFromHash = (hash: Record<string, string>): Configuration =>
  Configuration.parse({
    ...hash,
    createdAt: Number(hash["createdAt"]),
    challengeTtlMs: optionalNumber(hash["challengeTtlMs"]),
    difficulty: optionalNumber(hash["difficulty"]),
    adaptive: hash["adaptive"] === undefined ? undefined : hash["adaptive"] === "1",
    hostnames: optionalJson(hash["hostnames"]),
    updatedAt: optionalNumber(hash["updatedAt"]),
  });

/** Fields as Redis hash values: booleans as 1/0, lists and maps (labels, hostnames) as JSON. */
const toHash = (record: object): Record<string, string> => {
  const hash: Record<string, string> = {};
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined) continue;
    hash[name] =
      typeof value === "boolean"
        ? value
          ? "1"
          : "0"
        : typeof value === "object" && value !== null
          ? JSON.stringify(value)
          : String(value);
  }
  return hash;
};

const optionalJson = (value: string | undefined): unknown => (value ? JSON.parse(value) : undefined);

const definedOnly = <T extends object>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;

const optionalNumber = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Number(value);
