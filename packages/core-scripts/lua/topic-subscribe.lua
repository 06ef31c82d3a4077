--[[ topic-subscribe: create a subscription (its consumer group) unless it exists.
A reliable topic's subscription create (queue README "Reliable topic"): the subscription's consumer
group on the topic's stream, created at `start` (MKSTREAM), or for a time after the last entry
before it (later entries with an earlier time cannot be appended: XADD * never goes back). Idempotent: an existing subscription
keeps its position and nothing changes.

KEYS[1]  stream: the topic's publications      (stream)
ARGV[1]  group: the subscription's consumer group
ARGV[2]  start: the last entry ID the subscription does not get: '0' (earliest), '$' (latest) or an entry ID
ARGV[3]  startTimeMs: '' or a time (ms since the epoch): start after the last entry before it, instead of `start`

Reply    flag   1 created; 0 it existed (unchanged)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XGROUP CREATE), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include types

respire_require_acl()
local stream, group = KEYS[1], ARGV[1]
respire_expect_type(stream, 'stream')
respire_allow(stream, 'XGROUP', 'CREATE', stream, group, '0', 'MKSTREAM')
local start = ARGV[2]
if ARGV[3] ~= '' then
  -- The last entry before the time, resolved now: the group then gets every entry at or after it.
  local before = redis.call('XREVRANGE', stream, '(' .. ARGV[3] .. '-0', '-', 'COUNT', 1)[1]
  start = before and before[1] or '0'
end
local created = redis.pcall('XGROUP', 'CREATE', stream, group, start, 'MKSTREAM')
if type(created) == 'table' and created.err then
  if string.find(created.err, 'BUSYGROUP', 1, true) then return 0 end
  error(created)
end
return 1
