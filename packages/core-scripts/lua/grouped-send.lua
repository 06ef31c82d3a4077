--[[ grouped-send: append a message to the back of its group, once per deduplication ID within its window.
The grouped queue's send (queue README "Message groups"), on the grouped queue's keys
(includes/leases-grouped.lua): the entry joins the stream with its group, its ID joins the back of
the group's backlog (a list), and a group whose backlog was empty joins the back of the ready ring. With a
deduplication window, a repeat within the window returns the original entry ID and appends nothing.

KEYS[1]  stream: grouped stream                 (stream: fields payload, group, headers when any)
KEYS[2]  ready: ready ring                      (sorted set: group ID -> position)
KEYS[3]  backlog: the group's backlog           (list: entry IDs in send order; gone when empty)
KEYS[4]  deduplicationKey: deduplication key of this ID   (string: the original entry ID, with PX expiry; unused when windowMs is 0)
KEYS[5]  ungroupedStream: the ungrouped queue's stream    (must not exist)
KEYS[6]  inflight: messages in flight per group   (hash: group ID -> count; fair groups only)
ARGV[1]  payload: message payload               (bytes)
ARGV[2]  groupId: the message's group           (1..1024 bytes)
ARGV[3]  windowMs: deduplication window         (ms, 1..2^31-1; 0 without a deduplication ID)
ARGV[4]  concurrency: most messages of a group in flight   (1: ordered groups; 2..1000: fair groups)
ARGV[5]  headers: the message's encoded headers   (bytes, src/formats/headers.ts; '' for none)

Reply    { entryId: string, duplicate: flag }
         duplicate = 1 when the ID was seen within the window: entryId is then the original
         entry's ID, nothing is appended and the window is not extended; 0 when the payload was
         appended.
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XADD on the stream, RPUSH on the backlog, ZADD on the ring, SET on the key), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include types
--@include leases-grouped

respire_require_acl()
local stream, ready, backlog, dedup = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local window = tonumber(ARGV[3])
respire_grouped_expect_mode(KEYS[5])
if window > 0 then
  respire_expect_type(dedup, 'string')
  local original = redis.call('GET', dedup)
  if original then
    return { original, 1 }
  end
end
-- Reads first (a key of another type fails a read or the first write, before anything changed).
-- An idle group (an empty backlog) joins the ring; a fair group only with room for one more in flight.
local join = respire_typed_call(backlog, 'list', 'LLEN', backlog) == 0
if join and tonumber(ARGV[4]) > 1 then
  join = (tonumber(respire_typed_call(KEYS[6], 'hash', 'HGET', KEYS[6], ARGV[2])) or 0) < tonumber(ARGV[4])
end
local ring_tail = nil
if join then ring_tail = respire_grouped_tail(ready) end
respire_allow(stream, 'XADD', stream, '*', 'payload', 'x', 'group', 'x', 'headers', 'x')
respire_allow(backlog, 'RPUSH', backlog, 'x')
if join then respire_allow(ready, 'ZADD', ready, '1', 'x') end
if window > 0 then respire_allow(dedup, 'SET', dedup, 'x', 'PX', '1') end
local fields = { 'payload', ARGV[1], 'group', ARGV[2] }
if ARGV[5] ~= '' then
  fields[5] = 'headers'
  fields[6] = ARGV[5]
end
local id = respire_typed_call(stream, 'stream', 'XADD', stream, '*', unpack(fields))
redis.call('RPUSH', backlog, id)
if join then redis.call('ZADD', ready, respire_int((ring_tail or 0) + 1), ARGV[2]) end
if window > 0 then redis.call('SET', dedup, id, 'PX', ARGV[3]) end
return { id, 0 }
