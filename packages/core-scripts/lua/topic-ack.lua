--[[ topic-ack: complete a subscription's deliveries whose receipts still hold their leases.
A topic subscription's ACK (queue README "Reliable topic"), on the lease engine
(includes/leases-complete.lua): it acknowledges the publication in the subscription's group (XACK,
never XDEL: other subscriptions may still need it) and removes the delivery metadata and the copy
of a retried dead letter (includes/leases-subscription.lua); an expired,
revoked, superseded or already completed receipt, or one of another subscription, changes nothing.

KEYS[1]  stream: the topic's publications      (stream)
KEYS[2]  deadlines: the subscription's delivery deadlines   (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
KEYS[3]  retried: the subscription's retried dead letters    (hash: "<entry ID>" -> payload, "<entry ID>:headers" -> headers)
ARGV[1]  group: the subscription's consumer group
ARGV[2..] receipts: entry ID, receipt, entry ID, receipt, ...   (1..1000 pairs)

Reply    [flag]   per receipt, in order: 1 acknowledged; 0 not (expired, revoked, superseded or completed)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XACK, ZREM, HDEL), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include leases-subscription

respire_require_acl()
local source = respire_subscription_source(KEYS[1], ARGV[1], nil, KEYS[3])
local deadlines, first = KEYS[2], 2
--@include leases-complete
