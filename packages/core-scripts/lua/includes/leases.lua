--[[ include: leases
Delivery metadata of the reliable queue lives in one sorted set, the deadlines: each member is
"<entry ID>:<state>", scored with its deadline (whole ms, server clock). The state is the
receipt "<deliveryCount>.<token>.<position>" while leased (the receive call's token plus the
message's position in its batch, so no two leased messages share a receipt), or just
"<deliveryCount>" once NACK revoked the receipt (the score is then the due time). An entry has
one member at a time. A lease is valid while now < deadline (now with microseconds); at the
deadline itself the entry is due. Deadlines round up, so a lease is never shorter than asked.

  respire_member(id, state)        the deadlines member of an entry in a state
  respire_parse_member(member)     -> entry ID, delivery count (0 when unparsable)
  respire_payload(fields)          the 'payload' field of a stream entry's field list ('' if absent)
  respire_valid_receipts(deadlines, ids, receipts, now)
      -> list of positions i whose receipts[i] still holds the lease on ids[i]
         (a repeated ID counts once: its later positions are already completed)
]]
local function respire_member(id, state)
  return id .. ':' .. state
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

local function respire_valid_receipts(deadlines, ids, receipts, now)
  local members = {}
  for i = 1, #ids do members[i] = respire_member(ids[i], receipts[i]) end
  local scores = respire_typed_call(deadlines, 'zset', 'ZMSCORE', deadlines, unpack(members))
  local valid, seen = {}, {}
  for i = 1, #ids do
    local id, score = ids[i], scores[i]
    if score and tonumber(score) > now and not seen[id] then
      seen[id] = true
      valid[#valid + 1] = i
    end
  end
  return valid, members
end
