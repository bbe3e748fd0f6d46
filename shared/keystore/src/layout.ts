/**
 * Every Redis key the key store, usage meter and notices use, in one place, so that the rule
 * Redis Cluster imposes (every key one script or MULTI touches must hash to one slot) can be
 * read off here:
 *
 * - A workspace's record, its set of configurations and its usage counters share the hash tag
 *   `{<workspace id>}`: the usage scripts and the update of a workspace (fields + revision in
 *   one MULTI) stay on one slot.
 * - A configuration's record and its set of retired secret hashes share `{<configuration id>}`:
 *   the reroll swap is one script on one slot.
 * - A key record (`key:<sha-256 of the secret>`) carries everything the gateway needs about
 *   the key, its configuration and its workspace, and the key's rate-limit state: the classify
 *   path's lookup and rate limit are one script on that one key, with no tag needed.
 * - Everything else (workspace index, site keys, notices, spent challenges, per-address
 *   buckets) is read or written one key per command.
 *
 * Ids are base64url (ws_…, cfg_…), so they never contain a brace.
 */
export const keyLayout = (prefix = "sift:") => ({
  workspaces: `${prefix}workspaces`,
  workspace: (id: string) => `${prefix}ws:{${id}}`,
  workspaceConfigs: (id: string) => `${prefix}ws-configs:{${id}}`,
  usage: (id: string) => `${prefix}usage:{${id}}`,
  quota: (id: string) => `${prefix}quota:{${id}}`,
  usageMonthly: (id: string) => `${prefix}usage-month:{${id}}`,
  config: (id: string) => `${prefix}cfg:{${id}}`,
  retiredSecrets: (configId: string) => `${prefix}cfg-retired:{${configId}}`,
  key: (secretHash: string) => `${prefix}key:${secretHash}`,
  site: (siteKey: string) => `${prefix}site:${siteKey}`,
  notices: `${prefix}notices`,
  /** Pub/sub channel: `key:<hash>` or `ws:<id>` whenever a key record stops or changes. */
  keyChanges: `${prefix}key-changes`,
});

export type KeyLayout = ReturnType<typeof keyLayout>;
