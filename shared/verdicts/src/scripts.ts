/**
 * The log's Lua. APPEND is written for any offset into KEYS and ARGV, so the same text runs on
 * its own (offset 0) and ahead of @sift/keystore's usage script (after its 3 keys and 9
 * arguments: the classify call's one round trip commits usage and appends the log together).
 *
 * Keys (layout.ts order): records, summaries, ids, counts, waiting, reviews, attempts.
 * Arguments: cutoff id (entries with a smaller id are past retention), max entries, time to
 * live in ms (retention + TTL_SLACK_MS), n, now (ms), attempt memory (ms), then
 * n × (id, record, summary, count field, waiting 0/1, attempt or '').
 *
 * An entry whose attempt is in the attempts set already is skipped: the resend of a call whose
 * first copy answered (its answer lost on the way back) logs one verdict, not two. The set keeps
 * an attempt for the attempt memory (contracts' ATTEMPT_MEMORY_MS), trimmed by time each append.
 *
 * `guarded` (riding the usage script): a failing log write (a key of the wrong type, out of
 * memory) is caught, so it can never cost the call its usage commit and with it its answer.
 */

/** Entries one append may trim: a lowered maximum drains over the next appends, never in one long script. */
export const TRIM_BATCH = 500;
/** An hour: how long past its retention an idle log may stay before it expires. */
export const TTL_SLACK_MS = 3_600_000;

export const appendLua = (keyOffset: number, argOffset: number, guarded = false): string => `
local logDropped = 0
${guarded ? "pcall(function()" : "do"}
  local K = function(i) return KEYS[${keyOffset} + i] end
  local A = function(i) return ARGV[${argOffset} + i] end
  local n = tonumber(A(4))
  local now = tonumber(A(5))
  local remembered = false
  for i = 0, n - 1 do
    local at = 7 + i * 6
    local id = A(at)
    local attempt = A(at + 5)
    if attempt == '' or redis.call('ZADD', K(7), 'NX', now, attempt) == 1 then
      if attempt ~= '' then remembered = true end
      redis.call('HSET', K(1), id, A(at + 1))
      redis.call('HSET', K(2), id, A(at + 2))
      redis.call('ZADD', K(3), 0, id)
      redis.call('HINCRBY', K(4), A(at + 3), 1)
      if A(at + 4) == '1' then redis.call('SADD', K(5), id) end
    end
  end
  if remembered then
    redis.call('ZREMRANGEBYSCORE', K(7), '-inf', now - tonumber(A(6)))
    redis.call('PEXPIRE', K(7), A(6))
  end
  local drop = redis.call('ZRANGE', K(3), '-', '(' .. A(1), 'BYLEX', 'LIMIT', 0, ${TRIM_BATCH})
  local excess = redis.call('ZCARD', K(3)) - #drop - tonumber(A(2))
  if excess > 0 then
    drop = redis.call('ZRANGE', K(3), 0, math.min(#drop + excess, ${TRIM_BATCH}) - 1)
  end
  if #drop > 0 then
    redis.call('ZREM', K(3), unpack(drop))
    redis.call('HDEL', K(1), unpack(drop))
    redis.call('HDEL', K(2), unpack(drop))
    redis.call('SREM', K(5), unpack(drop))
    redis.call('HDEL', K(6), unpack(drop))
  end
  logDropped = #drop
  -- An idle workspace's log leaves on its own once its newest entry is past retention (a
  -- trim alone, n = 0, must not keep it alive). The time to live is retention + TTL_SLACK and is
  -- renewed once it has run down by TTL_SLACK, or when a key made since has none (PTTL -1):
  -- three PTTLs per append instead of six PEXPIREs.
  if n > 0 and (redis.call('PTTL', K(3)) < tonumber(A(3)) - ${TTL_SLACK_MS}
      or redis.call('PTTL', K(5)) == -1 or redis.call('PTTL', K(6)) == -1) then
    for i = 1, 6 do redis.call('PEXPIRE', K(i), A(3)) end
  end
${guarded ? "end)" : "end"}
`;

/** Returns how many entries it trimmed (at most TRIM_BATCH). */
export const APPEND = `${appendLua(0, 0)}
return logDropped
`;

/**
 * Adds a review to a verdict's history (JSON array text, appended as text: no re-encoding) and
 * takes it out of the waiting set. KEYS: records, waiting, reviews; ARGV: id, entry JSON.
 * Returns 0 when the verdict is not in the log.
 */
export const REVIEW = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
local history = redis.call('HGET', KEYS[3], ARGV[1])
if history then
  history = string.sub(history, 1, -2) .. ',' .. ARGV[2] .. ']'
else
  history = '[' .. ARGV[2] .. ']'
end
redis.call('HSET', KEYS[3], ARGV[1], history)
-- The history leaves with the log it belongs to.
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
redis.call('SREM', KEYS[2], ARGV[1])
return 1
`;
