/**
 * Lua scripts: each turns several reads or writes into one atomic round trip.
 *
 * RESOLVE: KEYS[1] key record; ARGV[1] prefix. Returns the key's config and workspace fields,
 * or nil when the key is unknown (or its config or workspace is gone).
 */
export const RESOLVE = `
local configId = redis.call('HGET', KEYS[1], 'configId')
if not configId then return nil end
local cfg = redis.call('HMGET', ARGV[1] .. 'cfg:' .. configId, 'workspaceId', 'kind', 'keyId')
if not cfg[1] then return nil end
local ws = redis.call('HMGET', ARGV[1] .. 'ws:' .. cfg[1], 'plan', 'classify', 'rateLimit', 'burst', 'allowance')
if not ws[1] then return nil end
return { configId, cfg[1], cfg[2], cfg[3], ws[1], ws[2], ws[3], ws[4], ws[5] }
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
