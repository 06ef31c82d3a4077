--[[ grouped-receive: recover due heads, dead-letter exhausted ones, then lease the heads of ready groups.
The grouped queue's receive (queue README "Message groups"), on the lease engine
(includes/leases-receive.lua) with the grouped queue's ring of group heads as its source
(includes/leases-grouped.lua).

Recovery is as the queue's (at most `max` due heads, oldest deadline first; exhausted ones are
dead-lettered and their groups advance). Remaining slots take the heads of the groups at the front
of the ready ring, one per group, in the order the groups became ready (fair groups: the next
message of each, its group back at the end of the ring while it may take more). Writes run only after
every key type and every permission the call will use has been checked.

KEYS[1]  stream: grouped stream                 (stream: fields payload, group, headers when any)
KEYS[2]  deadlines: delivery deadlines          (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
KEYS[3]  deadLetter: dead-letter stream         (stream)
KEYS[4]  ready: ready ring                      (sorted set: group ID -> position)
KEYS[5]  leased: heads in flight                (hash: entry ID -> group ID)
KEYS[6]  ungroupedStream: the ungrouped queue's stream    (must not exist)
KEYS[7]  inflight: messages in flight per group   (hash: group ID -> count; fair groups only)
KEYS[8]  wake: wake stream                       (stream of at most one entry: appended to when a dead-lettered head's group moves on)
ARGV[1]  visibilityTimeoutMs: visibility timeout   (ms, 1..2^31-1)
ARGV[2]  max: most messages                     (messages, 1..1000)
ARGV[3]  deliveryLimit: delivery limit          (deliveries, >= 1)
ARGV[4]  token: receipt token of this call      (16 URL-safe characters, client-generated)
ARGV[5]  backlogPrefix: key prefix of the group backlogs   (the group ID follows)
ARGV[6]  concurrency: most messages of a group in flight   (1: ordered groups; 2..1000: fair groups)

Reply    { deadLettered: int, ...entries: { id: string, payload: bytes, deliveryCount: int, headers: bytes, groupId: string } }
         the number of messages moved to the dead-letter stream, then the leased entries:
         redelivered heads first (oldest deadline first), then new heads in ring order;
         each receipt is "<count>.<token>.<position in the batch, from 1>"; headers '' for none;
         groupId the message's group.
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM, RESPIRE_UNSUPPORTED
]]
--@include acl
--@include leases-grouped

respire_require_acl()
local source = respire_grouped_source(KEYS[1], KEYS[4], KEYS[5], ARGV[5], KEYS[6], KEYS[7], tonumber(ARGV[6]), KEYS[8])
local deadlines, dead = KEYS[2], KEYS[3]
local visibility, max, limit, token = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
--@include leases-receive
