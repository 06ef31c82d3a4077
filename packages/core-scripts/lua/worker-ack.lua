--[[ worker-ack: fenced acknowledgement of one delivery.
Seed 002 "Pending messages and reliability": a stale handler cannot acknowledge a delivery that was
recovered by another owner or attempt, even under the same consumer name. The entry is acknowledged
only while XPENDING shows it pending to this consumer at this delivery count.
Seed 002 "Server requirements": DeleteAcknowledgedEntries uses XACKDEL ACKED on Redis 8.2+ (not
Valkey); older servers use XACK and keep the body. A denied XACKDEL is a fault (RESPIRE_NOPERM).

KEYS[1]  stream: source stream                 (stream)
ARGV[1]  group: consumer group
ARGV[2]  consumer: consumer name               (the reader that received the delivery)
ARGV[3]  id: entry ID
ARGV[4]  deliveryCount: delivery count of the delivery   (from Redis, >= 1)
ARGV[5]  deleteAcknowledged: delete acknowledged entries   ('1' or '0')

Reply    1 acknowledged; 0 stale (not pending to this consumer at this delivery count, or the group is gone)
Errors   RESPIRE_NOPERM (XACK, or XACKDEL with ARGV[5] = '1' on 8.2+)
Server   Redis 6.2+; XACKDEL ACKED on Redis 8.2+ when ARGV[5] = '1'.
]]
--@include server
--@include fencing

local stream, group, consumer, id, count = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if not respire_fence(stream, group, id, consumer, count) then return 0 end
if ARGV[5] == '1' and respire_redis_version() >= 0x080200 then
  respire_allow(stream, 'XACKDEL', stream, group, 'ACKED', 'IDS', '1', id)
  redis.call('XACKDEL', stream, group, 'ACKED', 'IDS', 1, id)
else
  respire_allow(stream, 'XACK', stream, group, id)
  redis.call('XACK', stream, group, id)
end
return 1
