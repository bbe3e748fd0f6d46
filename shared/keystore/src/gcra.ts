/**
 * GCRA (the generic cell rate algorithm): a token bucket kept as one timestamp, the "theoretical
 * arrival time" of the next request. As a Lua function so it can run alone (RedisRateLimiter)
 * or after the key lookup in the same script (KeyStore.resolveAndTake): one round trip.
 *
 * gcra(bucket, now ms, interval ms per request, burst) returns 0 when the request is taken, else
 * the whole milliseconds until it would be (at least 1). State expires as soon as the bucket
 * would be full again.
 */
export const GCRA_FUNCTION = `
local function gcra(bucket, now, interval, burst)
  local tolerance = interval * (burst - 1)
  local tat = tonumber(redis.call('GET', bucket) or now)
  if tat < now then tat = now end
  local allowAt = tat - tolerance
  if now < allowAt then return math.ceil(allowAt - now) end
  local newTat = tat + interval
  redis.call('SET', bucket, newTat, 'PX', math.ceil(newTat - now))
  return 0
end
`;

/** KEYS[1] bucket; ARGV: now, interval, burst. */
export const GCRA = `${GCRA_FUNCTION}
return gcra(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
`;

/** Where rate-limit buckets live; the classify key buckets are `<prefix>key:<keyId>`. */
export const RATE_LIMIT_PREFIX = "sift:rl:";
