--[[ queue-wait-state: where a waiting receive blocks from and until when. Reads only.
A waiting receive (README of @respire/queue: "Waiting receive") calls it after an empty receive:
the server clock, the earliest deadline in the deadlines index (the next lease expiry or NACK
delay to become due) and the private group's last-delivered ID, from which XREAD BLOCK wakes on
the first entry appended after it. Read in one atomic call, so no send can fall between the
cursor and the clock. Nothing changes.

KEYS[1]  stream: ready stream                  (stream)
KEYS[2]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
ARGV[1]  group: consumer group                 (the queue's private group)

Reply    { nowMs: int, nextDueMs: int, cursor: string }
         the server clock (ms, rounded down); the earliest deadline (ms, rounded up), -1 when
         nothing is leased or delayed; the entry ID new entries follow ('0-0' when the stream or
         the group is missing: the first receive reads the stream from its start)
Errors   RESPIRE_WRONGTYPE
]]
--@include server
--@include types

local stream, deadlines, group = KEYS[1], KEYS[2], ARGV[1]
respire_expect_type(stream, 'stream')
respire_expect_type(deadlines, 'zset')
local now = respire_now_ms()
local nextDue = -1
local first = redis.call('ZRANGE', deadlines, 0, 0, 'WITHSCORES')
if first[2] then nextDue = math.ceil(tonumber(first[2])) end
local cursor = '0-0'
if redis.call('EXISTS', stream) == 1 then
  for _, info in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    local fields = {}
    for i = 1, #info, 2 do fields[info[i]] = info[i + 1] end
    if fields['name'] == group then cursor = fields['last-delivered-id'] end
  end
end
return { math.floor(now), nextDue, cursor }
