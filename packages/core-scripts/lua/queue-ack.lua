--[[ queue-ack: complete deliveries whose receipts still hold their leases.
The queue's ACK (README "The contract"), on the lease engine (includes/leases-complete.lua): it removes the
message and its delivery metadata; an expired, revoked, superseded or already completed receipt
changes nothing.

KEYS[1]  stream: ready stream                  (stream)
KEYS[2]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
ARGV[1]  group: consumer group                 (the queue's private group)
ARGV[2..] receipts: entry ID, receipt, entry ID, receipt, ...   (1..1000 pairs)

Reply    [flag]   per receipt, in order: 1 acknowledged; 0 not (expired, revoked, superseded or completed)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XACKDEL, or XACK and XDEL; ZREM), RESPIRE_UNSUPPORTED
Server   Redis 8.2+ (not Valkey) with XACKDEL permitted: XACKDEL; otherwise XACK + XDEL.
]]
--@include acl
--@include leases-queue

respire_require_acl()
local source = respire_queue_source(KEYS[1], ARGV[1])
local deadlines, first = KEYS[2], 2
--@include leases-complete
