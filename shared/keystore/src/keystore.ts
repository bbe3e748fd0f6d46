import type { RedisStoreDeps } from "./redis-store.ts";
import { hashFoldedSecret, hashSecret, newId, newSecretKey, newSiteKey } from "./secrets.ts";
import {
  KEY_RECORD_FIELDS,
  REQUIRED_KEY_FIELDS,
  RESOLVE_AND_TAKE,
  SWAP_SECRET,
  SYNC_KEY,
  TAKE_CLAIM,
} from "./scripts.ts";
import {
  configFromHash,
  definedOnly,
  keyChange,
  keyRecord,
  toHash,
  toRecord,
  type ResolveRow,
} from "./records.ts";
import { Configuration, type ConfigChanges, type KeyKind, type ResolvedKeyRecord } from "./types.ts";
import { WorkspaceRecords } from "./workspace-records.ts";

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
export class Keystore extends WorkspaceRecords {
  constructor(deps: RedisStoreDeps) {
    super(deps, {
      siftResolveAndTake: { keys: 1, lua: RESOLVE_AND_TAKE },
      siftSyncKey: { keys: 1, lua: SYNC_KEY },
      siftSwapSecret: { keys: 2, lua: SWAP_SECRET },
      siftTakeClaim: { keys: 1, lua: TAKE_CLAIM },
    });
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

  async createConfig(
    workspaceId: string,
    kind: KeyKind,
    options: ConfigChanges = {},
  ): Promise<{ config: Configuration; secretKey: string } | null> {
    const workspace = await this.read(this.layout.workspace(workspaceId), (hash) => hash);
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
    return this.read(this.layout.config(id), configFromHash);
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
    await this.syncKey(secretHash, Number(workspace["rev"] ?? 0), workspace);
  }
}

export { keyChange } from "./records.ts";
