--[[ admin-release-pending: an operator's fenced release of one pending entry for redelivery.
Idle pending entries are recovered by the workers, and external tools must not reset delivery
counts (worker README, "Faults, shutdown and failover"). The entry is released only while XPENDING still
shows it pending to the expected consumer at the expected delivery count (the values the operator
saw); otherwise nothing changes and the current values are returned. Releasing claims it to the
same consumer with XCLAIM ... IDLE <ARGV[5]> JUSTID: JUSTID leaves the delivery count unchanged,
and the idle time set past every allowed minimum idle time makes the next recovery page of any
worker on the group claim it at once (that claim counts a delivery, as recovery always does). A
pending entry whose body was deleted is dropped from the PEL by XCLAIM itself (Redis 7+).

KEYS[1]  stream: source stream                 (stream)
ARGV[1]  group: consumer group
ARGV[2]  id: entry ID
ARGV[3]  consumer: expected consumer         (owner shown to the operator)
ARGV[4]  deliveryCount: expected delivery count   (shown to the operator, >= 1)
ARGV[5]  idleMs: idle time to set             (ms, 1..2^31-1)

Reply    { 1 released, consumer: string, deliveryCount: int } | { 0 notPending, '', 0 }
         | { -1 changed, consumer: string, deliveryCount: int } | { 2 deleted, consumer: string, deliveryCount: int }
         released; not pending (also a missing group or stream); changed: the current owner and
         count, nothing done; its body was deleted: XCLAIM dropped it from the PEL
Errors   RESPIRE_UNSUPPORTED (Redis < 7), RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XCLAIM)
Server   Redis 7+.
]]
--@include server
--@include fencing

respire_require_acl()
local stream, group, id, consumer, count, idle = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local entry = respire_pending_entry(stream, group, id)
if not entry then return { 0, '', 0 } end
if entry[2] ~= consumer or tonumber(entry[4]) ~= tonumber(count) then
  return { -1, entry[2], tonumber(entry[4]) }
end
respire_allow(stream, 'XCLAIM', stream, group, consumer, '0', id, 'IDLE', idle, 'JUSTID')
local claimed = redis.call('XCLAIM', stream, group, consumer, 0, id, 'IDLE', idle, 'JUSTID')
if claimed[1] == id then return { 1, consumer, tonumber(entry[4]) } end
return { 2, consumer, tonumber(entry[4]) }
