--[[ admin-ack-pending: an operator's fenced acknowledgement of one pending entry.
The entry is acknowledged (XACK) only while XPENDING still shows it pending to the expected consumer
at the expected delivery count (the values the operator saw); otherwise nothing changes and the
current values are returned. With ARGV[5] = '1' its body is deleted too (XDEL), but only when no
other group of the stream still needs it: an entry still pending in another group, or not yet
delivered to it (its ID above that group's last-delivered-id), keeps its body, and those groups are
named (deleting a body must leave other groups unaffected). Every read comes before the
first write and permissions are checked before it, so a refusal changes nothing.

KEYS[1]  stream: source stream                 (stream)
ARGV[1]  group: consumer group
ARGV[2]  id: entry ID                       (as Redis prints it: no leading zeros)
ARGV[3]  consumer: expected consumer         (owner shown to the operator)
ARGV[4]  deliveryCount: expected delivery count   (shown to the operator, >= 1)
ARGV[5]  deleteEntry: delete the entry too    ('1' or '0')

Reply    { 1 acknowledged, consumer: string, deliveryCount: int, keptFor: [string] }
         | { 0 notPending, '', 0 } | { -1 changed, consumer: string, deliveryCount: int }
         acknowledged, with the groups that still need the body (empty when the body was deleted
         or no deletion was asked); not pending (also a missing group or stream); changed: the
         current owner and count, nothing done
Errors   RESPIRE_UNSUPPORTED (Redis < 7), RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XACK; XDEL when deleting)
Server   Redis 7+.
]]
--@include server
--@include fencing
--@include entry-ids

-- The other groups that have not yet read and acknowledged the entry.
local function still_needed_by(stream, group, id)
  local needed = {}
  for _, g in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    local info = {}
    for f = 1, #g, 2 do info[g[f]] = g[f + 1] end
    local name = info['name']
    if name ~= group then
      if respire_entry_id_compare(id, info['last-delivered-id']) == 1 or #redis.call('XPENDING', stream, name, id, id, 1) > 0 then
        needed[#needed + 1] = name
      end
    end
  end
  return needed
end

respire_require_acl()
local stream, group, id, consumer, count = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local entry = respire_pending_entry(stream, group, id)
if not entry then return { 0, '', 0 } end
if entry[2] ~= consumer or tonumber(entry[4]) ~= tonumber(count) then
  return { -1, entry[2], tonumber(entry[4]) }
end
local keptFor = {}
if ARGV[5] == '1' then keptFor = still_needed_by(stream, group, id) end
local delete = ARGV[5] == '1' and #keptFor == 0
respire_allow(stream, 'XACK', stream, group, id)
if delete then respire_allow(stream, 'XDEL', stream, id) end
redis.call('XACK', stream, group, id)
if delete then redis.call('XDEL', stream, id) end
return { 1, consumer, tonumber(entry[4]), keptFor }
