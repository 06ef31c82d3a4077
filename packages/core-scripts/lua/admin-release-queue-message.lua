--[[ admin-release-queue-message: an operator's release of one leased or delayed queue message.
Like a NACK with no delay (see the queue README): the receipt is revoked and the message is due
now, so the next receive redelivers it (or moves it to the dead letters at the delivery limit);
its delivery count is kept. A holder that later acknowledges it with the revoked receipt gets
false. Fenced by what the operator saw: the message is released only while its deadlines member
still has the delivery count and the deadline (or due time) shown; otherwise nothing changes.

KEYS[1]  stream: ready stream                  (stream)
KEYS[2]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
ARGV[1]  id: entry ID                       (as Redis prints it)
ARGV[2]  deliveryCount: expected delivery count   (shown to the operator, >= 0; 0: a delayed send not yet due)
ARGV[3]  untilMs: expected deadline or due time   (ms, the member's score shown to the operator)

Reply    { 1 released, deliveryCount: int } | { 0 notInFlight, 0 } | { -1 changed, deliveryCount: int }
         released: due now; not in flight (acknowledged, dead-lettered or its
         body is gone); changed: delivered again, NACKed, released or completed by
         receipt meanwhile (count: the delivery count the member now records, 0 when not found at
         that deadline), nothing done
Errors   RESPIRE_UNSUPPORTED (Redis < 7), RESPIRE_WRONGTYPE, RESPIRE_NOPERM (ZREM, ZADD on the deadlines)
Server   Redis 7+.
]]
--@include server
--@include acl
--@include deliveries

respire_require_acl()
local stream, deadlines, id = KEYS[1], KEYS[2], ARGV[1]
respire_expect_type(stream, 'stream')
local member, count = respire_delivery_at(deadlines, id, ARGV[3])
if not member then
  if not redis.call('XRANGE', stream, id, id)[1] then return { 0, 0 } end
  return { -1, 0 }
end
if count ~= tonumber(ARGV[2]) then return { -1, count } end
respire_allow(deadlines, 'ZREM', deadlines, member)
respire_allow(deadlines, 'ZADD', deadlines, '0', 'x')
redis.call('ZREM', deadlines, member)
redis.call('ZADD', deadlines, respire_int(math.floor(respire_now_ms())), respire_member(id, respire_int(count)))
return { 1, count }
