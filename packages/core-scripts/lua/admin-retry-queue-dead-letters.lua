--[[ admin-retry-queue-dead-letters: send queue dead letters to their queue again.
A queue's dead-letter record holds the binary payload, the original source_id and the final
delivery_count, and the message's headers when it had any (fields payload, source_id,
delivery_count, headers, in that order: includes/queue-dead-letters.lua; queue README, "The
contract", "Headers"). For each record ID, in order: a missing record (or an ID repeated in this call) is
"missing"; a record of another shape is "foreign" and left alone, and so is a grouped queue's record
(one with a group field: admin-retry-grouped-dead-letters retries it into its group); otherwise its payload is appended
to the queue's ready stream as a fresh message with its headers (XADD * payload <bytes>
[headers <bytes>], includes/queue-entries.lua, as a send without a deduplication ID or delay: its
delivery count starts again) and the record is deleted (XDEL). Every record
is read and every type and permission checked before the first write, so a refusal changes
nothing; the appends and deletions of one call are atomic together.

KEYS[1]  deadLetterStream: dead-letter stream  (stream)
KEYS[2]  stream: ready stream of the queue     (stream; same hash tag {respire-queue:<name>})
ARGV[1..] recordIds: record IDs               (1..1000 stream IDs)

Reply    [{ 1 retried, entryId: string } | { 0 missing, '' } | { -1 foreign, reason: string }]
         per record ID, in order: retried, with the new entry ID; missing; foreign (not a queue dead-letter record), with the
         reason
Errors   RESPIRE_UNSUPPORTED (no redis.acl_check_cmd: Redis < 7), RESPIRE_WRONGTYPE (either key),
         RESPIRE_NOPERM (XRANGE or XDEL on the dead-letter stream, XADD on the ready stream)
Server   Redis 7+.
]]
--@include server
--@include types
--@include records
--@include queue-dead-letters
--@include queue-entries

respire_require_acl()
local dead, stream = KEYS[1], KEYS[2]

-- Plan: read and classify every record before writing anything.
local reply, plan = respire_plan_records(dead, ARGV, respire_queue_dead_letter_ungrouped_problem)
if #plan == 0 then return reply end

-- Preflight: every write this call will make.
respire_expect_type(stream, 'stream')
respire_allow(stream, 'XADD', stream, '*', 'payload', 'x', 'headers', 'x')
respire_allow(dead, 'XDEL', dead, '0-1')

for _, p in ipairs(plan) do
  local fields = respire_queue_entry_fields(respire_queue_dead_letter_payload(p[3]), nil, respire_queue_dead_letter_headers(p[3]))
  local added = redis.call('XADD', stream, '*', unpack(fields))
  redis.call('XDEL', dead, p[2])
  reply[p[1]] = { 1, added }
end
return reply
