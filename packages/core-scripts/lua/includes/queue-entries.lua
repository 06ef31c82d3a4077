--[[ include: queue-entries - a reliable queue's stream entry format
A reliable queue's message, as an entry of its stream: the field/value pairs payload (the
message's bytes), then optionally due (the server time in whole ms before which it must not be
delivered, in decimal: a delayed send) and headers (the message's headers, in the format of
src/formats/headers.ts, copied as bytes and never read in Lua), in that order. An entry of only
payload is a plain XADD: the hot path. The one writer and reader of the format in Lua;
src/formats/queue-entries.ts is the one in TypeScript (test/formats.test.ts checks that they agree).

  respire_queue_entry_fields(payload, due, headers)
                                     -> the entry's field list; `due` nil or a whole ms number,
                                        `headers` nil or '' for none
  respire_queue_entry_due(fields)    -> the due time (ms) of an entry's field list, or nil
  respire_queue_entry_headers(fields)
                                     -> the headers field's bytes, or '' when it has none
]]
--@include server

local function respire_queue_entry_fields(payload, due, headers)
  local fields = { 'payload', payload }
  if due then
    fields[3] = 'due'
    fields[4] = respire_int(due)
  end
  if headers and headers ~= '' then
    fields[#fields + 1] = 'headers'
    fields[#fields + 1] = headers
  end
  return fields
end

local function respire_queue_entry_due(fields)
  -- A plain entry has only its payload: no scan.
  if #fields <= 2 then return nil end
  for f = 3, #fields, 2 do
    if fields[f] == 'due' then return tonumber(fields[f + 1]) end
  end
  return nil
end

local function respire_queue_entry_headers(fields)
  if #fields <= 2 then return '' end
  for f = 3, #fields, 2 do
    if fields[f] == 'headers' then return fields[f + 1] end
  end
  return ''
end
