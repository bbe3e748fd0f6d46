import { luaDeadlineCheck } from "@sift/runtime";

/**
 * The Free-plan allowance (spec 3.1) as one Lua script, so the decision and the count happen
 * atomically: N concurrent calls at the edge of the allowance never over-count or skip the
 * transition.
 *
 * Usage is a hash of UTC day index → count; the window is today and the 29 days before it.
 * `reachedAt` (ms) marks the moment the allowance was reached; it is cleared as soon as usage is
 * back under the allowance (Grace or Paused → Under).
 *
 * Each counted call is also added to a per-month total (KEYS[3]), which the month-end check of
 * paid plans reads long after the day counts have left the window.
 *
 * A call that carries an attempt id counts once per attempt: the attempt's hash (KEYS[4],
 * layout.ts `usageAttempt`) holds every copy of it admitted and not given back, and the day and
 * month its one count went to. The first copy counts and makes the hash; a copy that finds it
 * (a balancer's or the gateway's resend, while the first copy runs or after it answered) joins
 * without counting; RELEASE takes the count back only with the last copy holding it. So a
 * resend is counted once whether its first copy answered, died, or gave its count back.
 *
 * KEYS[1] usage hash, KEYS[2] quota hash, KEYS[3] monthly totals hash, KEYS[4] the attempt's.
 * ARGV: now, dayMs, windowDays, allowance, graceMs, plan, mode ("reserve" | "observe" | "peek"), month,
 * deadline (see luaDeadlineCheck: a reservation that reaches Redis after classify answered 500
 * must not count a call that got no verdict), attempt ('' when none), copy (this call's own
 * id), memory (ms the attempt's hash is kept: ATTEMPT_MEMORY_MS).
 * Returns { state, used, reachedAt, retryAfterMs, reservedDay, thresholds, previous } with state
 * 0 under, 1 grace, 2 paused; on paused nothing is reserved (reservedDay -1) unless another copy
 * of the attempt was admitted (then this one is too: it is the same call).
 *
 * Webhook events (DESIGN's `usage.threshold` and `workspace.state`) are decided here, in the
 * same atomic call, so N classify replicas raise each one once and a call pays no round trip
 * for them. The quota hash keeps `state` (the last state an event was raised for; a paid plan
 * is always "under" for events: it is never paused) and `t80` / `t100` (when 80 % and 100 % of
 * a Free allowance were last raised: again only a window later). `thresholds` is a bit set of
 * those raised by this call (1: 80 %, 2: 100 %), `previous` the state before this call's change
 * of state, -1 when none. Mode "observe" does the bookkeeping of "reserve" (window, reachedAt,
 * events) without counting: the management API runs it after a plan or allowance change.
 */
export const ADMIT = `${luaDeadlineCheck(9)}
local now = tonumber(ARGV[1])
local dayMs = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local allowance = tonumber(ARGV[4])
local grace = tonumber(ARGV[5])
local paid = ARGV[6] == 'paid'
local reserve = ARGV[7] == 'reserve'
local observe = reserve or ARGV[7] == 'observe'
local today = math.floor(now / dayMs)
local first = today - window + 1

local flat = redis.call('HGETALL', KEYS[1])
local days = {}
local used = 0
for i = 1, #flat, 2 do
  local day = tonumber(flat[i])
  local count = tonumber(flat[i + 1])
  if day < first then
    if observe then redis.call('HDEL', KEYS[1], flat[i]) end
  else
    used = used + count
    days[#days + 1] = { day, count }
  end
end

local quota = redis.call('HMGET', KEYS[2], 'reachedAt', 'state', 't80', 't100')
local reachedAt = tonumber(quota[1])
local state = 0
local retryAfter = 0
if used >= allowance then
  if not reachedAt then
    reachedAt = now
    if observe then redis.call('HSET', KEYS[2], 'reachedAt', now) end
  end
  state = 1
  if not paid and now >= reachedAt + grace then
    state = 2
    -- Paused until enough old days leave the window to bring usage under the allowance.
    table.sort(days, function(a, b) return a[1] < b[1] end)
    local remaining = used
    retryAfter = window * dayMs
    for _, entry in ipairs(days) do
      remaining = remaining - entry[2]
      if remaining < allowance then
        retryAfter = (entry[1] + window) * dayMs - now
        break
      end
    end
  end
elseif reachedAt then
  reachedAt = nil
  if observe then redis.call('HDEL', KEYS[2], 'reachedAt') end
end

local reservedDay = -1
local attempt = ARGV[10]
if reserve and attempt ~= '' and redis.call('EXISTS', KEYS[4]) == 1 then
  redis.call('HSET', KEYS[4], 'c:' .. ARGV[11], 1)
  redis.call('PEXPIRE', KEYS[4], ARGV[12])
  reservedDay = tonumber(redis.call('HGET', KEYS[4], 'day'))
elseif reserve and state ~= 2 then
  redis.call('HINCRBY', KEYS[1], today, 1)
  redis.call('HINCRBY', KEYS[3], ARGV[8], 1)
  -- The hash outlives its newest day by the window, then nothing in it can count.
  redis.call('PEXPIRE', KEYS[1], (today + window + 1) * dayMs - now)
  reservedDay = today
  used = used + 1
  if used >= allowance and not reachedAt then
    reachedAt = now
    redis.call('HSET', KEYS[2], 'reachedAt', now)
    if state == 0 then state = 1 end
  end
  if attempt ~= '' then
    redis.call('HSET', KEYS[4], 'c:' .. ARGV[11], 1, 'day', today, 'month', ARGV[8])
    redis.call('PEXPIRE', KEYS[4], ARGV[12])
  end
end

local thresholds = 0
local previous = -1
if observe then
  local windowMs = window * dayMs
  local changed = false
  local eventState = state
  if paid then eventState = 0 end
  local stored = tonumber(quota[2]) or 0
  if eventState ~= stored then
    previous = stored
    changed = true
    if eventState == 0 then
      redis.call('HDEL', KEYS[2], 'state')
    else
      redis.call('HSET', KEYS[2], 'state', eventState)
    end
  end
  if not paid then
    local t80 = tonumber(quota[3])
    if used >= math.ceil(allowance * 0.8) and (not t80 or now - t80 >= windowMs) then
      redis.call('HSET', KEYS[2], 't80', now)
      thresholds = thresholds + 1
      changed = true
    end
    local t100 = tonumber(quota[4])
    if used >= allowance and (not t100 or now - t100 >= windowMs) then
      redis.call('HSET', KEYS[2], 't100', now)
      thresholds = thresholds + 2
      changed = true
    end
  end
  -- The event marks outlive the window they guard, then go (a hash under nothing leaves itself).
  if changed then redis.call('PEXPIRE', KEYS[2], 2 * windowMs) end
end
return { state, used, reachedAt or -1, retryAfter, reservedDay, thresholds, previous }
`;

/**
 * Gives back a reservation whose call was not answered (503, 500): the call is not counted. A
 * copy of an attempt leaves the attempt's hash; the count goes back only when no other copy
 * holds it (then from the day and month it went to), and the hash with it, so a later copy
 * counts afresh. An attempt's hash gone already (kept far longer than any call runs) gives back
 * as a call without an attempt does.
 * KEYS[1] usage hash, KEYS[2] quota hash, KEYS[3] monthly totals, KEYS[4] the attempt's;
 * ARGV: now, dayMs, windowDays, allowance (the head it shares with ADMIT), day, month, attempt
 * ('' when none), copy. Returns the usage left, or -1 when other copies hold the count.
 */
export const RELEASE = `
local day = ARGV[5]
local month = ARGV[6]
if ARGV[7] ~= '' and redis.call('HDEL', KEYS[4], 'c:' .. ARGV[8]) == 1 then
  -- 'day' and 'month' are the hash's other two fields.
  if redis.call('HLEN', KEYS[4]) > 2 then return -1 end
  day = redis.call('HGET', KEYS[4], 'day')
  month = redis.call('HGET', KEYS[4], 'month')
  redis.call('DEL', KEYS[4])
end
local left = redis.call('HINCRBY', KEYS[1], day, -1)
if left <= 0 then redis.call('HDEL', KEYS[1], day) end
redis.call('HINCRBY', KEYS[3], month, -1)
local first = math.floor(tonumber(ARGV[1]) / tonumber(ARGV[2])) - tonumber(ARGV[3]) + 1
local flat = redis.call('HGETALL', KEYS[1])
local used = 0
for i = 1, #flat, 2 do
  if tonumber(flat[i]) >= first then used = used + tonumber(flat[i + 1]) end
end
if used < tonumber(ARGV[4]) then redis.call('HDEL', KEYS[2], 'reachedAt') end
return used
`;
