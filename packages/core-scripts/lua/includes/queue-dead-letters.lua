--[[ include: queue-dead-letters - the lease engine's (a queue's) dead-letter record format
A dead-letter record of the lease engine (a reliable queue's, leases.lua): the field/value pairs
payload (the message's bytes), source_id (its entry ID) and delivery_count (the deliveries made,
in decimal), in that order, then headers (the message's encoded headers, copied as bytes) when it
had any. The one writer and reader of the format in Lua;
src/formats/queue-dead-letters.ts is the one in TypeScript (test/formats.test.ts checks that they
agree).

  respire_queue_dead_letter_allow(dead)     raises RESPIRE_NOPERM unless the user may append a record
                                            to `dead`
  respire_queue_dead_letter_add(dead, payload, source_id, count, headers)
                                            appends a record (XADD *); `headers` nil or '' for none
  respire_queue_dead_letter_problem(fields) -> nil for a record of this format, else what is wrong
  respire_queue_dead_letter_payload(fields) -> the payload of a record of this format
  respire_queue_dead_letter_headers(fields) -> the headers of a record of this format ('' for none)
]]
--@include server
--@include acl

local function respire_queue_dead_letter_allow(dead)
  respire_allow(dead, 'XADD', dead, '*', 'payload', 'x', 'source_id', '0-1', 'delivery_count', '1')
end

local function respire_queue_dead_letter_add(dead, payload, source_id, count, headers)
  if headers and headers ~= '' then
    return redis.call('XADD', dead, '*', 'payload', payload, 'source_id', source_id, 'delivery_count', respire_int(count), 'headers', headers)
  end
  return redis.call('XADD', dead, '*', 'payload', payload, 'source_id', source_id, 'delivery_count', respire_int(count))
end

local function respire_queue_dead_letter_problem(fields)
  local withHeaders = #fields == 8 and fields[7] == 'headers'
  if (#fields ~= 6 and not withHeaders) or fields[1] ~= 'payload' or fields[3] ~= 'source_id' or fields[5] ~= 'delivery_count' then
    return 'fields are not payload, source_id, delivery_count (and headers)'
  end
  if not string.match(fields[6], '^%d+$') then return 'delivery_count is not a whole number' end
  return nil
end

local function respire_queue_dead_letter_payload(fields)
  return fields[2]
end

local function respire_queue_dead_letter_headers(fields)
  return fields[8] or ''
end
