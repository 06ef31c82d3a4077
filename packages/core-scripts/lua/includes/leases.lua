--[[ include: leases
Delivery metadata of the reliable queue lives in one sorted set, the deadlines: each member is
"<entry ID>:<state>", scored with its deadline (whole ms, server clock). The state is the
receipt "<deliveryCount>.<token>.<position>" while leased (the receive call's token plus the
message's position in its batch, so no two leased messages share a receipt), or just
"<deliveryCount>" once NACK revoked the receipt (the score is then the due time). An entry has
one member at a time. A lease is valid while now < deadline (now with microseconds); at the
deadline itself the entry is due. Deadlines round up, so a lease is never shorter than asked.

  respire_member(id, state)        the deadlines member of an entry in a state
  respire_receipt(count, token, position)
                                   the receipt of a leased delivery (src/receipts.ts reads it)
  respire_parse_member(member)     -> entry ID, delivery count (0 when unparsable)
  respire_payload(fields)          the 'payload' field of a stream entry's field list ('' if absent)
  respire_held_leases(deadlines, first, now)
      -> ids, valid, members, reply: ARGV[first..] read as entry ID, receipt pairs; `valid` lists
         the positions i whose receipt still holds the lease on ids[i] (a repeated ID counts once:
         its later positions are already completed); `reply` has a 0 per pair
  respire_plan_ack_delete(stream, group)
                                   -> true for XACKDEL (Redis 8.2+, permitted), false for XACK + XDEL,
                                      whose permissions it checks
  respire_ack_delete(stream, group, ids, native)
                                   acknowledges and deletes `ids` as planned; may be the first write
]]
--@include server
--@include types

local function respire_member(id, state)
  return id .. ':' .. state
end

local function respire_receipt(count, token, position)
  return respire_int(count) .. '.' .. token .. '.' .. respire_int(position)
end

local function respire_parse_member(member)
  local id, count = string.match(member, '^([^:]+):(%d+)')
  return id, tonumber(count) or 0
end

local function respire_payload(fields)
  for f = 1, #fields, 2 do
    if fields[f] == 'payload' then return fields[f + 1] end
  end
  return ''
end

local function respire_held_leases(deadlines, first, now)
  local ids, members, reply = {}, {}, {}
  for i = first, #ARGV, 2 do
    ids[#ids + 1] = ARGV[i]
    members[#members + 1] = respire_member(ARGV[i], ARGV[i + 1])
    reply[#reply + 1] = 0
  end
  local scores = respire_typed_call(deadlines, 'zset', 'ZMSCORE', deadlines, unpack(members))
  local valid, seen = {}, {}
  for i = 1, #ids do
    local id, score = ids[i], scores[i]
    if score and tonumber(score) > now and not seen[id] then
      seen[id] = true
      valid[#valid + 1] = i
    end
  end
  return ids, valid, members, reply
end

local function respire_plan_ack_delete(stream, group)
  if respire_has_xackdel(stream, group) then return true end
  respire_allow(stream, 'XACK', stream, group, '0-1')
  respire_allow(stream, 'XDEL', stream, '0-1')
  return false
end

local function respire_ack_delete(stream, group, ids, native)
  if native then
    respire_typed_call(stream, 'stream', 'XACKDEL', stream, group, 'IDS', #ids, unpack(ids))
  else
    respire_typed_call(stream, 'stream', 'XACK', stream, group, unpack(ids))
    redis.call('XDEL', stream, unpack(ids))
  end
end
