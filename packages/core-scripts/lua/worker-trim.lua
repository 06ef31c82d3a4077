--[[ worker-trim: trim the oldest entries of a stream that every consumer group has acknowledged.
A stream worker's retention beyond the contract (worker README "Trimming acknowledged entries"): a
stream read by several consumer groups keeps each entry until every group has acknowledged it,
the reliable topic's rule without its bounds (includes/topic-retention.lua: a group still needs
every entry after its last-delivered ID and every entry from the oldest one in its pending entries
list). A stream with no group keeps everything. Bounded per call; the same on every server.

KEYS[1]  stream: the worker's stream            (stream)
ARGV[1]  limit: most entries trimmed by this call   (entries, 1..1000)

Reply    int
         the number of entries trimmed (XTRIM MINID, exact); 0 for a missing stream
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XTRIM), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include types
--@include topic-retention

respire_require_acl()
local stream = KEYS[1]
respire_expect_type(stream, 'stream')
respire_allow(stream, 'XTRIM', stream, 'MINID', '0-1')
-- No bounds: nothing is trimmed that a group still needs, so no group's count is kept.
local plan = respire_topic_retention_plan(stream, 0, 0, tonumber(ARGV[1]), 0)
return respire_topic_retention_apply(stream, nil, plan)
