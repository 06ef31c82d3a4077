--[[ include: leases-complete - the lease engine's completion (ack)
The lease engine's completion (ack; see leases.lua), included as the rest of a script after its
source and these locals:
  source      the source's keys              deadlines   the deadlines index
  first       the ARGV index of the first entry ID, receipt pair
Each delivery whose receipt still holds its lease is settled by the source and its member removed;
the reply has per pair 1 when completed, else 0 (expired, revoked, superseded or completed). Every
permission is checked before the first write.
]]
--@include leases

local ids, valid, members, reply = respire_leases_held(deadlines, first, respire_now_ms())
if #valid == 0 then return reply end

local completed, leases = {}, {}
for _, i in ipairs(valid) do
  completed[#completed + 1] = ids[i]
  leases[#leases + 1] = members[i]
end
local plan = respire_source_plan_settle(source)
respire_allow(deadlines, 'ZREM', deadlines, 'x')

-- The first write: a source key of another type fails here, before anything changed.
respire_source_settle(source, completed, plan)
redis.call('ZREM', deadlines, unpack(leases))
for _, i in ipairs(valid) do reply[i] = 1 end
return reply
