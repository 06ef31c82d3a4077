--[[ queue-ack: complete deliveries whose receipts still hold their leases.
Seed 000 "Delivery and receipts": ACK removes the message and its delivery metadata; an expired,
revoked, superseded or already completed receipt changes nothing.

KEYS[1]  stream: ready stream                  (stream)
KEYS[2]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
ARGV[1]  group: consumer group                 (the queue's private group)
ARGV[2..] receipts: entry ID, receipt, entry ID, receipt, ...   (1..1000 pairs)

Reply    [flag]   per receipt, in order: 1 acknowledged; 0 not (expired, revoked, superseded or completed)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XACKDEL, or XACK and XDEL; ZREM), RESPIRE_UNSUPPORTED
Server   Redis 8.2+ (not Valkey) with XACKDEL permitted: XACKDEL; otherwise XACK + XDEL.
]]
--@include acl
--@include leases

respire_require_acl()
local stream, deadlines, group = KEYS[1], KEYS[2], ARGV[1]

local ids, valid, members, reply = respire_held_leases(deadlines, 2, respire_now_ms())
if #valid == 0 then return reply end

local acked, leases = {}, {}
for _, i in ipairs(valid) do
  acked[#acked + 1] = ids[i]
  leases[#leases + 1] = members[i]
end
local native = respire_plan_ack_delete(stream, group)
respire_allow(deadlines, 'ZREM', deadlines, 'x')

-- The first write: a stream key of another type fails here, before anything changed.
respire_ack_delete(stream, group, acked, native)
redis.call('ZREM', deadlines, unpack(leases))
for _, i in ipairs(valid) do reply[i] = 1 end
return reply
