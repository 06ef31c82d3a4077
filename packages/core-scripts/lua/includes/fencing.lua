--[[ include: fencing - fencing a worker's completions by XPENDING owner and delivery count
A stale handler cannot complete a delivery that was recovered by another owner or attempt, even
under the same consumer name (worker README, "Results"); an operator's pending action is fenced
the same way.

  respire_pending_entry(stream, group, id)
      -> the XPENDING entry { id, consumer, idle ms, delivery count } of `id`, or nil when it is not
         pending in `group` (also for a missing stream or group); RESPIRE_WRONGTYPE when `stream`
         holds another type
  respire_fence(stream, group, id, consumer, count)
      -> that entry when `id` is still pending to `consumer` at delivery count `count`; nil otherwise
  respire_fence_batch(stream, group, consumer, first, last, ids, counts)
      -> passed: passed[i] is the XPENDING entry of ids[i] when it is still pending to `consumer`
         at delivery count counts[i]; nil otherwise, and for a repeated ID's later positions. One
         XPENDING over first..last (the batch's lowest and highest IDs, as the caller computed
         them) filtered to `consumer`, paged (exclusive start, Redis 6.2+) while IDs are missing
         and pages come back full: the range may also hold other entries the consumer owns. An ID
         outside first..last is never found, so a wrong range can only make a delivery stale.
]]
local function respire_xpending(stream, ...)
  local pending = redis.pcall('XPENDING', stream, ...)
  if type(pending) == 'table' and pending.err then
    if string.find(pending.err, 'NOGROUP', 1, true) then return nil end
    if string.find(pending.err, 'WRONGTYPE', 1, true) then
      error({ err = 'RESPIRE_WRONGTYPE ' .. stream .. ' holds another type, expected a stream' })
    end
    error(pending)
  end
  return pending
end

local function respire_pending_entry(stream, group, id)
  local pending = respire_xpending(stream, group, id, id, 1)
  return pending and pending[1]
end

local function respire_fence(stream, group, id, consumer, count)
  local entry = respire_pending_entry(stream, group, id)
  if not entry or entry[2] ~= consumer or tonumber(entry[4]) ~= tonumber(count) then return nil end
  return entry
end

local function respire_fence_batch(stream, group, consumer, first, last, ids, counts)
  local n = #ids
  local passed, position, missing = {}, {}, 0
  for i = 1, n do
    local id = ids[i]
    if not position[id] then
      position[id] = i
      missing = missing + 1
    end
  end
  local start = first
  while missing > 0 do
    local page = respire_xpending(stream, group, start, last, n, consumer)
    if not page then return passed end
    local size = #page
    for j = 1, size do
      local entry = page[j]
      local i = position[entry[1]]
      if i then
        position[entry[1]] = nil
        missing = missing - 1
        if tonumber(entry[4]) == tonumber(counts[i]) and entry[2] == consumer then passed[i] = entry end
      end
    end
    if size < n then return passed end
    start = '(' .. page[size][1]
  end
  return passed
end
