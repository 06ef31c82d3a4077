--[[ include: worker-dead-letters - a stream worker's dead-letter record format
A stream worker's dead-letter record: five field/value pairs of metadata, in this order,
  _respire.source_id        the source entry's ID
  _respire.group            the consumer group (at most 256 bytes)
  _respire.attempt          the delivery count, in decimal
  _respire.reason           explicit, nack, processing-failed or delivery-limit (at most 64 bytes)
  _respire.exception_type   the exception's type for a processing failure, else empty (at most 256 bytes)
then the source entry's fields unchanged and in order: at least one pair, at most 1,024. The one
writer and reader of the format in Lua; src/formats/worker-dead-letters.ts is the one in
TypeScript (test/formats.test.ts checks that they agree).

  respire_worker_dead_letter_allow(dead, probe)
                                 raises RESPIRE_NOPERM unless the user may append a record to
                                 `dead` (probe: an entry ID for the check)
  respire_worker_dead_letter_check(id, fields)
                                 raises RESPIRE_TOO_MANY_FIELDS when the entry `id` has more than
                                 1,024 field/value pairs
  respire_worker_dead_letter_add(dead, source_id, group, attempt, reason, exception_type, fields)
                                 appends a record (XADD *)
  respire_worker_dead_letter_problem(fields)
                                 -> nil for a record of this format, else what is wrong
  respire_worker_dead_letter_original(fields)
                                 -> the source entry's fields of a record of this format
]]
--@include acl

local RESPIRE_WORKER_DEAD_LETTER_META = { '_respire.source_id', '_respire.group', '_respire.attempt', '_respire.reason', '_respire.exception_type' }
local RESPIRE_MAX_FIELD_PAIRS = 1024

local function respire_worker_dead_letter_allow(dead, probe)
  respire_allow(dead, 'XADD', dead, '*', '_respire.source_id', probe)
end

local function respire_worker_dead_letter_check(id, fields)
  if #fields > 2 * RESPIRE_MAX_FIELD_PAIRS then
    error({ err = 'RESPIRE_TOO_MANY_FIELDS entry ' .. id .. ' has more than ' .. RESPIRE_MAX_FIELD_PAIRS .. ' field/value pairs' })
  end
end

local function respire_worker_dead_letter_add(dead, source_id, group, attempt, reason, exception_type, fields)
  return redis.call('XADD', dead, '*',
    '_respire.source_id', source_id,
    '_respire.group', group,
    '_respire.attempt', attempt,
    '_respire.reason', reason,
    '_respire.exception_type', exception_type,
    unpack(fields))
end

local function respire_worker_dead_letter_problem(fields)
  for i = 1, #RESPIRE_WORKER_DEAD_LETTER_META do
    if fields[2 * i - 1] ~= RESPIRE_WORKER_DEAD_LETTER_META[i] then return 'pair ' .. i .. ' is not ' .. RESPIRE_WORKER_DEAD_LETTER_META[i] end
  end
  if not string.match(fields[6], '^%d+$') then return '_respire.attempt is not a whole number' end
  if #fields < 12 then return 'no original fields after the five _respire.* pairs' end
  if #fields > 2 * (RESPIRE_MAX_FIELD_PAIRS + 5) then return 'more than 1,024 original field/value pairs' end
  return nil
end

local function respire_worker_dead_letter_original(fields)
  local original = {}
  for f = 11, #fields do original[#original + 1] = fields[f] end
  return original
end
