import { GCRA_FUNCTION } from "./gcra.ts";

/**
 * Lua scripts: each turns several reads or writes into one atomic round trip.
 *
 * resolveRow(key record, prefix): the key's config and workspace fields as
 * { configId, workspaceId, kind, keyId, plan, classify, rateLimit, burst, allowance }, or nil
 * when the key is unknown (or its config or workspace is gone).
 */
const RESOLVE_FUNCTION = `
local function resolveRow(record, prefix)
  local configId = redis.call('HGET', record, 'configId')
  if not configId then return nil end
  local cfg = redis.call('HMGET', prefix .. 'cfg:' .. configId, 'workspaceId', 'kind', 'keyId')
  if not cfg[1] then return nil end
  local ws = redis.call('HMGET', prefix .. 'ws:' .. cfg[1], 'plan', 'classify', 'rateLimit', 'burst', 'allowance')
  if not ws[1] then return nil end
  return { configId, cfg[1], cfg[2], cfg[3], ws[1], ws[2], ws[3], ws[4], ws[5] }
end
`;

/** KEYS[1] key record; ARGV[1] prefix. */
export const RESOLVE = `${RESOLVE_FUNCTION}
return resolveRow(KEYS[1], ARGV[1])
`;

/**
 * The gateway's whole Redis work for a classify call, in one round trip (DESIGN.md): resolve the
 * key and, for an enabled classify key, take one request from its rate-limit bucket. The row
 * gains a tenth entry: 0, or the milliseconds to wait (nothing taken, nothing counted).
 * KEYS[1] key record; ARGV: prefix, rate-limit prefix, now.
 */
export const RESOLVE_AND_TAKE = `${RESOLVE_FUNCTION}${GCRA_FUNCTION}
local row = resolveRow(KEYS[1], ARGV[1])
if not row then return nil end
row[10] = 0
if row[3] == 'classify' and row[6] == '1' then
  row[10] = gcra(ARGV[2] .. 'key:' .. row[4], tonumber(ARGV[3]), 1000 / tonumber(row[7]), tonumber(row[8]))
end
return row
`;

/**
 * REROLL: KEYS[1] config; KEYS[2] the new key record; ARGV[1] prefix, ARGV[2] new hash,
 * ARGV[3] new key id. Deletes the old key record and installs the new one atomically, so the
 * old secret stops working the moment the new one is returned.
 */
export const REROLL = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local old = redis.call('HGET', KEYS[1], 'secretHash')
if old then redis.call('DEL', ARGV[1] .. 'key:' .. old) end
redis.call('HSET', KEYS[1], 'secretHash', ARGV[2], 'keyId', ARGV[3])
redis.call('HSET', KEYS[2], 'configId', string.sub(KEYS[1], string.len(ARGV[1] .. 'cfg:') + 1))
return 1
`;
