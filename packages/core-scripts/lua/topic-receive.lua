--[[ topic-receive: recover a subscription's due publications, dead-letter exhausted ones, then lease new ones.
A topic subscription's receive (queue README "Reliable topic"), on the lease engine
(includes/leases-receive.lua) with the subscription's consumer group on the topic's stream as its
source (includes/leases-subscription.lua): the queue's receive, except that new publications come
through the subscription's own group, which must exist, and settling only acknowledges.

Recovery is bounded: at most `max` due entries of this subscription are examined per call. A due
entry whose publication a retention bound trimmed is acknowledged, counted in the trimmed hash and
takes no slot, unless it is a retried dead letter: its body is then read from the retried hash.

KEYS[1]  stream: the topic's publications      (stream)
KEYS[2]  deadlines: the subscription's delivery deadlines   (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
KEYS[3]  deadLetter: the subscription's dead-letter stream  (stream)
KEYS[4]  trimmed: publications trimmed before completion, per subscription   (hash: subscription -> count)
KEYS[5]  retried: the subscription's retried dead letters    (hash: "<entry ID>" -> payload, "<entry ID>:headers" -> headers)
ARGV[1]  visibilityTimeoutMs: visibility timeout   (ms, 1..2^31-1)
ARGV[2]  max: most messages                    (messages, 1..1000)
ARGV[3]  deliveryLimit: delivery limit         (deliveries, >= 1)
ARGV[4]  token: receipt token of this call     (16 URL-safe characters, client-generated)
ARGV[5]  group: the subscription's consumer group and consumer name

Reply    { deadLettered: int, ...entries: { id: string, payload: bytes, deliveryCount: int, headers: bytes } }
         as queue-receive.
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM, RESPIRE_UNSUPPORTED, RESPIRE_NOGROUP
]]
--@include acl
--@include leases-subscription

respire_require_acl()
local source = respire_subscription_source(KEYS[1], ARGV[5], KEYS[4], KEYS[5])
local deadlines, dead = KEYS[2], KEYS[3]
local visibility, max, limit, token = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
--@include leases-receive
