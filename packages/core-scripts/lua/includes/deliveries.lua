--[[ include: deliveries
An operator's view of one queue delivery: found by the deadline the operator was shown, never by
its receipt (which the admin never exposes).

  respire_delivery_at(deadlines, id, untilMs)
      -> member, delivery count, leased: the deadlines member of entry `id` scored exactly
         `untilMs` (its lease deadline, or its due time after NACK), the delivery count it
         records, and whether it holds a receipt (leased) or not (delayed); nil when no member of
         that entry has that score (completed, redelivered, NACKed or released meanwhile). One
         ZRANGEBYSCORE over that one score: members scored alike are the only ones read.
]]
--@include types
--@include leases

local function respire_delivery_at(deadlines, id, untilMs)
  local members = respire_typed_call(deadlines, 'zset', 'ZRANGEBYSCORE', deadlines, untilMs, untilMs)
  for _, member in ipairs(members) do
    local found, count = respire_parse_member(member)
    if found == id then return member, count, string.find(member, '.', 1, true) ~= nil end
  end
  return nil
end
