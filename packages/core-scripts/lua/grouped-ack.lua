--[[ grouped-ack: complete deliveries whose receipts still hold their leases, and advance their groups.
The grouped queue's ACK (queue README "Message groups"), on the lease engine
(includes/leases-complete.lua): it removes the head and its delivery metadata, and its group, when
it has more messages, joins the back of the ready ring; an expired, revoked, superseded or already
completed receipt changes nothing.

KEYS[1]  stream: grouped stream                 (stream: fields payload, group, headers when any)
KEYS[2]  deadlines: delivery deadlines          (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
KEYS[3]  ready: ready ring                      (sorted set: group ID -> position)
KEYS[4]  leased: heads in flight                (hash: entry ID -> group ID)
KEYS[5]  inflight: messages in flight per group   (hash: group ID -> count; fair groups only)
KEYS[6]  wake: wake stream                       (stream of at most one entry: appended to when a group moves on)
ARGV[1]  backlogPrefix: key prefix of the group backlogs   (the group ID follows)
ARGV[2]  concurrency: most messages of a group in flight   (1: ordered groups; 2..1000: fair groups)
ARGV[3..] receipts: entry ID, receipt, entry ID, receipt, ...   (1..1000 pairs)

Reply    [flag]   per receipt, in order: 1 acknowledged; 0 not (expired, revoked, superseded or completed)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XDEL, HDEL, ZREM, ZADD, XADD on the wake stream), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include leases-grouped

respire_require_acl()
local source = respire_grouped_source(KEYS[1], KEYS[3], KEYS[4], ARGV[1], nil, KEYS[5], tonumber(ARGV[2]), KEYS[6])
local deadlines, first = KEYS[2], 3
--@include leases-complete
