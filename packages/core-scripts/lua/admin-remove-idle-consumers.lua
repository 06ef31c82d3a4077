--[[ admin-remove-idle-consumers: delete a group's idle consumers that hold no pending entries.
Random consumer names accumulate consumer metadata across restarts; an unused consumer may be
removed only once its pending entries are recovered (worker README, "Options": consumerName). XGROUP DELCONSUMER drops a
consumer's pending entries, so a consumer is deleted only when XINFO CONSUMERS shows it with 0
pending entries and idle (since its last attempted interaction) for at least ARGV[2]; both are read
and acted on in this one script, so an entry delivered between the check and the delete cannot be
lost. Consumers idle past the threshold that still hold pending entries are kept and named.

KEYS[1]  stream: source stream                 (stream)
ARGV[1]  group: consumer group
ARGV[2]  minIdleMs: minimum idle time         (ms, 1..2^31-1)

Reply    { removed: [string], kept: [string] }
         the consumers removed, and the idle consumers kept because they hold pending entries (both
         empty for a missing stream or group)
Errors   RESPIRE_UNSUPPORTED (Redis < 7), RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XGROUP DELCONSUMER)
Server   Redis 7+.
]]
--@include server

respire_require_acl()
local stream, group, minIdle = KEYS[1], ARGV[1], tonumber(ARGV[2])
local consumers = redis.pcall('XINFO', 'CONSUMERS', stream, group)
if type(consumers) == 'table' and consumers.err then
  if string.find(consumers.err, 'NOGROUP', 1, true) or string.find(consumers.err, 'no such key', 1, true) then return { {}, {} } end
  if string.find(consumers.err, 'WRONGTYPE', 1, true) then
    error({ err = 'RESPIRE_WRONGTYPE ' .. stream .. ' holds another type, expected a stream' })
  end
  error(consumers)
end

local removable, kept = {}, {}
for _, c in ipairs(consumers) do
  local info = {}
  for f = 1, #c, 2 do info[c[f]] = c[f + 1] end
  if tonumber(info['idle']) >= minIdle then
    if tonumber(info['pending']) == 0 then
      removable[#removable + 1] = info['name']
    else
      kept[#kept + 1] = info['name']
    end
  end
end
if #removable > 0 then
  respire_allow(stream, 'XGROUP', 'DELCONSUMER', stream, group, 'consumer')
  for _, name in ipairs(removable) do redis.call('XGROUP', 'DELCONSUMER', stream, group, name) end
end
return { removable, kept }
