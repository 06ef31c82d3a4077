--[[ topic-trim: apply a reliable topic's retention once.
The topic's retention (queue README "Reliable topic": retention; includes/topic-retention.lua):
trims at most `trimLimit` of the oldest publications that no subscription needs or that a bound
excludes, counting per subscription the trimmed publications it had not been delivered.

KEYS[1]  stream: the topic's publications      (stream)
KEYS[2]  trimmed: publications trimmed before completion, per subscription   (hash: subscription -> count)
ARGV[1]  maxAgeMs: retention bound by age, 0 for none   (ms, 0..2^31-1)
ARGV[2]  maxLength: retention bound by length, 0 for none   (publications, 0..2^31-1)
ARGV[3]  trimLimit: most publications trimmed by this call   (publications, 1..1000)

Reply    int   the number of publications trimmed
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XTRIM, HINCRBY), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include topic-retention

respire_require_acl()
local stream, trimmed = KEYS[1], KEYS[2]
respire_topic_retention_allow(stream, trimmed)
local plan = respire_topic_retention_plan(stream, tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), 0)
return respire_topic_retention_apply(stream, trimmed, plan)
