--[[ admin-delete-queue-message: an operator's acknowledgement of one leased or delayed queue message.
Like an ACK (see the queue README): the message and its delivery metadata are removed, so it is
never delivered again; a holder that later acknowledges it gets false. Fenced by what the
operator saw: only while its deadlines member still has the delivery count and the deadline (or
due time) shown; otherwise nothing changes. Every check comes before the first write.

KEYS[1]  stream: ready stream                  (stream)
KEYS[2]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
ARGV[1]  group: consumer group                 (the queue's private group)
ARGV[2]  id: entry ID                       (as Redis prints it)
ARGV[3]  deliveryCount: expected delivery count   (shown to the operator, >= 0; 0: a delayed send not yet due)
ARGV[4]  untilMs: expected deadline or due time   (ms, the member's score shown to the operator)

Reply    { 1 deleted, deliveryCount: int } | { 0 notInFlight, 0 } | { -1 changed, deliveryCount: int }
         deleted (the count it had); not in flight (acknowledged, dead-lettered or its body is
         gone); changed (as admin-release-queue-message), nothing done
Errors   RESPIRE_UNSUPPORTED (Redis < 7), RESPIRE_WRONGTYPE, RESPIRE_NOPERM (ZREM; XACKDEL, or XACK and XDEL)
Server   Redis 8.2+ (not Valkey) with XACKDEL permitted: XACKDEL; otherwise XACK + XDEL.
]]
--@include server
--@include acl
--@include deliveries
--@include leases-queue

respire_require_acl()
local stream, deadlines, group, id = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
respire_expect_type(stream, 'stream')
local member, count = respire_delivery_at(deadlines, id, ARGV[4])
if not member then
  if not redis.call('XRANGE', stream, id, id)[1] then return { 0, 0 } end
  return { -1, 0 }
end
if count ~= tonumber(ARGV[3]) then return { -1, count } end
local source = respire_queue_source(stream, group)
local native = respire_source_plan_settle(source)
respire_allow(deadlines, 'ZREM', deadlines, member)
respire_source_settle(source, { id }, native)
redis.call('ZREM', deadlines, member)
return { 1, count }
