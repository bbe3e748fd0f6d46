import { KeyKind } from "@sift/contracts";
import { GCRA_FUNCTION } from "./gcra.ts";

/**
 * Lua scripts: each turns several reads or writes into one atomic round trip. Every key a
 * script touches comes in KEYS, and all of a script's keys share one cluster slot (layout.ts).
 */

/** What a key record holds for the gateway, in the order the resolve reply lists it. */
export const KEY_RECORD_FIELDS = [
  "configId",
  "workspaceId",
  "kind",
  "keyId",
  "plan",
  "classify",
  "rateLimit",
  "burst",
  "allowance",
  "logPrivacy",
  "logRetentionDays",
  "logMaxEntries",
  "createdAt",
  "network",
  // A rotated-away secret kept for a grace (rotate-secret's graceSeconds): when it stops.
  "validUntil",
] as const;

/** Fields every key record has; the ones after them came later and may be missing (read as defaults). */
export const REQUIRED_KEY_FIELDS = 9;

/** The workspace fields a key record copies, kept in step by SYNC_KEY. */
export const WORKSPACE_FIELDS = [
  "plan",
  "classify",
  "rateLimit",
  "burst",
  "allowance",
  "logPrivacy",
  "logRetentionDays",
  "logMaxEntries",
  // The network (docs/network.md): the workspace's age and whether it takes part.
  "createdAt",
  "network",
] as const;

/**
 * The gateway's whole Redis work for a classify call, in one round trip (DESIGN.md): read the
 * key record and, for an enabled classify key, take one request from the rate-limit state kept
 * in that same record (field `tat`). Returns the record's fields (KEY_RECORD_FIELDS; a missing
 * optional one as '') plus one more entry, 0 or the milliseconds to wait (nothing taken,
 * nothing counted); nil for an unknown key. KEYS[1] key record; ARGV[1] now.
 *
 * `now` is the gateway's reading when it sent the call, which can be old by the time the script
 * runs: a call held back by a Redis failover (the client resends it to the new master, up to the
 * command time-out later) then runs after calls read later, whose takes have moved `tat` past its
 * `now` by the delay, and with a burst's tolerance under that delay it was refused a 429 it had
 * not earned (seen once in the host-lost row: one of 345, with a 1 s tolerance). So the record
 * also keeps the latest `now` a take used (`seen`), and a call is judged at whichever is later.
 */
/** Where `tat` lands in RESOLVE_AND_TAKE's row (Lua counts from 1): right after the record's fields. */
const TAT = KEY_RECORD_FIELDS.length + 1;

export const RESOLVE_AND_TAKE = `${GCRA_FUNCTION}
local row = redis.call('HMGET', KEYS[1], ${KEY_RECORD_FIELDS.map((f) => `'${f}'`).join(", ")}, 'tat', 'seen')
if not row[1] then return nil end
-- A nil would end the reply's array early: a record older than the log's fields answers ''.
for i = ${REQUIRED_KEY_FIELDS + 1}, ${KEY_RECORD_FIELDS.length} do row[i] = row[i] or '' end
local wait = 0
if row[3] == '${KeyKind.enum.classify}' and row[6] == '1' then
  local now = tonumber(ARGV[1])
  local seen = tonumber(row[${TAT + 1}])
  if seen and seen > now then now = seen end
  local newTat
  wait, newTat = gcraStep(tonumber(row[${TAT}]), now, 1000 / tonumber(row[7]), tonumber(row[8]))
  if newTat then redis.call('HSET', KEYS[1], 'tat', newTat, 'seen', now) end
end
row[${TAT}] = wait
row[${TAT + 1}] = nil
return row
`;

/**
 * Copies a workspace's fields at revision ARGV[1] into a key record, unless the record is gone
 * (a rotated key must not come back) or already holds that revision or a later one (updates
 * racing each other land in revision order). KEYS[1] key record; ARGV[2…] field, value pairs.
 * Returns 1 when written.
 */
export const SYNC_KEY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'rev') or -1) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'rev', ARGV[1], unpack(ARGV, 2))
return 1
`;

/**
 * The atomic half of a rotate: makes ARGV[1] (the new secret's hash; its key record is already
 * written) the configuration's secret, with key id ARGV[2], and moves the old hash to the
 * configuration's retired set. Returns the retired set (whose key records the caller deletes,
 * then removes from the set), or nil when the configuration does not exist.
 * KEYS[1] configuration, KEYS[2] its retired set.
 */
export const SWAP_SECRET = `
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local old = redis.call('HGET', KEYS[1], 'secretHash')
redis.call('HSET', KEYS[1], 'secretHash', ARGV[1], 'keyId', ARGV[2])
if old then redis.call('SADD', KEYS[2], old) end
return redis.call('SMEMBERS', KEYS[2])
`;

/**
 * Takes an external id's claim over from a holder that holds nothing (#claimExternalId), only if
 * it still names that holder. KEYS[1] the external ids hash; ARGV: the external id, the holder,
 * the new workspace. Returns 1 when taken.
 */
export const TAKE_CLAIM = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0
`;
