--[[ include: leases-subscription - a topic subscription as the lease engine's source of messages
A reliable topic subscription's source of messages for the lease engine (leases.lua, included after
this file): the topic's shared stream, whose new entries are taken through the subscription's own
consumer group (named as the subscription, also its one consumer). The group is made only by the
subscription's create (topic-subscribe.lua): taking from a missing group is RESPIRE_NOGROUP, never
an implicit create. Settling a message only acknowledges it in the group (XACK): the publication
stays for the other subscriptions, and the topic's retention (topic-retention.lua) trims it once no
subscription needs it. A due message whose publication a retention bound trimmed is settled and
counted in the topic's trimmed hash (field: the subscription).

A retried dead letter (admin-retry-subscription-dead-letters.lua) is a member "<id>:0" of the
deadlines index whose body is also copied into the subscription's retried hash (field "<id>" the
payload, "<id>:headers" the headers when it had any): its body is read from the stream while the
publication is retained, else from that hash, so retention never drops it. Settling deletes its
fields from the hash.

  respire_subscription_source(stream, group, trimmed, retried)
                                       -> the source for the respire_leases_* functions; `trimmed`
                                          (the topic's counters hash) may be nil where no body is
                                          read; `retried` the subscription's retried hash
  respire_source_check(source)         RESPIRE_WRONGTYPE unless the stream is missing or a stream and
                                       the trimmed and retried hashes missing or hashes
  respire_source_body(source, id)      -> the field list of entry `id` (from the retried hash when
                                          the publication is gone), or nil when it is gone from
                                          both (counted)
  respire_source_allow_take(source)    RESPIRE_NOPERM unless the user may read new entries (XREADGROUP)
  respire_source_take(source, count)   -> up to `count` new entries (XREADGROUP >); RESPIRE_NOGROUP
                                          when the subscription was never created (or was removed)
  respire_source_due(fields)           -> nil: a publication is due at once (none is delayed)
  respire_source_headers(fields)       -> the message's encoded headers as a queue entry keeps them
                                          (queue-entries.lua), '' for none
  respire_source_plan_settle(source)   checks XACK (HINCRBY when bodies were gone, HDEL when the
                                       retried hash exists)
  respire_source_settle(source, ids)   acknowledges `ids` in the group, deletes their retried
                                       copies; counts the gone ones
]]
--@include server
--@include acl
--@include types
--@include queue-entries

local function respire_subscription_source(stream, group, trimmed, retried)
  return { stream = stream, group = group, trimmed = trimmed, retried = retried, gone = 0 }
end

local function respire_source_check(source)
  respire_expect_type(source.stream, 'stream')
  if source.trimmed then respire_expect_type(source.trimmed, 'hash') end
  respire_expect_type(source.retried, 'hash')
end

local function respire_source_body(source, id)
  local entry = redis.call('XRANGE', source.stream, id, id)[1]
  if entry then return entry[2] end
  local kept = redis.call('HMGET', source.retried, id, id .. ':headers')
  if kept[1] then
    if kept[2] then return { 'payload', kept[1], 'headers', kept[2] } end
    return { 'payload', kept[1] }
  end
  source.gone = source.gone + 1
  return nil
end

local function respire_source_allow_take(source)
  local stream, group = source.stream, source.group
  respire_allow(stream, 'XREADGROUP', 'GROUP', group, group, 'COUNT', '1', 'STREAMS', stream, '>')
end

-- A missing group (or stream) is XREADGROUP's only failure here, and nothing has changed when it fails.
local function respire_source_take(source, count)
  local stream, group = source.stream, source.group
  local read = redis.pcall('XREADGROUP', 'GROUP', group, group, 'COUNT', count, 'STREAMS', stream, '>')
  if type(read) == 'table' and read.err then
    if string.find(read.err, 'NOGROUP', 1, true) then
      error({ err = 'RESPIRE_NOGROUP the subscription ' .. group .. ' of ' .. stream .. ' does not exist: create it first' })
    end
    error(read)
  end
  if read and read[1] then return read[1][2] end
  return {}
end

local function respire_source_due(_)
  return nil
end

local function respire_source_headers(fields)
  return respire_queue_entry_headers(fields)
end

-- The plan: whether the retried hash exists (only then does settling delete from it).
local function respire_source_plan_settle(source)
  respire_allow(source.stream, 'XACK', source.stream, source.group, '0-1')
  if source.gone > 0 then respire_allow(source.trimmed, 'HINCRBY', source.trimmed, source.group, '1') end
  -- TYPE rather than EXISTS: the ack path never ran respire_source_check, and a key of another
  -- type must fail here, before the first write.
  local found = redis.call('TYPE', source.retried)
  found = found.ok or found
  if found == 'none' then return false end
  if found ~= 'hash' then
    error({ err = 'RESPIRE_WRONGTYPE ' .. source.retried .. ' holds a ' .. found .. ', expected a hash' })
  end
  respire_allow(source.retried, 'HDEL', source.retried, 'x')
  return true
end

local function respire_source_settle(source, ids, retried)
  local stream, group = source.stream, source.group
  respire_typed_call(stream, 'stream', 'XACK', stream, group, unpack(ids))
  if retried then
    local fields = {}
    for _, id in ipairs(ids) do
      fields[#fields + 1] = id
      fields[#fields + 1] = id .. ':headers'
    end
    redis.call('HDEL', source.retried, unpack(fields))
  end
  if source.gone > 0 then
    redis.call('HINCRBY', source.trimmed, group, source.gone)
    source.gone = 0
  end
end
