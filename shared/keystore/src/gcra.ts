/**
 * GCRA (the generic cell rate algorithm): a token bucket kept as one timestamp, the "theoretical
 * arrival time" of the next request. As Lua functions so it can run alone (RedisRateLimiter) or
 * inside the key lookup (Keystore.resolveAndTake): one round trip.
 *
 * gcraStep(tat or nil, now ms, interval ms per request, burst) returns the whole milliseconds
 * until the request would be taken (at least 1) and nil, or 0 and the new TAT when it is taken.
 *
 * gcra(bucket, now, interval, burst) keeps the TAT in its own string key, which expires as soon
 * as the bucket would be full again; it returns the wait (0 when taken).
 */
export const GCRA_FUNCTION = `
local function gcraStep(tat, now, interval, burst)
  local tolerance = interval * (burst - 1)
  if not tat or tat < now then tat = now end
  local allowAt = tat - tolerance
  if now < allowAt then return math.ceil(allowAt - now), nil end
  return 0, tat + interval
end

local function gcra(bucket, now, interval, burst)
  local wait, newTat = gcraStep(tonumber(redis.call('GET', bucket)), now, interval, burst)
  if newTat then redis.call('SET', bucket, newTat, 'PX', math.ceil(newTat - now)) end
  return wait
end
`;

/** KEYS[1] bucket; ARGV: now, interval, burst. */
export const GCRA = `${GCRA_FUNCTION}
return gcra(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
`;
