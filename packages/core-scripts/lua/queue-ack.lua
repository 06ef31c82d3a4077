--[[ queue-ack: complete deliveries whose receipts still hold their leases.
Seed 000 "Delivery and receipts": ACK removes the message and its delivery metadata; an expired,
revoked, superseded or already completed receipt changes nothing.

KEYS[1]  ready stream                          (stream)
KEYS[2]  deadlines                             (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
ARGV[1]  consumer group                        (the queue's private group)
ARGV[2..] entry ID, receipt, entry ID, receipt, ...   (1..1000 pairs)

Reply    array of 1 (acknowledged) or 0 (not: expired, revoked, superseded or completed), in order
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XACKDEL, or XACK and XDEL; ZREM), RESPIRE_UNSUPPORTED
Server   Redis 8.2+ (not Valkey) with XACKDEL permitted: XACKDEL; otherwise XACK + XDEL.
]]
--@include server
--@include preflight
--@include leases

respire_require_acl()
local stream, deadlines, group = KEYS[1], KEYS[2], ARGV[1]

local ids, receipts = {}, {}
for i = 2, #ARGV, 2 do
  ids[#ids + 1] = ARGV[i]
  receipts[#receipts + 1] = ARGV[i + 1]
end
local now = respire_now_ms()
local valid, members = respire_valid_receipts(deadlines, ids, receipts, now)
local reply = {}
for i = 1, #ids do reply[i] = 0 end
if #valid == 0 then return reply end

local acked, leases = {}, {}
for _, i in ipairs(valid) do
  acked[#acked + 1] = ids[i]
  leases[#leases + 1] = members[i]
end
local native = respire_has_xackdel(stream, group)
if not native then
  respire_allow(stream, 'XACK', stream, group, '0-1')
  respire_allow(stream, 'XDEL', stream, '0-1')
end
respire_allow(deadlines, 'ZREM', deadlines, 'x')

-- The first write: a stream key of another type fails here, before anything changed.
if native then
  respire_typed_call(stream, 'stream', 'XACKDEL', stream, group, 'IDS', #acked, unpack(acked))
else
  respire_typed_call(stream, 'stream', 'XACK', stream, group, unpack(acked))
  redis.call('XDEL', stream, unpack(acked))
end
redis.call('ZREM', deadlines, unpack(leases))
for _, i in ipairs(valid) do reply[i] = 1 end
return reply
