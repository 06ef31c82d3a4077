--[[ topic-publish: append a publication (once per deduplication ID within its window), then apply retention.
A reliable topic's publish (queue README "Reliable topic"): one entry on the topic's stream
whatever the number of subscriptions, in a queue entry's format (includes/queue-entries.lua:
payload, then headers when it has any); with a deduplication ID, the queue's rules (a repeat within
the window returns the original entry ID and appends nothing). Then the topic's retention
(includes/topic-retention.lua) trims at most `trimLimit` of the oldest publications that no
subscription needs or that a bound excludes.

KEYS[1]  stream: the topic's publications      (stream)
KEYS[2]  deduplicationKey: deduplication key of this ID, unused when windowMs is 0   (string: the original entry ID, with PX expiry)
KEYS[3]  trimmed: publications trimmed before completion, per subscription   (hash: subscription -> count)
ARGV[1]  payload: publication payload          (bytes)
ARGV[2]  windowMs: deduplication window, 0 without a deduplication ID   (ms, 0..2^31-1)
ARGV[3]  maxAgeMs: retention bound by age, 0 for none   (ms, 0..2^31-1)
ARGV[4]  maxLength: retention bound by length, 0 for none   (publications, 0..2^31-1)
ARGV[5]  trimLimit: most publications trimmed by this call   (publications, 1..1000)
ARGV[6]  headers: the publication's encoded headers, empty for none   (bytes: src/formats/headers.ts)

Reply    { entryId: string, duplicate: flag, trimmed: int }
         duplicate = 1 when the ID was seen within the window: entryId is then the original
         entry's ID and nothing is appended or trimmed; trimmed is the number of publications
         retention removed.
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XADD, SET, XTRIM, HINCRBY), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include types
--@include topic-retention
--@include queue-entries

respire_require_acl()
local stream, dedup, trimmed = KEYS[1], KEYS[2], KEYS[3]
local window = tonumber(ARGV[2])
if window > 0 then
  respire_expect_type(dedup, 'string')
  local original = redis.call('GET', dedup)
  if original then return { original, 1, 0 } end
end
respire_topic_retention_allow(stream, trimmed)
respire_allow(stream, 'XADD', stream, '*', 'payload', 'x')
if window > 0 then respire_allow(dedup, 'SET', dedup, 'x', 'PX', '1') end
-- Planned before the first write (its reads could be refused too); the new entry is the newest:
-- no subscription has had it and no bound takes it.
local plan = respire_topic_retention_plan(stream, tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), 1)
local id = redis.call('XADD', stream, '*', unpack(respire_queue_entry_fields(ARGV[1], nil, ARGV[6])))
if window > 0 then redis.call('SET', dedup, id, 'PX', window) end
if plan.count > 0 and not plan.keep then plan.keep = id end
return { id, 0, respire_topic_retention_apply(stream, trimmed, plan) }
