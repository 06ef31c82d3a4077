--[[ worker-dead-letter: fenced, atomic dead-letter completion of one delivery.
Seed 002 "Delivery limits and dead-letter inspection": appends a record with a new ID whose first
five field/value pairs are _respire.source_id, _respire.group, _respire.attempt, _respire.reason and
_respire.exception_type, followed by the original fields unchanged and in order, and acknowledges
the source in the same script. The source body is kept (XACK, never XDEL). A source whose body was
deleted or trimmed is acknowledged without a record. Every check (destination type, XRANGE, XADD
and XACK permission) runs before the first write, so a refusal leaves the source pending.

KEYS[1]  stream: source stream                 (stream)
KEYS[2]  deadLetter: dead-letter stream        (stream, same slot, different key)
ARGV[1]  group: consumer group                 (<= 256 bytes)
ARGV[2]  consumer: consumer name
ARGV[3]  id: entry ID
ARGV[4]  deliveryCount: delivery count of the delivery   (the record's _respire.attempt)
ARGV[5]  reason: dead-letter reason            (explicit | nack | processing-failed | delivery-limit)
ARGV[6]  exceptionType: exception type         (<= 256 bytes; empty unless a processing failure)

Reply    { 1, record ID } appended and acknowledged; { 2, '' } body deleted: acknowledged without a
         record; { 0, '' } stale (not pending to this consumer at this delivery count)
Errors   RESPIRE_UNSUPPORTED (no redis.acl_check_cmd: Redis < 7), RESPIRE_WRONGTYPE (destination),
         RESPIRE_NOPERM (XRANGE or XACK on the source, XADD on the destination),
         RESPIRE_TOO_MANY_FIELDS (more than 1,024 field/value pairs)
Server   Redis 7+.
]]
--@include acl
--@include types
--@include fencing

respire_require_acl()
local source, dead = KEYS[1], KEYS[2]
local group, consumer, id, count, reason, exceptionType = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if not respire_fence(source, group, id, consumer, count) then return { 0, '' } end

respire_expect_type(dead, 'stream')
respire_allow(source, 'XRANGE', source, id, id)
respire_allow(source, 'XACK', source, group, id)
respire_allow(dead, 'XADD', dead, '*', '_respire.source_id', id)

local body = redis.call('XRANGE', source, id, id)[1]
if not body then
  redis.call('XACK', source, group, id)
  return { 2, '' }
end
local fields = body[2]
if #fields > 2048 then
  error({ err = 'RESPIRE_TOO_MANY_FIELDS entry ' .. id .. ' has more than 1024 field/value pairs' })
end
local record = redis.call('XADD', dead, '*',
  '_respire.source_id', id,
  '_respire.group', group,
  '_respire.attempt', count,
  '_respire.reason', reason,
  '_respire.exception_type', exceptionType,
  unpack(fields))
redis.call('XACK', source, group, id)
return { 1, record }
