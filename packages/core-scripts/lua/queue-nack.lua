--[[ queue-nack: revoke receipts and set a new due time.
Seed 000 "Delivery and receipts": NACK revokes the receipt at once; delay 0 makes the message
receivable immediately; a positive delay replaces the remaining visibility timeout. The message
is never dead-lettered here: the next receive that finds it due and exhausted does that.

KEYS[1]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
ARGV[1]  delayMs: delay                        (ms, 0..2^31-1)
ARGV[2..] receipts: entry ID, receipt, entry ID, receipt, ...   (1..1000 pairs)

Reply    [flag]   per receipt, in order: 1 revoked and rescheduled; 0 not (expired, revoked, superseded
                  or completed)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (ZREM, ZADD), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include leases

respire_require_acl()
local deadlines = KEYS[1]

local now = respire_now_ms()
local ids, valid, members, reply = respire_held_leases(deadlines, 2, now)
if #valid == 0 then return reply end

respire_allow(deadlines, 'ZREM', deadlines, 'x')
respire_allow(deadlines, 'ZADD', deadlines, '0', 'x')
-- Delay 0 is due at once; a positive delay rounds up, never shorter than asked.
local delay = tonumber(ARGV[1])
local due = respire_int(delay == 0 and math.floor(now) or math.ceil(now) + delay)
local leases, revoked = {}, {}
for _, i in ipairs(valid) do
  leases[#leases + 1] = members[i]
  local _, count = respire_parse_member(members[i])
  revoked[#revoked + 1] = due
  revoked[#revoked + 1] = respire_member(ids[i], respire_int(count))
  reply[i] = 1
end
redis.call('ZREM', deadlines, unpack(leases))
redis.call('ZADD', deadlines, unpack(revoked))
return reply
