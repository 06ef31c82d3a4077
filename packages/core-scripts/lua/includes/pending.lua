--[[ include: pending
Pending-entry lookups of the operator scripts (consumer groups of worker streams).

  respire_pending_entry(stream, group, id)
      -> the XPENDING entry { id, consumer, idle ms, delivery count } of `id`, or nil when it is not
         pending in `group` (also for a missing stream or group); RESPIRE_WRONGTYPE when `stream`
         holds another type
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
