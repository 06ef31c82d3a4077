--[[ worker-release: fenced release of a failed delivery.
Seed 002 "Pending messages and reliability": on Redis 8.8+ a failed delivery whose minimum idle time
has elapsed is released with XNACK FAIL, keeping its delivery count; otherwise, and on older servers,
the entry is left pending for idle recovery. Fenced like worker-ack. Decided on every call (never
cached): a server without XNACK answers 0. A denied XNACK is a fault (RESPIRE_NOPERM).

KEYS[1]  stream: source stream                 (stream)
ARGV[1]  group: consumer group
ARGV[2]  consumer: consumer name
ARGV[3]  id: entry ID
ARGV[4]  deliveryCount: delivery count of the delivery
ARGV[5]  minimumIdleTimeMs: minimum idle time   (ms, 1..2^31-1)

Reply    1 released with XNACK FAIL; 0 left pending for idle recovery; -1 stale
Errors   RESPIRE_NOPERM (XNACK on Redis 8.8+)
Server   Redis 6.2+; XNACK on Redis 8.8+.
]]
--@include server
--@include fencing

local stream, group, consumer, id, count = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local minIdle = tonumber(ARGV[5])
local entry = respire_fence(stream, group, id, consumer, count)
if not entry then return -1 end
if respire_redis_version() < 0x080800 then return 0 end
if tonumber(entry[3]) < minIdle then return 0 end
respire_allow(stream, 'XNACK', stream, group, 'FAIL', 'IDS', '1', id)
local reply = redis.pcall('XNACK', stream, group, 'FAIL', 'IDS', 1, id)
if type(reply) == 'table' and reply.err then
  if string.find(string.lower(reply.err), 'unknown command', 1, true) then return 0 end
  error(reply)
end
return 1
