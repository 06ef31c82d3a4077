--[[ queue-receive: recover due entries, dead-letter exhausted ones, then lease new entries.
The queue's receive (README "The contract": receive, dead letters), on the lease engine
(includes/leases-receive.lua) with the queue's stream and private group as its source
(includes/leases-queue.lua).

Recovery is bounded: at most `max` due entries (expired leases and due NACKs, oldest deadline
first) are examined per call. Each due entry with deliveries left is redelivered and takes a
batch slot; an exhausted one (delivery count >= limit) is moved to the dead-letter stream and
takes no slot; one whose body is gone is dropped from the metadata and takes no slot. Remaining
slots are filled with new entries through the private consumer group (created at '0' with
MKSTREAM when missing). Writes run only after every key type and every permission the call
will use has been checked.

KEYS[1]  stream: ready stream                  (stream)
KEYS[2]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
KEYS[3]  deadLetter: dead-letter stream        (stream)
ARGV[1]  visibilityTimeoutMs: visibility timeout   (ms, 1..2^31-1)
ARGV[2]  max: most messages                    (messages, 1..1000)
ARGV[3]  deliveryLimit: delivery limit         (deliveries, >= 1)
ARGV[4]  token: receipt token of this call     (16 URL-safe characters, client-generated)
ARGV[5]  group: consumer group and consumer name   (the queue's private group)

Reply    { deadLettered: int, ...entries: { id: string, payload: bytes, deliveryCount: int, headers: bytes } }
         the number of messages moved to the dead-letter stream, then the leased entries:
         redelivered entries first (oldest deadline first), then new entries in stream order; headers
         are the entry's encoded headers ('' for none);
         each receipt is "<count>.<token>.<position in the batch, from 1>".
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM, RESPIRE_UNSUPPORTED
]]
--@include acl
--@include leases-queue

respire_require_acl()
local source = respire_queue_source(KEYS[1], ARGV[5])
local deadlines, dead = KEYS[2], KEYS[3]
local visibility, max, limit, token = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
--@include leases-receive
