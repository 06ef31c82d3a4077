--[[ topic-publish-many: append publications in one atomic step, each once per deduplication ID, then apply retention.
A reliable topic's publishMany (queue README "Reliable topic"): the queue's sendMany rules
(queue-send-many.lua) without delays. Each item is appended in order as an entry of the format of
includes/queue-entries.lua (payload, then headers when it has any), unless its deduplication key
holds an entry ID (the window is open): then that original ID is its result and nothing is
appended. Items sharing a deduplication ID: the first is appended, the rest are its duplicates. All
or none: every key type and permission is checked before the first write. Then, when anything was
appended, the topic's retention (includes/topic-retention.lua) trims at most `trimLimit` of the
oldest publications that no subscription needs or that a bound excludes (never the new ones).

KEYS[1]  stream: the topic's publications      (stream)
KEYS[2]  trimmed: publications trimmed before completion, per subscription   (hash: subscription -> count)
KEYS[3..] deduplicationKeys: deduplication keys of the batch   (string: an entry ID, with PX expiry; each once)
ARGV[1]  maxAgeMs: retention bound by age, 0 for none   (ms, 0..2^31-1)
ARGV[2]  maxLength: retention bound by length, 0 for none   (publications, 0..2^31-1)
ARGV[3]  trimLimit: most publications trimmed by this call   (publications, 1..1000)
ARGV[4..] items: per item payload, key index (0: none; else its index in KEYS), window (ms), headers (bytes, '' for none)

Reply    { trimmed: int, ...results: { entryId: string, duplicate: flag } }
         the number of publications retention removed, then per item, in order: duplicate = 1 when
         its deduplication ID was seen within the window (entryId is then the original's); 0 when appended
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XADD, SET, XTRIM, HINCRBY), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include types
--@include topic-retention
--@include queue-entries

respire_require_acl()
local stream, trimmed = KEYS[1], KEYS[2]

-- Plan: read every deduplication key (a read: a key of another type fails here, before any write),
-- and count the items that will be appended.
local originals, seen, adding = {}, {}, 0
for k = 3, #KEYS do
  originals[k] = respire_typed_call(KEYS[k], 'string', 'GET', KEYS[k])
end
for i = 4, #ARGV, 4 do
  local key = tonumber(ARGV[i + 1])
  if key == 0 or (not originals[key] and not seen[key]) then adding = adding + 1 end
  if key > 0 then seen[key] = true end
end
respire_topic_retention_allow(stream, trimmed)
respire_allow(stream, 'XADD', stream, '*', 'payload', 'x', 'headers', 'x')
for k = 3, #KEYS do
  if not originals[k] then respire_allow(KEYS[k], 'SET', KEYS[k], 'x', 'PX', '1') end
end
-- Planned before the first write; the new entries are the newest and never trimmed.
local plan = adding > 0 and respire_topic_retention_plan(stream, tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), adding) or nil

local reply = { 0 }
local first = nil
for i = 4, #ARGV, 4 do
  local key = tonumber(ARGV[i + 1])
  local original = key > 0 and originals[key]
  if original then
    reply[#reply + 1] = original
    reply[#reply + 1] = 1
  else
    local id = redis.call('XADD', stream, '*', unpack(respire_queue_entry_fields(ARGV[i], nil, ARGV[i + 3])))
    if key > 0 then
      redis.call('SET', KEYS[key], id, 'PX', ARGV[i + 2])
      -- A later item with the same ID in this batch is its duplicate.
      originals[key] = id
    end
    first = first or id
    reply[#reply + 1] = id
    reply[#reply + 1] = 0
  end
end
if plan then
  if plan.count > 0 and not plan.keep then plan.keep = first end
  reply[1] = respire_topic_retention_apply(stream, trimmed, plan)
end
return reply
