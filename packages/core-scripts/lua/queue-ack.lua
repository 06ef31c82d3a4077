--[[ queue-ack: complete deliveries whose receipts still hold their leases.
Seed 000 "Delivery and receipts": ACK removes the message and its delivery metadata; an expired,
revoked, superseded or already completed receipt changes nothing.

KEYS[1]  ready stream                          (stream)
KEYS[2]  deadlines                             (sorted set: entry ID -> deadline, ms)
KEYS[3]  deliveries                            (hash: entry ID -> receipt or delivery count)
ARGV[1]  consumer group                        (the queue's private group)
ARGV[2..] entry ID, receipt, entry ID, receipt, ...   (1..1000 pairs)

Reply    array of 1 (acknowledged) or 0 (not: expired, revoked, superseded or completed), in order
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XACKDEL, or XACK and XDEL; ZREM; HDEL), RESPIRE_UNSUPPORTED
Server   Redis 8.2+ (not Valkey) with XACKDEL permitted: XACKDEL; otherwise XACK + XDEL.
]]
--@include server
--@include preflight
--@include leases

respire_require_acl()
local stream, deadlines, deliveries, group = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
respire_expect_type(stream, 'stream')
respire_expect_type(deadlines, 'zset')
respire_expect_type(deliveries, 'hash')

local ids, receipts = {}, {}
for i = 2, #ARGV, 2 do
  ids[#ids + 1] = ARGV[i]
  receipts[#receipts + 1] = ARGV[i + 1]
end
local now = respire_now_ms()
local valid = respire_valid_receipts(deliveries, deadlines, ids, receipts, now)
local reply = {}
for i = 1, #ids do reply[i] = 0 end
if #valid == 0 then return reply end

local acked = {}
for _, i in ipairs(valid) do acked[#acked + 1] = ids[i] end
local native = respire_has_xackdel(stream, group)
if not native then
  respire_allow(stream, 'XACK', stream, group, '0-1')
  respire_allow(stream, 'XDEL', stream, '0-1')
end
respire_allow(deadlines, 'ZREM', deadlines, 'x')
respire_allow(deliveries, 'HDEL', deliveries, 'x')

if native then
  redis.call('XACKDEL', stream, group, 'IDS', #acked, unpack(acked))
else
  redis.call('XACK', stream, group, unpack(acked))
  redis.call('XDEL', stream, unpack(acked))
end
redis.call('ZREM', deadlines, unpack(acked))
redis.call('HDEL', deliveries, unpack(acked))
for _, i in ipairs(valid) do reply[i] = 1 end
return reply
