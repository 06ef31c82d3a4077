--[[ topic-unsubscribe: remove a subscription: its consumer group, deadlines index, wake stream and counter.
A reliable topic's subscription remove (queue README "Reliable topic"): destroys the subscription's
consumer group (its position and pending entries list), deletes its deadlines index (every receipt
it issued is stale from now on), its retried dead letters' copies and its wake stream, and its field of the trimmed hash. Publications it held are
released to retention. Its dead-letter stream is kept: its records are the user's.

KEYS[1]  stream: the topic's publications      (stream)
KEYS[2]  deadlines: the subscription's delivery deadlines   (sorted set)
KEYS[3]  trimmed: publications trimmed before completion, per subscription   (hash: subscription -> count)
KEYS[4]  wake: the subscription's wake stream   (stream of at most one entry)
KEYS[5]  retried: the subscription's retried dead letters    (hash)
ARGV[1]  group: the subscription's consumer group

Reply    flag   1 removed; 0 there was no such subscription (its other keys are removed all the same)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XGROUP DESTROY, DEL, HDEL), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include types

respire_require_acl()
local stream, deadlines, trimmed, wake, retried, group = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[1]
respire_expect_type(stream, 'stream')
respire_expect_type(deadlines, 'zset')
respire_expect_type(trimmed, 'hash')
respire_expect_type(wake, 'stream')
respire_expect_type(retried, 'hash')
respire_allow(stream, 'XGROUP', 'DESTROY', stream, group)
respire_allow(deadlines, 'DEL', deadlines)
respire_allow(wake, 'DEL', wake)
respire_allow(retried, 'DEL', retried)
respire_allow(trimmed, 'HDEL', trimmed, group)
local removed = 0
if redis.call('EXISTS', stream) == 1 then removed = redis.call('XGROUP', 'DESTROY', stream, group) end
redis.call('DEL', deadlines, wake, retried)
redis.call('HDEL', trimmed, group)
return removed
