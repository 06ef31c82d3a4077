--[[ admin-retry-grouped-dead-letters: send a grouped queue's dead letters back to the end of their groups.
A grouped queue's dead-letter record has the queue's format with its group (fields payload,
source_id, delivery_count, headers when any, group: includes/queue-dead-letters.lua; queue README
"Message groups", "Dead letters of a grouped queue"). For each record ID, in order: a missing record
(or an ID repeated in this call) is "missing"; a record of another shape, one without a group (an
ungrouped queue's), or one whose group no send accepts (more than 1,024 bytes, or not well-formed
UTF-8), is "foreign" and left alone; otherwise its message is appended to the back of its
group as a send appends one (grouped-send.lua, without a deduplication ID): a new entry of the grouped
stream with the same payload, group and headers, its ID pushed onto the group's backlog (RPUSH), so
it goes behind everything the group already has and its delivery count starts again; then the
record is deleted (XDEL). A group whose backlog was empty joins the back of the ready ring when it
has room: ordered groups (concurrency 1) always then (a leased head stays in its backlog), fair
groups with fewer than `concurrency` messages in flight (0, the mode unknown: with none in flight;
else a settle of its group lets it join). When a group joined, one entry is appended to the wake
stream (MAXLEN 1), as settling does (includes/leases-grouped.lua), so waiting receives wake. Every
record is read and every type and permission checked before the first write, so a refusal changes
nothing; the writes of one call are atomic together.

KEYS[1]  deadLetterStream: the grouped dead-letter stream   (stream)
KEYS[2]  stream: grouped stream                 (stream: fields payload, group, headers when any; same hash tag {respire-queue:<name>})
KEYS[3]  ready: ready ring                      (sorted set: group ID -> position)
KEYS[4]  ungroupedStream: the ungrouped queue's stream    (must not exist)
KEYS[5]  inflight: messages in flight per group   (hash: group ID -> count; fair groups only)
KEYS[6]  wake: wake stream                       (stream of at most one entry)
ARGV[1]  backlogPrefix: key prefix of the group backlogs   (the group ID follows)
ARGV[2]  concurrency: most messages of a group in flight   (1: ordered groups; 2..1000: fair groups; 0: unknown)
ARGV[3..] recordIds: record IDs               (1..1000 stream IDs)

Reply    [{ 1 retried, entryId: string } | { 0 missing, '' } | { -1 foreign, reason: string }]
         per record ID, in order: retried, with the new entry ID; missing; foreign (not a grouped
         queue's dead-letter record), with the reason
Errors   RESPIRE_UNSUPPORTED (no redis.acl_check_cmd: Redis < 7), RESPIRE_WRONGTYPE (any key, a
         group's backlog, or the ungrouped queue's stream existing), RESPIRE_NOPERM (XRANGE or XDEL
         on the dead-letter stream, XADD on the grouped stream or the wake stream, RPUSH on a
         backlog, ZADD on the ring)
Server   Redis 7+.
]]
--@include acl
--@include types
--@include records
--@include queue-dead-letters
--@include leases-grouped

respire_require_acl()
local dead, stream, ready, ungrouped, inflight, wake = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local prefix, concurrency = ARGV[1], tonumber(ARGV[2])
local source = respire_grouped_source(stream, ready, nil, prefix, ungrouped, inflight, concurrency, wake)
respire_grouped_expect_mode(ungrouped)

-- Plan: read and classify every record before writing anything.
local ids = {}
for i = 3, #ARGV do ids[#ids + 1] = ARGV[i] end
local reply, plan = respire_plan_records(dead, ids, respire_queue_dead_letter_grouped_problem)
if #plan == 0 then return reply end

-- Which groups join the ring: those idle before this call (an empty backlog) with room, in the
-- order of their first retried record. Reads, so a backlog of another type fails here.
local room = math.max(concurrency, 1)
local seen, join = {}, {}
for _, p in ipairs(plan) do
  local group = respire_queue_dead_letter_group(p[3])
  if not seen[group] then
    seen[group] = true
    local backlog = prefix .. group
    if respire_typed_call(backlog, 'list', 'LLEN', backlog) == 0
      and (tonumber(respire_typed_call(inflight, 'hash', 'HGET', inflight, group)) or 0) < room then
      join[#join + 1] = group
    end
  end
end

-- Preflight: every write this call will make.
respire_expect_type(stream, 'stream')
respire_expect_type(wake, 'stream')
local tail = #join > 0 and (respire_grouped_tail(ready) or 0) or 0
respire_allow(stream, 'XADD', stream, '*', 'payload', 'x', 'group', 'x', 'headers', 'x')
respire_allow(prefix, 'RPUSH', prefix, 'x')
respire_allow(dead, 'XDEL', dead, '0-1')
if #join > 0 then
  respire_allow(ready, 'ZADD', ready, '1', 'x')
  respire_allow(wake, 'XADD', wake, 'MAXLEN', '1', '*', 'wake', '1')
end

for _, p in ipairs(plan) do
  local fields = p[3]
  local group = respire_queue_dead_letter_group(fields)
  local entry = { 'payload', respire_queue_dead_letter_payload(fields), 'group', group }
  local headers = respire_queue_dead_letter_headers(fields)
  if headers ~= '' then
    entry[5] = 'headers'
    entry[6] = headers
  end
  local added = redis.call('XADD', stream, '*', unpack(entry))
  redis.call('RPUSH', prefix .. group, added)
  redis.call('XDEL', dead, p[2])
  reply[p[1]] = { 1, added }
end
if #join > 0 then
  respire_grouped_join(source, tail, join)
  respire_grouped_wake(source)
end
return reply
