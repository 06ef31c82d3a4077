--[[ include: receipts - the receipt and deadlines-index member format
The receipt of a leased delivery and the member that holds it in a deadlines index (leases.lua):
  "<entry ID>:<receipt>"          while leased; receipt = "<delivery count>.<token>.<position>",
                                  the token (16 URL-safe characters) made once per receive call
                                  and the position (from 1) the message's place in that batch, so
                                  no two leased messages share a receipt
  "<entry ID>:<delivery count>"   once NACK revoked the receipt
The one writer and reader of the format in Lua; src/formats/receipts.ts is the one in TypeScript
(test/formats.test.ts checks that they agree).

  respire_receipt(count, token, position)   the receipt of a leased delivery
  respire_member(id, state)                 the member of an entry in a state (a receipt or a count)
  respire_parse_member(member)              -> entry ID, delivery count (0 when unparsable), and the
                                               receipt (nil once revoked)
]]
--@include server

-- One '%d' format (printf's integer path) for both numbers: two '%.0f' formats cost about a
-- microsecond a leased message. Counts and positions are whole numbers far below 2^53.
local function respire_receipt(count, token, position)
  return string.format('%d.%s.%d', count, token, position)
end

local function respire_member(id, state)
  return id .. ':' .. state
end

local function respire_parse_member(member)
  local id, count, rest = string.match(member, '^([^:]+):(%d+)(.*)$')
  local receipt = nil
  if rest and rest ~= '' then receipt = count .. rest end
  return id, tonumber(count) or 0, receipt
end
