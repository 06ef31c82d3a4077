--[[ topic-publish-many: append publications in one atomic step, then apply retention.
A reliable topic's publishMany (queue README "Reliable topic"): one entry per payload, in order,
all or none; then the topic's retention (includes/topic-retention.lua) trims at most `trimLimit`
of the oldest publications that no subscription needs or that a bound excludes. No deduplication:
that is publish's.

KEYS[1]  stream: the topic's publications      (stream)
KEYS[2]  trimmed: publications trimmed before completion, per subscription   (hash: subscription -> count)
ARGV[1]  maxAgeMs: retention bound by age, 0 for none   (ms, 0..2^31-1)
ARGV[2]  maxLength: retention bound by length, 0 for none   (publications, 0..2^31-1)
ARGV[3]  trimLimit: most publications trimmed by this call   (publications, 1..1000)
ARGV[4..] payloads: the publications' payloads, in order   (bytes; 1..1000)

Reply    { trimmed: int, ...entries: { id: string } }
         the number of publications retention removed, then each new entry's ID in order
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XADD, XTRIM, HINCRBY), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include types
--@include topic-retention

respire_require_acl()
local stream, trimmed = KEYS[1], KEYS[2]
local count = #ARGV - 3
respire_topic_retention_allow(stream, trimmed)
respire_allow(stream, 'XADD', stream, '*', 'payload', 'x')
-- Planned before the first write; the new entries are the newest and never trimmed.
local plan = respire_topic_retention_plan(stream, tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), count)
local reply = { 0 }
for i = 4, #ARGV do
  reply[#reply + 1] = redis.call('XADD', stream, '*', 'payload', ARGV[i])
end
if plan.count > 0 and not plan.keep then plan.keep = reply[2] end
reply[1] = respire_topic_retention_apply(stream, trimmed, plan)
return reply
