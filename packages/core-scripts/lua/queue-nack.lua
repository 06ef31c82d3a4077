--[[ queue-nack: revoke receipts and set a new due time, and wake the waiting receives.
The queue's NACK (README "The contract"), on the lease engine (includes/leases-release.lua): it revokes the
receipt at once; delay 0 makes the message receivable immediately; a positive delay replaces the
remaining visibility timeout. The message is never dead-lettered here: the next receive that finds
it due and exhausted does that. A topic subscription's and a grouped queue's NACK are this script on
their own deadlines index and wake stream. When it released any lease it appends one entry to the wake stream (MAXLEN
1, once per call), so a waiting receive (queue README "Waiting receive") reads its wait point again
and blocks no later than the released message's new due time (its old one was the lease's deadline).

KEYS[1]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
KEYS[2]  wake: wake stream                     (stream of at most one entry)
ARGV[1]  delayMs: delay                        (ms, 0..2^31-1)
ARGV[2..] receipts: entry ID, receipt, entry ID, receipt, ...   (1..1000 pairs)

Reply    [flag]   per receipt, in order: 1 revoked and rescheduled; 0 not (expired, revoked, superseded
                  or completed)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (ZREM, ZADD, XADD on the wake stream), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include types

respire_require_acl()
local deadlines, delay, first, wake = KEYS[1], tonumber(ARGV[1]), 2, KEYS[2]
--@include leases-release
