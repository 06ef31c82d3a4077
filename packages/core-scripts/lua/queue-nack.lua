--[[ queue-nack: revoke receipts and set a new due time.
Seed 000 "Delivery and receipts": NACK revokes the receipt at once; delay 0 makes the message
receivable immediately; a positive delay replaces the remaining visibility timeout. The message
is never dead-lettered here: the next receive that finds it due and exhausted does that.

KEYS[1]  deadlines                             (sorted set: entry ID -> deadline, ms)
KEYS[2]  deliveries                            (hash: entry ID -> receipt or delivery count)
ARGV[1]  delay                                 (ms, 0..2^31-1)
ARGV[2..] entry ID, receipt, entry ID, receipt, ...   (1..1000 pairs)

Reply    array of 1 (revoked and rescheduled) or 0 (expired, revoked, superseded or completed)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (ZADD, HSET), RESPIRE_UNSUPPORTED
]]
--@include server
--@include preflight
--@include leases

respire_require_acl()
local deadlines, deliveries = KEYS[1], KEYS[2]
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

respire_allow(deadlines, 'ZADD', deadlines, '0', 'x')
respire_allow(deliveries, 'HSET', deliveries, 'x', 'x')
-- Delay 0 is due at once; a positive delay rounds up, never shorter than asked.
local delay = tonumber(ARGV[1])
local due = respire_int(delay == 0 and math.floor(now) or math.ceil(now) + delay)
local scores, revoked = {}, {}
for _, i in ipairs(valid) do
  local id = ids[i]
  scores[#scores + 1] = due
  scores[#scores + 1] = id
  revoked[#revoked + 1] = id
  revoked[#revoked + 1] = respire_int(respire_delivery_count(receipts[i]))
  reply[i] = 1
end
redis.call('ZADD', deadlines, unpack(scores))
redis.call('HSET', deliveries, unpack(revoked))
return reply
