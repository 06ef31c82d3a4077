--[[ worker-complete: fenced completion of a batch of deliveries to one consumer.
A stale handler cannot acknowledge, release or dead-letter a delivery that was recovered by another
owner or attempt, even under the same consumer name (worker README, "Results"). Each delivery is completed only while XPENDING shows it pending to this consumer at its
delivery count; otherwise it is stale and nothing is done for it. The whole batch is fenced by one
XPENDING over its ID range filtered to the consumer (paged until every ID is seen or the range is
exhausted; the range may also hold other entries this consumer owns). Then, all in this call:
- acknowledgements: one XACK, or XACKDEL ACKED with ARGV[3] = '1' on Redis 8.2+ (not Valkey);
- releases: on Redis 8.8+ one XNACK FAIL of those whose idle time reached ARGV[4] (delivery
  count kept); the others, and every release on older servers, stay pending for idle recovery;
- dead letters (Redis 7+): for each, a record with a new ID whose first five field/value pairs
  are _respire.source_id, _respire.group, _respire.attempt, _respire.reason and
  _respire.exception_type, then the original fields in order, and an XACK of the source (its body
  is kept); a source whose body was deleted is acknowledged without a record.
Every check (destination type, field count, XRANGE, XACK, XACKDEL, XNACK and XADD permission) runs
before the first write, so a refusal changes nothing for any delivery of the batch.

KEYS[1]  stream: source stream                 (stream)
KEYS[2]  deadLetter: dead-letter stream        (stream, same slot, different key; the source
                                                stream itself when none is configured, and then
                                                no completion may be a dead letter)
ARGV[1]  group: consumer group                 (<= 256 bytes with dead letters)
ARGV[2]  consumer: consumer name               (the reader that received every delivery)
ARGV[3]  deleteAcknowledged: delete acknowledged entries   ('1' or '0')
ARGV[4]  minimumIdleTimeMs: minimum idle time before a release   (ms, 1..2^31-1)
ARGV[5]  first: the lowest entry ID of the batch
ARGV[6]  last: the highest entry ID of the batch   (an ID outside first..last is reported stale)
ARGV[7..] completions: per delivery: entry ID, delivery count (from Redis, >= 1), action
                       ('ack', 'release' or 'dead-letter'); a 'dead-letter' is followed by its
                       reason (explicit | nack | processing-failed | delivery-limit) and exception
                       type (<= 256 bytes; empty unless a processing failure)

Reply    [1 acknowledged | 0 pending | 2 released | 3 deadLettered | 4 deleted | -1 stale]
         one per delivery, in order: 1 acknowledged; 0 left pending for idle recovery; 2 released
         with XNACK FAIL; 3 dead-lettered (record appended, source acknowledged); 4 a dead letter
         whose source body was deleted: acknowledged without a record; -1 stale (not pending to
         this consumer at this delivery count, the group is gone, or the ID repeats an earlier
         delivery of the batch)
Errors   RESPIRE_NOPERM (XACK, XACKDEL, XNACK, XRANGE, XADD), RESPIRE_WRONGTYPE (source or
         destination), RESPIRE_UNSUPPORTED (a dead letter on Redis < 7: no redis.acl_check_cmd),
         RESPIRE_TOO_MANY_FIELDS (a dead letter with more than 1,024 field/value pairs)
Server   Redis 6.2+ (exclusive XPENDING ranges); XACKDEL ACKED on 8.2+; XNACK on 8.8+; dead letters
         need Redis 7+.
]]
--@include server
--@include types
--@include fencing
--@include worker-dead-letters

local stream, dead = KEYS[1], KEYS[2]
local group, consumer, deleteAcked, minIdle = ARGV[1], ARGV[2], ARGV[3] == '1', tonumber(ARGV[4])

-- The batch: ids[n], counts[n], actions[n]; a dead letter's reason and exception type follow it.
local ids, counts, actions, details = {}, {}, {}, {}
local n, i, argc = 0, 7, #ARGV
while i <= argc do
  n = n + 1
  local action = ARGV[i + 2]
  ids[n], counts[n], actions[n] = ARGV[i], ARGV[i + 1], action
  if action == 'dead-letter' then
    details[n] = i + 3
    i = i + 5
  else
    i = i + 3
  end
end
-- Dead-letter completion checks every permission up front, which needs redis.acl_check_cmd.
if next(details) then respire_require_acl() end

local pending = respire_fence_batch(stream, group, consumer, ARGV[5], ARGV[6], ids, counts)
local reply, acks, releases, letters = {}, {}, {}, {}
for k = 1, n do
  local action = actions[k]
  if not pending[k] then
    reply[k] = -1
  elseif action == 'ack' then
    reply[k] = 1
    acks[#acks + 1] = ids[k]
  elseif action == 'release' then
    reply[k] = 0
    releases[#releases + 1] = k
  else
    reply[k] = 4
    letters[#letters + 1] = k
  end
end

-- Checks, before any write.
local version = respire_redis_version()
local nativeAckDelete = deleteAcked and version >= 0x080200
if acks[1] then
  if nativeAckDelete then
    respire_allow(stream, 'XACKDEL', stream, group, 'ACKED', 'IDS', '1', acks[1])
  else
    respire_allow(stream, 'XACK', stream, group, acks[1])
  end
end
local nacks = {}
if releases[1] and version >= 0x080800 then
  for _, k in ipairs(releases) do
    if tonumber(pending[k][3]) >= minIdle then nacks[#nacks + 1] = ids[k] end
  end
  if nacks[1] then respire_allow(stream, 'XNACK', stream, group, 'FAIL', 'IDS', '1', nacks[1]) end
end
local bodies, sources = {}, {}
if letters[1] then
  local probe = ids[letters[1]]
  respire_expect_type(dead, 'stream')
  respire_allow(stream, 'XRANGE', stream, probe, probe)
  respire_allow(stream, 'XACK', stream, group, probe)
  respire_worker_dead_letter_allow(dead, probe)
  for j, k in ipairs(letters) do
    local body = redis.call('XRANGE', stream, ids[k], ids[k])[1]
    if body then respire_worker_dead_letter_check(ids[k], body[2]) end
    bodies[j] = body or false
    sources[j] = ids[k]
  end
end

-- Writes. XNACK first: a server without it (an unknown command) leaves the releases pending.
if nacks[1] then
  local nacked = redis.pcall('XNACK', stream, group, 'FAIL', 'IDS', #nacks, unpack(nacks))
  if type(nacked) == 'table' and nacked.err then
    if not string.find(string.lower(nacked.err), 'unknown command', 1, true) then error(nacked) end
  else
    for _, k in ipairs(releases) do
      if tonumber(pending[k][3]) >= minIdle then reply[k] = 2 end
    end
  end
end
if letters[1] then
  for j, k in ipairs(letters) do
    local body, at = bodies[j], details[k]
    if body then
      respire_worker_dead_letter_add(dead, ids[k], group, counts[k], ARGV[at], ARGV[at + 1], body[2])
      reply[k] = 3
    end
  end
  -- Dead-letter completion keeps the source body: XACK, never XACKDEL.
  redis.call('XACK', stream, group, unpack(sources))
end
if acks[1] then
  if nativeAckDelete then
    redis.call('XACKDEL', stream, group, 'ACKED', 'IDS', #acks, unpack(acks))
  else
    redis.call('XACK', stream, group, unpack(acks))
  end
end
return reply
