--[[ include: leases-queue - a reliable queue as the lease engine's source of messages
A reliable queue's source of messages for the lease engine (leases.lua, included after this file):
its own stream, whose new entries are taken through the queue's private consumer group (created at
'0' with MKSTREAM when missing), which records only first delivery: redeliveries come from the
deadlines index. Settling a message deletes it: XACKDEL on Redis 8.2+ where the user may run it,
else XACK + XDEL.

  respire_queue_source(stream, group)  -> the source (its keys) for the respire_leases_* functions;
                                          the group is also its one consumer
  respire_source_check(source)         RESPIRE_WRONGTYPE unless the stream is missing or a stream
  respire_source_body(source, id)      -> the field list of entry `id`, or nil when it is gone
  respire_source_allow_take(source)    RESPIRE_NOPERM unless the user may read new entries (XREADGROUP)
  respire_source_take(source, count)   -> up to `count` new entries { { id, fields }, ... }
                                          (XREADGROUP >; creates the group when missing)
  respire_source_due(fields)           -> the due time (ms) of a delayed entry (queue-entries.lua), or nil
  respire_source_headers(fields)       -> the entry's encoded headers (queue-entries.lua), '' for none
  respire_source_plan_settle(source)   -> true for XACKDEL (Redis 8.2+, permitted), false for XACK +
                                          XDEL, whose permissions it checks
  respire_source_settle(source, ids, native)
                                       acknowledges and deletes `ids` as planned
]]
--@include server
--@include acl
--@include types
--@include queue-entries

local function respire_queue_source(stream, group)
  return { stream = stream, group = group }
end

local function respire_source_check(source)
  respire_expect_type(source.stream, 'stream')
end

local function respire_source_body(source, id)
  local entry = redis.call('XRANGE', source.stream, id, id)[1]
  return entry and entry[2]
end

local function respire_source_allow_take(source)
  local stream, group = source.stream, source.group
  respire_allow(stream, 'XREADGROUP', 'GROUP', group, group, 'COUNT', '1', 'STREAMS', stream, '>')
end

-- A missing group is XREADGROUP's only failure here, and nothing has changed when it fails.
local function respire_source_take(source, count)
  local stream, group = source.stream, source.group
  local read = redis.pcall('XREADGROUP', 'GROUP', group, group, 'COUNT', count, 'STREAMS', stream, '>')
  if type(read) == 'table' and read.err then
    if not string.find(read.err, 'NOGROUP', 1, true) then error(read) end
    respire_allow(stream, 'XGROUP', 'CREATE', stream, group, '0', 'MKSTREAM')
    redis.call('XGROUP', 'CREATE', stream, group, '0', 'MKSTREAM')
    read = redis.call('XREADGROUP', 'GROUP', group, group, 'COUNT', count, 'STREAMS', stream, '>')
  end
  if read and read[1] then return read[1][2] end
  return {}
end

local function respire_source_due(fields)
  return respire_queue_entry_due(fields)
end

local function respire_source_headers(fields)
  return respire_queue_entry_headers(fields)
end

local function respire_source_plan_settle(source)
  local stream, group = source.stream, source.group
  if respire_has_xackdel(stream, group) then return true end
  respire_allow(stream, 'XACK', stream, group, '0-1')
  respire_allow(stream, 'XDEL', stream, '0-1')
  return false
end

local function respire_source_settle(source, ids, native)
  local stream, group = source.stream, source.group
  if native then
    respire_typed_call(stream, 'stream', 'XACKDEL', stream, group, 'IDS', #ids, unpack(ids))
  else
    respire_typed_call(stream, 'stream', 'XACK', stream, group, unpack(ids))
    redis.call('XDEL', stream, unpack(ids))
  end
end
