--[[ include: entry-ids - the stream entry ID format, read and compared
Stream entry IDs, "<ms>-<seq>": two decimal whole numbers, each below 2^64. Redis writes them
without leading zeros and reads leading zeros as it reads any number. The one reader of the format
in Lua; src/formats/entry-ids.ts is the one in TypeScript (test/formats.test.ts checks that they
agree).

  respire_entry_id_parts(id)      -> ms, seq: the two parts as Redis writes them (no leading zeros),
                                     or nil when `id` is not an entry ID
  respire_entry_id_compare(a, b)  -> -1, 0 or 1: the order of two entry IDs, exact past 2^53 (where
                                     Lua's numbers are not); nil unless both are entry IDs
  respire_entry_id_before(a, b)   -> true when entry ID `a` is older than `b`, both as Redis wrote
                                     them (no leading zeros: IDs read from Redis, not from a caller);
                                     no pattern matching and no new strings in the usual cases
]]
local RESPIRE_MAX_ID_PART = '18446744073709551615'

local function respire_id_part(digits)
  digits = string.gsub(digits, '^0+(%d)', '%1')
  if #digits > 20 or (#digits == 20 and digits > RESPIRE_MAX_ID_PART) then return nil end
  return digits
end

local function respire_entry_id_parts(id)
  if type(id) ~= 'string' then return nil end
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  if not ms then return nil end
  ms, seq = respire_id_part(ms), respire_id_part(seq)
  if not ms or not seq then return nil end
  return ms, seq
end

local function respire_compare_digits(x, y)
  if #x ~= #y then return #x < #y and -1 or 1 end
  if x == y then return 0 end
  return x < y and -1 or 1
end

local function respire_entry_id_compare(a, b)
  local am, as = respire_entry_id_parts(a)
  local bm, bs = respire_entry_id_parts(b)
  if not am or not bm then return nil end
  local c = respire_compare_digits(am, bm)
  if c ~= 0 then return c end
  return respire_compare_digits(as, bs)
end

-- IDs without leading zeros: a shorter ms part is older; with ms parts of one length, IDs of one
-- length compare as strings (the dash at the same place), else the ms parts decide unless equal,
-- and then the shorter seq part is older.
local function respire_entry_id_before(a, b)
  local da, db = string.find(a, '-', 1, true), string.find(b, '-', 1, true)
  if da ~= db then return da < db end
  if #a == #b then return a < b end
  local ma, mb = string.sub(a, 1, da), string.sub(b, 1, db)
  if ma ~= mb then return ma < mb end
  return #a < #b
end
