--[[ admin-retry-subscription-dead-letters: deliver a topic subscription's dead letters to that subscription again.
A subscription's dead-letter record has the queue's format (includes/queue-dead-letters.lua:
payload, source_id = the publication's entry ID, delivery_count, headers). The topic's stream is
shared by every subscription, so a retry never appends to it (that would deliver to all of them):
it makes the publication due again for this subscription only (queue README "Reliable topic",
"Dead letters of a subscription"). For each record ID, in order: a missing record (or an ID
repeated in this call) is "missing"; a record of another shape is "foreign" and left alone
(also one whose source_id is no entry ID, and a grouped queue's record: one with a group field); otherwise the record is deleted (XDEL) and
  - when the subscription will get the publication anyway (it is in its pending entries list,
    already retried and not yet completed, or retained after its last-delivered ID), nothing else
    changes;
  - else its payload and headers are copied into the subscription's retried hash (field
    "<source_id>" and "<source_id>:headers") and the member "<source_id>:0" is added to its
    deadlines index, due now: the next receive recovers it with delivery count 1, reading its body
    from the stream while the publication is retained and from the retried hash once retention
    trimmed it (includes/leases-subscription.lua), and completing it deletes the copy. So retention
    trims never lose a retried message, and no other subscription sees it again.
When any was scheduled, one entry is appended to the wake stream (MAXLEN 1), so the
subscription's waiting receives wake. Every record is read and every type and permission checked
before the first write, so a refusal changes nothing; the writes of one call are atomic together.

KEYS[1]  deadLetterStream: the subscription's dead-letter stream   (stream)
KEYS[2]  stream: the topic's publications      (stream; same hash tag {respire-topic:<name>})
KEYS[3]  deadlines: the subscription's delivery deadlines   (sorted set)
KEYS[4]  retried: the subscription's retried dead letters    (hash)
KEYS[5]  wake: the subscription's wake stream   (stream of at most one entry)
ARGV[1]  group: the subscription's consumer group
ARGV[2..] recordIds: record IDs               (1..1000 stream IDs)

Reply    [{ 1 retried, sourceId: string } | { 0 missing, '' } | { -1 foreign, reason: string }]
         per record ID, in order: retried, with the publication's entry ID; missing; foreign (not a
         queue dead-letter record), with the reason
Errors   RESPIRE_UNSUPPORTED (no redis.acl_check_cmd: Redis < 7), RESPIRE_WRONGTYPE (any key),
         RESPIRE_NOPERM (XRANGE or XDEL on the dead-letter stream, HSET, ZADD, XADD on the wake
         stream), RESPIRE_NOGROUP (the subscription does not exist)
Server   Redis 7+.
]]
--@include server
--@include acl
--@include types
--@include entry-ids
--@include receipts
--@include records
--@include queue-dead-letters

respire_require_acl()
local dead, stream, deadlines, retried, wake, group = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[1]

-- The subscription must exist: its last-delivered ID says which publications it gets anyway.
respire_expect_type(stream, 'stream')
local last = nil
if redis.call('EXISTS', stream) == 1 then
  for _, info in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    local name, position = nil, nil
    for f = 1, #info, 2 do
      if info[f] == 'name' then name = info[f + 1]
      elseif info[f] == 'last-delivered-id' then position = info[f + 1] end
    end
    if name == group then last = position end
  end
end
if not last then
  error({ err = 'RESPIRE_NOGROUP the subscription ' .. group .. ' of ' .. stream .. ' does not exist' })
end

-- Plan: read and classify every record before writing anything.
local ids = {}
for i = 2, #ARGV do ids[#ids + 1] = ARGV[i] end
local function problem(fields)
  local reason = respire_queue_dead_letter_ungrouped_problem(fields)
  if reason then return reason end
  if not respire_entry_id_parts(fields[4]) then return 'source_id is not an entry ID' end
  return nil
end
local reply, plan = respire_plan_records(dead, ids, problem)
if #plan == 0 then return reply end

-- Preflight: every write this call will make.
respire_expect_type(deadlines, 'zset')
respire_expect_type(retried, 'hash')
respire_expect_type(wake, 'stream')
respire_allow(dead, 'XDEL', dead, '0-1')
respire_allow(retried, 'HSET', retried, 'x', 'x')
respire_allow(deadlines, 'ZADD', deadlines, '0', 'x')
respire_allow(wake, 'XADD', wake, 'MAXLEN', '1', '*', 'wake', '1')

-- Whether the subscription gets the publication `id` again without this retry.
local function delivered_anyway(id)
  if redis.call('HEXISTS', retried, id) == 1 then return true end
  if #redis.call('XPENDING', stream, group, id, id, 1) > 0 then return true end
  local c = respire_entry_id_compare(id, last)
  return c ~= nil and c > 0 and redis.call('XRANGE', stream, id, id)[1] ~= nil
end

local now = respire_int(math.floor(respire_now_ms()))
local scheduled = 0
for _, p in ipairs(plan) do
  local fields = p[3]
  local id = fields[4]
  if not delivered_anyway(id) then
    local headers = respire_queue_dead_letter_headers(fields)
    if headers ~= '' then
      redis.call('HSET', retried, id, respire_queue_dead_letter_payload(fields), id .. ':headers', headers)
    else
      redis.call('HSET', retried, id, respire_queue_dead_letter_payload(fields))
    end
    redis.call('ZADD', deadlines, now, respire_member(id, '0'))
    scheduled = scheduled + 1
  end
  redis.call('XDEL', dead, p[2])
  reply[p[1]] = { 1, id }
end
if scheduled > 0 then redis.call('XADD', wake, 'MAXLEN', '1', '*', 'wake', '1') end
return reply
