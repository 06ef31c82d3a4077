--[[ grouped-send-many: append a batch of messages, each to the back of its group, once per deduplication ID.
The grouped queue's sendMany (queue README "Message groups", "Batch send"), on the grouped queue's
keys (includes/leases-grouped.lua): each item is appended in order as grouped-send appends one
(stream entry, back of its group's backlog, its group at the back of the ready ring when the group
was idle and, for fair groups, has room), unless its deduplication key holds an entry ID (the
window is open): then that original ID is its result and nothing is appended. Items sharing a
deduplication ID: the first is appended, the rest are its duplicates. Items of one group keep their
batch order in the group. Every key type and permission is checked before the first write.

KEYS[1]  stream: grouped stream                 (stream: fields payload, group, headers when any)
KEYS[2]  ready: ready ring                      (sorted set: group ID -> position)
KEYS[3]  ungroupedStream: the ungrouped queue's stream    (must not exist)
KEYS[4]  inflight: messages in flight per group   (hash: group ID -> count; fair groups only)
KEYS[5..] batchKeys: the batch's group backlogs and deduplication keys   (each once; items name them by index)
ARGV[1]  concurrency: most messages of a group in flight   (1: ordered groups; 2..1000: fair groups)
ARGV[2..] items: per item payload, group ID, backlog key index, deduplication key index (0: none), window (ms), headers (bytes, '' for none)

Reply    { ...results: { entryId: string, duplicate: flag } }   per item, in order: duplicate = 1 when
         its deduplication ID was seen within the window (entryId is then the original's); 0 when appended
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XADD on the stream, RPUSH on a backlog, ZADD on the ring, SET on a deduplication key), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include types
--@include leases-grouped

respire_require_acl()
local stream, ready, inflight = KEYS[1], KEYS[2], KEYS[4]
local concurrency = tonumber(ARGV[1])
respire_grouped_expect_mode(KEYS[3])

-- Plan: every read first (a key of another type fails here, before any write). The loops run once
-- per message: they count rather than use `#t + 1`, and read ARGV, KEYS and redis.call from locals
-- (a global is a table lookup by name).
local ARGV, KEYS, redis_call, redis_pcall = ARGV, KEYS, redis.call, redis.pcall
local originals, idle, groupOf = {}, {}, {}
-- Each item's key indexes, parsed once (tonumber of a string is a strtod).
local backlogOf, dedupOf = {}, {}
local last = #ARGV
for i = 2, last, 6 do
  local backlog, dedup = tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
  backlogOf[i], dedupOf[i] = backlog, dedup
  if dedup > 0 and originals[dedup] == nil then
    originals[dedup] = respire_typed_call(KEYS[dedup], 'string', 'GET', KEYS[dedup]) or false
  end
  if groupOf[backlog] == nil then
    groupOf[backlog] = ARGV[i + 1]
    -- An idle group (an empty backlog) joins the ring with its first message; a fair group only with room for one more in flight.
    local key = KEYS[backlog]
    local length = redis_pcall('LLEN', key)
    if type(length) == 'table' then length = respire_typed_call(key, 'list', 'LLEN', key) end
    idle[backlog] = length == 0
  end
end
local joins = false
for backlog, group in pairs(groupOf) do
  if idle[backlog] and concurrency > 1 then
    idle[backlog] = (tonumber(respire_typed_call(inflight, 'hash', 'HGET', inflight, group)) or 0) < concurrency
  end
  joins = joins or idle[backlog]
end
local ringTail = joins and (respire_grouped_tail(ready) or 0) or 0
respire_expect_type(stream, 'stream')
respire_allow(stream, 'XADD', stream, '*', 'payload', 'x', 'group', 'x', 'headers', 'x')
for backlog in pairs(groupOf) do
  respire_allow(KEYS[backlog], 'RPUSH', KEYS[backlog], 'x')
end
if joins then respire_allow(ready, 'ZADD', ready, '1', 'x') end
for dedup, original in pairs(originals) do
  if not original then respire_allow(KEYS[dedup], 'SET', KEYS[dedup], 'x', 'PX', '1') end
end

local reply, r = {}, 0
for i = 2, last, 6 do
  local backlog, dedup = backlogOf[i], dedupOf[i]
  local original = dedup > 0 and originals[dedup]
  if original then
    reply[r + 1] = original
    reply[r + 2] = 1
  else
    local id
    if ARGV[i + 5] ~= '' then
      id = redis_call('XADD', stream, '*', 'payload', ARGV[i], 'group', ARGV[i + 1], 'headers', ARGV[i + 5])
    else
      id = redis_call('XADD', stream, '*', 'payload', ARGV[i], 'group', ARGV[i + 1])
    end
    redis_call('RPUSH', KEYS[backlog], id)
    if idle[backlog] then
      ringTail = ringTail + 1
      redis_call('ZADD', ready, respire_int(ringTail), ARGV[i + 1])
      idle[backlog] = false
    end
    if dedup > 0 then
      redis_call('SET', KEYS[dedup], id, 'PX', ARGV[i + 4])
      -- A later item with the same ID in this batch is its duplicate.
      originals[dedup] = id
    end
    reply[r + 1] = id
    reply[r + 2] = 0
  end
  r = r + 2
end
return reply
