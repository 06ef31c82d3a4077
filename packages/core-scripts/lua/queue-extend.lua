--[[ queue-extend: give leases a new deadline, keeping their receipts.
The queue's lease extension (README "Lease extension", beyond the contract), on the lease engine
(includes/leases-extend.lua): each lease its receipt still holds is due at server now + the
visibility timeout instead of its old deadline; the receipt stays valid. An expired, revoked,
superseded or completed receipt changes nothing, exactly where ACK would return 0.

KEYS[1]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
ARGV[1]  visibilityTimeoutMs: visibility timeout   (ms, 1..2^31-1)
ARGV[2..] receipts: entry ID, receipt, entry ID, receipt, ...   (1..1000 pairs)

Reply    [flag]   per receipt, in order: 1 extended; 0 not (expired, revoked, superseded or completed)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (ZADD), RESPIRE_UNSUPPORTED
]]
--@include acl

respire_require_acl()
local deadlines, visibility, first = KEYS[1], tonumber(ARGV[1]), 2
--@include leases-extend
