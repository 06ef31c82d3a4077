--[[ admin-ack-pending: an operator's fenced acknowledgement of one pending entry.
The entry is acknowledged (XACK) only while XPENDING still shows it pending to the expected consumer
at the expected delivery count (the values the operator saw); otherwise nothing changes and the
current values are returned. With ARGV[5] = '1' its body is deleted too (XDEL), for every group of
the stream. Permissions are checked before the first write, so a refusal changes nothing.

KEYS[1]  stream: source stream                 (stream)
ARGV[1]  group: consumer group
ARGV[2]  id: entry ID
ARGV[3]  consumer: expected consumer         (owner shown to the operator)
ARGV[4]  deliveryCount: expected delivery count   (shown to the operator, >= 1)
ARGV[5]  deleteEntry: delete the entry too    ('1' or '0')

Reply    { 1, consumer, count } acknowledged; { 0, '', 0 } not pending (also a missing group or
         stream); { -1, consumer, count } changed: the current owner and count, nothing done
Errors   RESPIRE_UNSUPPORTED (Redis < 7), RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XACK; XDEL when deleting)
Server   Redis 7+.
]]
--@include server
--@include fencing

respire_require_acl()
local stream, group, id, consumer, count = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local entry = respire_pending_entry(stream, group, id)
if not entry then return { 0, '', 0 } end
if entry[2] ~= consumer or tonumber(entry[4]) ~= tonumber(count) then
  return { -1, entry[2], tonumber(entry[4]) }
end
respire_allow(stream, 'XACK', stream, group, id)
if ARGV[5] == '1' then respire_allow(stream, 'XDEL', stream, id) end
redis.call('XACK', stream, group, id)
if ARGV[5] == '1' then redis.call('XDEL', stream, id) end
return { 1, consumer, tonumber(entry[4]) }
