--[[ include: fencing
Seed 002: a stale handler cannot complete a delivery that was recovered by another owner or
attempt, even under the same consumer name.

  respire_fence(stream, group, id, consumer, count)
      -> the XPENDING entry { id, consumer, idle ms, delivery count } when `id` is still pending to
         `consumer` at delivery count `count`; nil otherwise (also for a missing stream or group)
]]
local function respire_fence(stream, group, id, consumer, count)
  local pending = redis.pcall('XPENDING', stream, group, id, id, 1)
  if type(pending) ~= 'table' or pending.err then
    if type(pending) == 'table' and pending.err and string.find(pending.err, 'NOGROUP', 1, true) then return nil end
    if type(pending) == 'table' and pending.err then error(pending) end
    return nil
  end
  local entry = pending[1]
  if not entry then return nil end
  if entry[2] ~= consumer or tonumber(entry[4]) ~= tonumber(count) then return nil end
  return entry
end
