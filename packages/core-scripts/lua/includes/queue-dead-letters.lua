--[[ include: queue-dead-letters - the lease engine's (a queue's) dead-letter record format
A dead-letter record of the lease engine (a reliable queue's, leases.lua): the field/value pairs
payload (the message's bytes), source_id (its entry ID) and delivery_count (the deliveries made,
in decimal), in that order, then headers (the message's encoded headers, copied as bytes) when it
had any, then group (its group ID) when it came from a grouped queue (leases-grouped.lua), so it can
be retried into its group; an ungrouped queue's record has no group field. The one writer and reader
of the format in Lua;
src/formats/queue-dead-letters.ts is the one in TypeScript (test/formats.test.ts checks that they
agree).

  respire_queue_dead_letter_allow(dead)     raises RESPIRE_NOPERM unless the user may append a record
                                            to `dead`
  respire_queue_dead_letter_add(dead, payload, source_id, count, headers, group)
                                            appends a record (XADD *); `headers` nil or '' for none,
                                            `group` nil or '' for an ungrouped queue's record
  respire_queue_dead_letter_problem(fields) -> nil for a record of this format (grouped or not), else
                                            what is wrong
  respire_queue_dead_letter_ungrouped_problem(fields)
                                         -> nil for an ungrouped record of this format, else what
                                            is wrong (a grouped record is refused: it has a group)
  respire_queue_dead_letter_grouped_problem(fields)
                                         -> nil for a grouped record of this format with a nonempty
                                            group of at most 1,024 bytes of well-formed UTF-8, else
                                            what is wrong
  respire_queue_dead_letter_payload(fields) -> the payload of a record of this format
  respire_queue_dead_letter_headers(fields) -> the headers of a record of this format ('' for none)
  respire_queue_dead_letter_group(fields)   -> the group of a record of this format (nil for none)
]]
--@include server
--@include acl

local function respire_queue_dead_letter_allow(dead)
  respire_allow(dead, 'XADD', dead, '*', 'payload', 'x', 'source_id', '0-1', 'delivery_count', '1')
end

local function respire_queue_dead_letter_add(dead, payload, source_id, count, headers, group)
  local fields = { 'payload', payload, 'source_id', source_id, 'delivery_count', respire_int(count) }
  if headers and headers ~= '' then
    fields[7] = 'headers'
    fields[8] = headers
  end
  if group and group ~= '' then
    fields[#fields + 1] = 'group'
    fields[#fields + 1] = group
  end
  return redis.call('XADD', dead, '*', unpack(fields))
end

-- The optional fields after the first three pairs: headers, then group, each at most once, in that order.
local function respire_queue_dead_letter_tail(fields)
  if #fields == 6 then return true end
  if #fields == 8 then return fields[7] == 'headers' or fields[7] == 'group' end
  return #fields == 10 and fields[7] == 'headers' and fields[9] == 'group'
end

local function respire_queue_dead_letter_problem(fields)
  if not respire_queue_dead_letter_tail(fields) or fields[1] ~= 'payload' or fields[3] ~= 'source_id' or fields[5] ~= 'delivery_count' then
    return 'fields are not payload, source_id, delivery_count (and headers, group)'
  end
  if not string.match(fields[6], '^%d+$') then return 'delivery_count is not a whole number' end
  return nil
end

local function respire_queue_dead_letter_group(fields)
  if fields[#fields - 1] == 'group' and #fields > 6 then return fields[#fields] end
  return nil
end

local function respire_queue_dead_letter_ungrouped_problem(fields)
  local problem = respire_queue_dead_letter_problem(fields)
  if problem then return problem end
  if respire_queue_dead_letter_group(fields) then
    return "a grouped queue's record (it has a group field): retry it into its group (admin-retry-grouped-dead-letters)"
  end
  return nil
end

-- The most bytes of a group ID (the queue's MAX_GROUP_ID_BYTES: queue README "Message groups").
local RESPIRE_MAX_GROUP_ID_BYTES = 1024

-- Whether `s` is well-formed UTF-8 (no stray, overlong or surrogate sequences), as every group ID a
-- send accepts is: JavaScript text without lone surrogates, sent as UTF-8. ASCII needs no walk.
local function respire_utf8_well_formed(s)
  if not string.find(s, '[\128-\255]') then return true end
  local i, n = 1, #s
  while i <= n do
    local c = string.byte(s, i)
    local more, low, high = 0, 0x80, 0xBF
    if c < 0x80 then
      more = 0
    elseif c >= 0xC2 and c <= 0xDF then
      more = 1
    elseif c >= 0xE0 and c <= 0xEF then
      more = 2
      if c == 0xE0 then low = 0xA0 elseif c == 0xED then high = 0x9F end
    elseif c >= 0xF0 and c <= 0xF4 then
      more = 3
      if c == 0xF0 then low = 0x90 elseif c == 0xF4 then high = 0x8F end
    else
      return false
    end
    if i + more > n then return false end
    for j = 1, more do
      local b = string.byte(s, i + j)
      if j == 1 then
        if b < low or b > high then return false end
      elseif b < 0x80 or b > 0xBF then
        return false
      end
    end
    i = i + more + 1
  end
  return true
end

local function respire_queue_dead_letter_grouped_problem(fields)
  local problem = respire_queue_dead_letter_problem(fields)
  if problem then return problem end
  local group = respire_queue_dead_letter_group(fields)
  if not group then
    return "an ungrouped queue's record (it has no group field): it names no group to retry it into"
  end
  if group == '' then return 'group is empty: it names no group to retry it into' end
  -- A longer group, or one of bytes that are not UTF-8 text, is none a send accepts, so no grouped
  -- queue wrote the record: retrying it would make a group that no send can name (the queue's
  -- groupId: 1..1024 bytes of well-formed text).
  if #group > RESPIRE_MAX_GROUP_ID_BYTES then return 'group is longer than 1,024 bytes: not a group ID a send accepts' end
  if not respire_utf8_well_formed(group) then return 'group is not well-formed UTF-8: not a group ID a send accepts' end
  return nil
end

local function respire_queue_dead_letter_payload(fields)
  return fields[2]
end

local function respire_queue_dead_letter_headers(fields)
  if fields[7] == 'headers' then return fields[8] end
  return ''
end
