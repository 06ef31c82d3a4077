--[[ admin-retry-worker-dead-letters: put worker dead-letter records back on their source stream.
A worker's dead-letter record (includes/worker-dead-letters.lua; worker README, "Delivery limits
and dead letters"): its first five field/value pairs are
_respire.source_id, _respire.group, _respire.attempt, _respire.reason and _respire.exception_type,
then the original fields unchanged and in order. For each record ID, in order: a missing record (or
an ID repeated in this call) is "missing"; a record without the five pairs in place, without
original fields or with more than 1,024 of them is "foreign" and left alone; otherwise the original
fields (pairs 6..n) are appended to the source stream as a new entry (XADD *) and the record is
deleted (XDEL). Every record is read and every type and permission checked before the first write,
so a refusal changes nothing; the appends and deletions of one call are atomic together.

KEYS[1]  deadLetterStream: dead-letter stream  (stream)
KEYS[2]  stream: source stream                 (stream; same Cluster slot, different key)
ARGV[1..] recordIds: record IDs               (1..1000 stream IDs)

Reply    [{ 1 retried, entryId: string } | { 0 missing, '' } | { -1 foreign, reason: string }]
         per record ID, in order: retried, with the new entry ID; missing; foreign (not a worker dead-letter record), with the
         reason
Errors   RESPIRE_UNSUPPORTED (no redis.acl_check_cmd: Redis < 7), RESPIRE_WRONGTYPE (either key),
         RESPIRE_NOPERM (XRANGE or XDEL on the dead-letter stream, XADD on the source)
Server   Redis 7+.
]]
--@include server
--@include types
--@include records
--@include worker-dead-letters

respire_require_acl()
local dead, source = KEYS[1], KEYS[2]

-- Plan: read and classify every record before writing anything.
local reply, plan = respire_plan_records(dead, ARGV, respire_worker_dead_letter_problem)
if #plan == 0 then return reply end

-- Preflight: every write this call will make.
respire_expect_type(source, 'stream')
respire_allow(source, 'XADD', source, '*', 'field', 'value')
respire_allow(dead, 'XDEL', dead, '0-1')

for _, p in ipairs(plan) do
  local added = redis.call('XADD', source, '*', unpack(respire_worker_dead_letter_original(p[3])))
  redis.call('XDEL', dead, p[2])
  reply[p[1]] = { 1, added }
end
return reply
