--[[ queue-nack: revoke receipts and set a new due time.
The queue's NACK (README "The contract"), on the lease engine (includes/leases-release.lua): it revokes the
receipt at once; delay 0 makes the message receivable immediately; a positive delay replaces the
remaining visibility timeout. The message is never dead-lettered here: the next receive that finds
it due and exhausted does that.

KEYS[1]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
ARGV[1]  delayMs: delay                        (ms, 0..2^31-1)
ARGV[2..] receipts: entry ID, receipt, entry ID, receipt, ...   (1..1000 pairs)

Reply    [flag]   per receipt, in order: 1 revoked and rescheduled; 0 not (expired, revoked, superseded
                  or completed)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (ZREM, ZADD), RESPIRE_UNSUPPORTED
]]
--@include acl

respire_require_acl()
local deadlines, delay, first, wake = KEYS[1], tonumber(ARGV[1]), 2, nil
--@include leases-release
