--[[ include: leases-receive - the lease engine's receive: recovery, dead letters, new leases
The lease engine's receive (see leases.lua), included as the rest of a script after its source
and these locals:
  source      the source's keys              deadlines   the deadlines index
  dead        the dead-letter stream         visibility  the visibility timeout, ms
  max         most messages                  limit       the delivery limit
  token       the receipt token of this call
At most `max` due members (oldest first) are examined: those with deliveries left are leased again
(count + 1) and come first; exhausted ones (count >= limit) are appended to `dead` (the format of
queue-dead-letters.lua, headers kept, and the group when the source has `group_of`) and settled, taking no batch slot; vanished ones (body gone) are settled
and take no slot. New messages from the source fill the remaining slots; a new message not yet due
(respire_source_due) is parked instead, as "<id>:0" scored with its due time, taking no slot (the
source is read again for the slots left, at most 64 reads and 1000 parked entries per call).
Every key type and permission the call will use is checked before the first write. The reply is
{ deadLettered, id, payload, count, headers, ... } (headers '' for none), each leased message's
receipt "<count>.<token>.<position in the batch, from 1>"; a source whose table has `group_of` (a
function of a message's field list) adds that value after each message's headers (a grouped
queue's group ID).

  respire_payload(fields)  the 'payload' field of a message's field list ('' if absent)
]]
--@include leases
--@include queue-dead-letters

local RESPIRE_MAX_PARKED = 1000
local RESPIRE_MAX_TAKES = 64

local function respire_payload(fields)
  for f = 1, #fields, 2 do
    if fields[f] == 'payload' then return fields[f + 1] end
  end
  return ''
end

respire_source_check(source)
local now = respire_now_ms()
local deadline = respire_int(math.ceil(now) + visibility)

-- Plan: classify the due members before writing anything.
local redeliver, exhausted, vanished = {}, {}, {}
local due = respire_typed_call(deadlines, 'zset', 'ZRANGEBYSCORE', deadlines, '-inf', respire_ms(now), 'LIMIT', 0, max)
for _, member in ipairs(due) do
  local id, count = respire_parse_member(member)
  local fields = id and respire_source_body(source, id)
  if not fields then
    vanished[#vanished + 1] = id
  elseif count >= limit then
    exhausted[#exhausted + 1] = { id, respire_payload(fields), count, respire_source_headers(fields), source.group_of and source.group_of(fields) }
  else
    redeliver[#redeliver + 1] = { id, respire_payload(fields), count + 1, respire_source_headers(fields), fields }
  end
end
local slots = max - #redeliver

-- Preflight: every write this call will make.
if #exhausted > 0 then
  respire_expect_type(dead, 'stream')
  respire_queue_dead_letter_allow(dead)
end
-- What leaves the engine: the source checks its keys for these ids here, since the take below writes first.
local settled = {}
for _, entry in ipairs(exhausted) do settled[#settled + 1] = entry[1] end
for _, id in ipairs(vanished) do
  if id then settled[#settled + 1] = id end
end
local plan = nil
if #exhausted > 0 or #vanished > 0 then plan = respire_source_plan_settle(source, settled) end
if #due > 0 then respire_allow(deadlines, 'ZREM', deadlines, 'x') end
if slots > 0 then respire_source_allow_take(source) end
respire_allow(deadlines, 'ZADD', deadlines, '0', 'x')

-- Writes. Taking new messages goes first: nothing has changed yet if it fails.
local fresh, parked = {}, {}
local room, takes = slots, 0
while room > 0 do
  local want = room
  takes = takes + 1
  local taken, more = respire_source_take(source, want)
  for _, entry in ipairs(taken) do
    local due = respire_source_due(entry[2])
    if due and due > now then
      parked[#parked + 1] = respire_int(due)
      parked[#parked + 1] = respire_member(entry[1], '0')
    else
      fresh[#fresh + 1] = entry
      room = room - 1
    end
  end
  -- Parked entries take no slot, and a source may yield fewer than it passed over (`more`: a grouped
  -- queue's group whose messages were all deleted): take again, up to RESPIRE_MAX_PARKED parked or
  -- RESPIRE_MAX_TAKES takes per call.
  if (#taken < want and not more) or #parked >= 2 * RESPIRE_MAX_PARKED or takes >= RESPIRE_MAX_TAKES then break end
end

for _, entry in ipairs(exhausted) do
  respire_queue_dead_letter_add(dead, entry[2], entry[1], entry[3], entry[4], entry[5])
end
if #settled > 0 then respire_source_settle(source, settled, plan) end
if #due > 0 then redis.call('ZREM', deadlines, unpack(due)) end

local reply = { #exhausted }
local leases = {}
local group_of = source.group_of
local function lease(id, payload, count, headers, fields)
  local position = #leases / 2 + 1
  leases[#leases + 1] = deadline
  leases[#leases + 1] = respire_member(id, respire_receipt(count, token, position))
  reply[#reply + 1] = id
  reply[#reply + 1] = payload
  reply[#reply + 1] = count
  reply[#reply + 1] = headers
  if group_of then reply[#reply + 1] = group_of(fields) end
end
for _, entry in ipairs(redeliver) do lease(entry[1], entry[2], entry[3], entry[4], entry[5]) end
for _, entry in ipairs(fresh) do lease(entry[1], respire_payload(entry[2]), 1, respire_source_headers(entry[2]), entry[2]) end
for _, value in ipairs(parked) do leases[#leases + 1] = value end
if #leases > 0 then redis.call('ZADD', deadlines, unpack(leases)) end
return reply
