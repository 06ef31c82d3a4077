--[[ include: leases-extend - the lease engine's extension (extend)
The lease engine's extension (extend; see leases.lua), included as the rest of a script after these
locals:
  deadlines   the deadlines index            visibility  the new visibility timeout, ms, 1..2^31-1
  first       the ARGV index of the first entry ID, receipt pair
Each lease a receipt still holds gets the deadline server now + `visibility` (rounded up, as a
receive's): it replaces the old deadline, earlier or later, and the receipt stays the same. A
receipt that holds no lease (expired, revoked, superseded or completed: where ack would return 0)
changes nothing. The reply has per pair 1 when extended, else 0.
]]
--@include leases

local now = respire_now_ms()
local ids, valid, members, reply = respire_leases_held(deadlines, first, now)
if #valid == 0 then return reply end

respire_allow(deadlines, 'ZADD', deadlines, 'XX', '0', 'x')
local deadline = respire_int(math.ceil(now) + visibility)
local extended = {}
for _, i in ipairs(valid) do
  extended[#extended + 1] = deadline
  extended[#extended + 1] = members[i]
  reply[i] = 1
end
-- XX: only members read above, in this same atomic call; it never adds one.
redis.call('ZADD', deadlines, 'XX', unpack(extended))
return reply
