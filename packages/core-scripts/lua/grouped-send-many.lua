--[[ grouped-send-many: append a batch of messages, each to the back of its group, once per deduplication ID.
The grouped queue's sendMany (queue README "Message groups", "Batch send"), on the grouped queue's
keys (includes/leases-grouped.lua): each item is appended in order as grouped-send appends one
(stream entry, back of its group's backlog, its group at the back of the ready ring when the group
was idle and, for fair groups, has room), unless its deduplication key holds an entry ID (the
window is open): then that original ID is its result and nothing is appended. Items sharing a
deduplication ID: the first is appended, the rest are its duplicates. Items of one group keep their
batch order in the group. Every key type and permission is checked before the first write, except
a backlog's type: a backlog of another type fails its RPUSH, and the call then removes everything it
wrote (entries, backlog pushes, ring joins, deduplication keys; a stream it created) before the
error, so the error leaves the keys as they were.

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

-- Plan: every read first (a key of another type fails here, before any write), except the
-- backlogs: an RPUSH's reply (the backlog's new length) tells whether its group was idle, which
-- saves a read per message, and a backlog of another type fails its RPUSH, which then undoes what
-- this call wrote (respire_undo_sends) before the error. The loops run once per message: they count
-- rather than use `#t + 1`, and read ARGV, KEYS and redis.call from locals (a global is a table
-- lookup by name).
local ARGV, KEYS, redis_call, redis_pcall = ARGV, KEYS, redis.call, redis.pcall
local originals = {}
-- Each item's key indexes, parsed once (tonumber of a string is a strtod).
local backlogOf, dedupOf = {}, {}
local last = #ARGV
for i = 2, last, 6 do
  local backlog, dedup = tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
  backlogOf[i], dedupOf[i] = backlog, dedup
  if dedup > 0 and originals[dedup] == nil then
    originals[dedup] = respire_typed_call(KEYS[dedup], 'string', 'GET', KEYS[dedup]) or false
  end
end
local streamType = redis_call('TYPE', stream)
streamType = streamType.ok or streamType
if streamType ~= 'none' and streamType ~= 'stream' then respire_expect_type(stream, 'stream') end
respire_expect_type(ready, 'zset')
if concurrency > 1 then respire_expect_type(inflight, 'hash') end
respire_allow(stream, 'XADD', stream, '*', 'payload', 'x', 'group', 'x', 'headers', 'x')
-- One backlog's RPUSH permission stands for all (they share the queue's key prefix); a user refused
-- another backlog alone fails its RPUSH, undone like a backlog of another type.
if last >= 2 then respire_allow(KEYS[backlogOf[2]], 'RPUSH', KEYS[backlogOf[2]], 'x') end
respire_allow(ready, 'ZADD', ready, '1', 'x')
for dedup, original in pairs(originals) do
  if not original then respire_allow(KEYS[dedup], 'SET', KEYS[dedup], 'x', 'PX', '1') end
end

-- What this call wrote, for respire_undo_sends: the appended entry IDs, the backlogs pushed to
-- (one ID each, at the back), the groups that joined the ring and the deduplication keys set.
local appended, pushed, joined, set, w, jn, sn = {}, {}, {}, {}, 0, 0, 0
local function respire_undo_sends(failed, failure)
  for k = w - 1, 1, -1 do redis_call('RPOP', pushed[k]) end
  if jn > 0 then redis_call('ZREM', ready, unpack(joined, 1, jn)) end
  if sn > 0 then redis_call('DEL', unpack(set, 1, sn)) end
  redis_call('XDEL', stream, unpack(appended, 1, w))
  if streamType == 'none' then redis_call('DEL', stream) end
  if string.find(failure.err, 'WRONGTYPE', 1, true) then respire_typed_call(failed, 'list', 'RPUSH', failed, 'x') end
  if string.find(failure.err, 'NOPERM', 1, true) then
    error({ err = 'RESPIRE_NOPERM RPUSH on ' .. failed .. ' is not permitted for this user' })
  end
  error(failure)
end

local reply, r, ringTail = {}, 0, nil
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
    w = w + 1
    appended[w] = id
    local key = KEYS[backlog]
    pushed[w] = key
    local length = redis_pcall('RPUSH', key, id)
    if type(length) == 'table' then respire_undo_sends(key, length) end
    -- An idle group (its backlog was empty) joins the ring with its first message; a fair group
    -- only with room for one more in flight.
    if length == 1 and (concurrency == 1 or (tonumber(redis_call('HGET', inflight, ARGV[i + 1])) or 0) < concurrency) then
      ringTail = (ringTail or respire_grouped_tail(ready) or 0) + 1
      -- A group already on the ring (its backlog emptied behind the queue's back) only moves back.
      if redis_call('ZADD', ready, respire_int(ringTail), ARGV[i + 1]) == 1 then
        jn = jn + 1
        joined[jn] = ARGV[i + 1]
      end
    end
    if dedup > 0 then
      redis_call('SET', KEYS[dedup], id, 'PX', ARGV[i + 4])
      sn = sn + 1
      set[sn] = KEYS[dedup]
      -- A later item with the same ID in this batch is its duplicate.
      originals[dedup] = id
    end
    reply[r + 1] = id
    reply[r + 2] = 0
  end
  r = r + 2
end
return reply
