/**
 * Every Redis key the keystore, usage meter and notices use, in one place, so that the rule
 * Redis Cluster imposes (every key one script or MULTI touches must hash to one slot) can be
 * read off here:
 *
 * - A workspace's record, its set of configurations and its usage counters share the hash tag
 *   `{<workspace id>}`: the usage scripts and the update of a workspace (fields + revision in
 *   one MULTI) stay on one slot.
 * - A configuration's record and its set of retired secret hashes share `{<configuration id>}`:
 *   the rotate swap is one script on one slot.
 * - A key record (`key:<sha-256 of the secret>`) carries everything the gateway needs about
 *   the key, its configuration and its workspace, and the key's rate-limit state: the classify
 *   path's lookup and rate limit are one script on that one key, with no tag needed.
 * - Everything else (workspace index, site keys, notices, spent challenges, per-address
 *   buckets) is read or written one key per command.
 *
 * Ids are base64url (ws_…, cfg_…), so they never contain a brace.
 */
export const redisLayout = (prefix = "sift:") => ({
  workspaces: `${prefix}workspaces`,
  workspace: (workspaceId: string) => `${prefix}ws:{${workspaceId}}`,
  workspaceConfigs: (workspaceId: string) => `${prefix}ws-configs:{${workspaceId}}`,
  usage: (workspaceId: string) => `${prefix}usage:{${workspaceId}}`,
  quota: (workspaceId: string) => `${prefix}quota:{${workspaceId}}`,
  usageMonthly: (workspaceId: string) => `${prefix}usage-month:{${workspaceId}}`,
  /**
   * Hash: the copies of one attempt that hold its count (`c:<copy>` → 1) and where the count went
   * (`day`, `month`); for ATTEMPT_MEMORY_MS (usage-script.ts).
   */
  usageAttempt: (workspaceId: string, attempt: string) =>
    `${prefix}usage-attempt:{${workspaceId}}:${attempt}`,
  /** Hash: `<UTC day>:<code>` → keyed 429 answers of that day (refusals.ts). */
  refusals: (workspaceId: string) => `${prefix}refused:{${workspaceId}}`,
  /** Hash: UTC day → successful verifications of that day (verified.ts). */
  verified: (workspaceId: string) => `${prefix}verified:{${workspaceId}}`,
  config: (configId: string) => `${prefix}cfg:{${configId}}`,
  retiredSecrets: (configId: string) => `${prefix}cfg-retired:{${configId}}`,
  key: (secretHash: string) => `${prefix}key:${secretHash}`,
  /**
   * String: the exact hash of the secret whose lowercase form hashes to `foldedHash` (the
   * case-blind lookup of a key sent in a host name; secrets.ts `hashFoldedSecret`).
   */
  keyFolded: (foldedHash: string) => `${prefix}key-folded:${foldedHash}`,
  site: (siteKey: string) => `${prefix}site:${siteKey}`,
  notices: `${prefix}notices`,
  /**
   * The workspace directory (directory.ts): sorted sets of `<created, 15 digits>:<id>` at score
   * 0, read by lex range so a cursor (the last member seen) survives inserts and deletes: the
   * whole deployment, one plan, one label; names as `<lowercase name>\0<id>` for the search; and
   * a hash of external id → workspace id (HSETNX keeps it unique).
   */
  workspaceIndex: `${prefix}ws-index`,
  workspaceNames: `${prefix}ws-names`,
  workspacePlan: (plan: string) => `${prefix}ws-plan:${plan}`,
  workspaceLabel: (key: string, value: string) => `${prefix}ws-label:${key}:${encodeURIComponent(value)}`,
  externalIds: `${prefix}ws-external`,
  /** String: set once every workspace is in the directory's lists (Keystore.upgradeDirectory). */
  directoryVersion: `${prefix}ws-directory-version`,
  /** String: the process reindexing the directory now, with an expiry it renews. */
  directoryLock: `${prefix}ws-directory-lock`,
  /** Management tokens (@sift/management): the record by the secret's hash, by id, and the list. */
  token: (secretHash: string) => `${prefix}mtok:${secretHash}`,
  tokenById: (tokenId: string) => `${prefix}mtok-id:${tokenId}`,
  tokens: `${prefix}mtoks`,
  /** One `Idempotency-Key`'s first answer, per token (@sift/management idempotency.ts). */
  idempotency: (tokenId: string, keyHash: string) => `${prefix}idem:${tokenId}:${keyHash}`,
  /** The audit trail: a stream for the deployment, and per workspace a sorted set of its entries' ids (audit.ts). */
  audit: `${prefix}audit`,
  workspaceAudit: (workspaceId: string) => `${prefix}audit:{${workspaceId}}`,
  /** Webhooks: the record, the deployment's list, one workspace's list, the delivery log. */
  webhook: (webhookId: string) => `${prefix}hook:${webhookId}`,
  webhooks: `${prefix}hooks`,
  /** The webhooks an event of one workspace goes to (`*`: the deployment-wide ones). */
  webhooksOf: (workspaceId: string) => `${prefix}hooks-of:${workspaceId}`,
  webhookDeliveries: (webhookId: string) => `${prefix}hook-deliveries:${webhookId}`,
  /** A per-address rate-limit bucket (a classify key's bucket is in its key record). */
  rateLimit: (bucket: string) => `${prefix}rl:${bucket}`,
  /** Pub/sub channel: `key:<hash>` or `ws:<id>` whenever a key record stops or changes. */
  keyChanges: `${prefix}key-changes`,
});

export type RedisLayout = ReturnType<typeof redisLayout>;
