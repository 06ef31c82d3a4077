--[[ topic-seek: move a subscription to another position, discarding its leases.
A reliable topic's subscription seek (queue README "Reliable topic": seek): the subscription's
consumer group is made again at `start` (or after the last entry before `startTimeMs`), which
empties its pending entries list, and its deadlines index is deleted with its retried dead letters'
copies (a retried dead letter not yet completed is discarded as a lease is): every receipt it issued is
stale from now on, and the publications after the new position that are still retained are
delivered again, counting from 1. Its dead-letter stream and trimmed counter are kept.

KEYS[1]  stream: the topic's publications      (stream)
KEYS[2]  deadlines: the subscription's delivery deadlines   (sorted set)
KEYS[3]  retried: the subscription's retried dead letters    (hash)
ARGV[1]  group: the subscription's consumer group
ARGV[2]  start: the last entry ID the subscription does not get: '0' (earliest), '$' (latest) or an entry ID
ARGV[3]  startTimeMs: '' or a time (ms since the epoch): start after the last entry before it, instead of `start`

Reply    { position: string, discarded: int }
         the last-delivered ID the subscription now has, and the number of leases discarded
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XGROUP DESTROY, XGROUP CREATE, DEL), RESPIRE_UNSUPPORTED, RESPIRE_NOGROUP
]]
--@include acl
--@include types

respire_require_acl()
local stream, deadlines, retried, group = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
respire_expect_type(stream, 'stream')
respire_expect_type(deadlines, 'zset')
respire_expect_type(retried, 'hash')
local exists = false
if redis.call('EXISTS', stream) == 1 then
  for _, info in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    for f = 1, #info, 2 do
      if info[f] == 'name' and info[f + 1] == group then exists = true end
    end
  end
end
if not exists then
  error({ err = 'RESPIRE_NOGROUP the subscription ' .. group .. ' of ' .. stream .. ' does not exist: create it first' })
end
respire_allow(stream, 'XGROUP', 'DESTROY', stream, group)
respire_allow(stream, 'XGROUP', 'CREATE', stream, group, '0')
respire_allow(deadlines, 'DEL', deadlines)
respire_allow(retried, 'DEL', retried)
local start = ARGV[2]
if ARGV[3] ~= '' then
  local before = redis.call('XREVRANGE', stream, '(' .. ARGV[3] .. '-0', '-', 'COUNT', 1)[1]
  start = before and before[1] or '0'
end
if start == '$' then
  local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)[1]
  start = last and last[1] or '0-0'
end
local discarded = redis.call('ZCARD', deadlines)
redis.call('XGROUP', 'DESTROY', stream, group)
redis.call('XGROUP', 'CREATE', stream, group, start)
redis.call('DEL', deadlines, retried)
return { start, discarded }
