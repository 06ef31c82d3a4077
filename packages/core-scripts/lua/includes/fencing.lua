--[[ include: fencing
Seed 002: a stale handler cannot complete a delivery that was recovered by another owner or
attempt, even under the same consumer name; an operator's pending action is fenced the same way.

  respire_pending_entry(stream, group, id)
      -> the XPENDING entry { id, consumer, idle ms, delivery count } of `id`, or nil when it is not
         pending in `group` (also for a missing stream or group); RESPIRE_WRONGTYPE when `stream`
         holds another type
  respire_fence(stream, group, id, consumer, count)
      -> that entry when `id` is still pending to `consumer` at delivery count `count`; nil otherwise
]]
local function respire_pending_entry(stream, group, id)
  local pending = redis.pcall('XPENDING', stream, group, id, id, 1)
  if type(pending) == 'table' and pending.err then
    if string.find(pending.err, 'NOGROUP', 1, true) then return nil end
    if string.find(pending.err, 'WRONGTYPE', 1, true) then
      error({ err = 'RESPIRE_WRONGTYPE ' .. stream .. ' holds another type, expected a stream' })
    end
    error(pending)
  end
  return pending[1]
end

local function respire_fence(stream, group, id, consumer, count)
  local entry = respire_pending_entry(stream, group, id)
  if not entry or entry[2] ~= consumer or tonumber(entry[4]) ~= tonumber(count) then return nil end
  return entry
end
