--[[ include: leases
Delivery metadata of the reliable queue. The deliveries hash maps an entry ID to
"<deliveryCount>.<token>.<index>" while leased (that string is the receipt: the receive call's
token plus the message's position in its batch, so no two leased messages share a receipt) and
to "<deliveryCount>" once the receipt was revoked by NACK. The deadlines sorted set scores each
entry ID with its lease deadline or NACK due time (whole ms, server clock). A lease is valid
while now < deadline (now with microseconds); at the deadline itself the entry is due. Deadlines
round up, so a lease is never shorter than requested.

  respire_payload(fields)        the value of the 'payload' field of a stream entry's field list ('' if absent)
  respire_delivery_count(meta)   the delivery count stored in a deliveries value (0 when nil)
  respire_valid_receipts(deliveries, deadlines, ids, receipts, now)
      -> list of positions i whose receipts[i] still holds the lease on ids[i]
         (a repeated ID counts once: its later positions are already completed)
]]
local function respire_payload(fields)
  for f = 1, #fields, 2 do
    if fields[f] == 'payload' then return fields[f + 1] end
  end
  return ''
end

local function respire_delivery_count(meta)
  if not meta then return 0 end
  return tonumber(string.match(meta, '^(%d+)')) or 0
end

local function respire_valid_receipts(deliveries, deadlines, ids, receipts, now)
  local metas = redis.call('HMGET', deliveries, unpack(ids))
  local scores = redis.call('ZMSCORE', deadlines, unpack(ids))
  local valid, seen = {}, {}
  for i = 1, #ids do
    local id, meta, score = ids[i], metas[i], scores[i]
    if meta and meta == receipts[i] and score and tonumber(score) > now and not seen[id] then
      seen[id] = true
      valid[#valid + 1] = i
    end
  end
  return valid
end
