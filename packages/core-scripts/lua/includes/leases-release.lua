--[[ include: leases-release - the lease engine's release (nack)
The lease engine's release (nack; see leases.lua), included as the rest of a script after these
locals:
  deadlines   the deadlines index            delay       ms, 0..2^31-1
  first       the ARGV index of the first entry ID, receipt pair
  wake        nil, or a stream that gets one entry (MAXLEN 1) when any lease was released, to
              wake the waiting receives blocked on it (the wake stream of the queue, grouped
              queue or topic subscription that owns the deadlines index)
Each lease a receipt still holds is revoked: its member becomes "<entry ID>:<delivery count>",
due at once for delay 0, else after the delay (rounded up, never shorter than asked). The message
is never dead-lettered here: the next receive that finds it due and exhausted does that. The reply
has per pair 1 when released, else 0.
]]
--@include leases

local now = respire_now_ms()
local ids, valid, members, reply = respire_leases_held(deadlines, first, now)
if #valid == 0 then return reply end

respire_allow(deadlines, 'ZREM', deadlines, 'x')
respire_allow(deadlines, 'ZADD', deadlines, '0', 'x')
if wake then
  respire_expect_type(wake, 'stream')
  respire_allow(wake, 'XADD', wake, 'MAXLEN', '1', '*', 'wake', '1')
end
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
if wake then redis.call('XADD', wake, 'MAXLEN', '1', '*', 'wake', '1') end
return reply
