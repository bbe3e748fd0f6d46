import { randomUUID } from "node:crypto";
import { RedisStore } from "./redis-store.ts";
import { newId } from "./secrets.ts";
import { reindex, directoryPage, type DirectoryFilter, type DirectoryPage } from "./directory.ts";
import { keyChange, toHash, workspaceFields, workspaceFromHash } from "./records.ts";
import {
  DEFAULT_ALLOWANCE,
  DEFAULT_BURST,
  DEFAULT_RATE_LIMIT,
  Workspace,
  type Configuration,
  type ExternalIdTaken,
  type WorkspaceChanges,
  type WorkspaceInput,
} from "./types.ts";

/**
 * The key store's workspaces: their records, the directory that lists them, their external ids
 * and the revision by which their key records follow them (keystore.ts's Keystore adds the
 * configurations and secrets, and is the one class callers use).
 */
export abstract class WorkspaceRecords extends RedisStore {
  /** Deletes a configuration and its secrets (keystore.ts): a workspace's deletion runs it for each. */
  abstract deleteConfig(configId: string): Promise<Configuration | null>;

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
   * What the site keeps in other stores (its verdict log, layer, lists, console roles) is
   * forgotten after this by @sift/operations' `deleteWorkspace`.
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
    return this.read(this.layout.workspace(workspaceId), workspaceFromHash);
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
        if (secretHash) await this.syncKey(secretHash, rev, fields);
      }),
    );
    await this.redis.publish(this.layout.keyChanges, keyChange.workspace(workspaceId));
    await reindex(this.redis, this.layout, current, next);
    if (current.externalId !== undefined && current.externalId !== next.externalId)
      await this.#releaseExternalId(current.externalId, workspaceId);
    return { ok: true, workspace: next };
  }

  /** A record read through `parse`, or null when there is none (Redis reads a missing hash as empty). */
  protected async read<T>(key: string, parse: (hash: Record<string, string>) => T): Promise<T | null> {
    const hash = await this.redis.hgetall(key);
    return Object.keys(hash).length === 0 ? null : parse(hash);
  }

  /** Brings a key record up to the workspace fields given (SYNC_KEY: only ever forward). */
  protected async syncKey(secretHash: string, rev: number, workspace: Record<string, string>): Promise<void> {
    await this.redis.siftSyncKey(this.layout.key(secretHash), rev, ...workspaceFields(workspace));
  }
}
