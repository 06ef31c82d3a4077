--[[ queue-wait-state: where a waiting receive blocks from and until when. Reads only.
A waiting receive (README of @respire/queue: "Waiting receive") calls it after an empty receive:
the server clock, the earliest deadline in the deadlines index (the next lease expiry or NACK
delay to become due), the private group's last-delivered ID, from which XREAD BLOCK wakes on
the first entry appended after it, and the last entry ID of the wake stream (a NACK appends to
it: queue-nack.lua), from which the same XREAD wakes on the next NACK. A topic subscription
calls it with its group on the topic's stream, its own deadlines index and wake stream. Read in
one atomic call, so no send or NACK can fall between the cursors and the clock. Nothing changes.

KEYS[1]  stream: ready stream                  (stream)
KEYS[2]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
KEYS[3]  wake: wake stream                     (stream of at most one entry)
ARGV[1]  group: consumer group                 (the queue's private group)

Reply    { nowMs: int, nextDueMs: int, cursor: string, wakeCursor: string }
         the server clock (ms, rounded down); the earliest deadline (ms, rounded up), -1 when
         nothing is leased or delayed; the entry ID new entries follow ('0-0' when the stream or
         the group is missing: the first receive reads the stream from its start); the last entry
         ID of the wake stream ('0-0' when it is empty or missing: any entry wakes the block)
Errors   RESPIRE_WRONGTYPE
]]
--@include server
--@include types

local stream, deadlines, wake, group = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
respire_expect_type(stream, 'stream')
respire_expect_type(deadlines, 'zset')
respire_expect_type(wake, 'stream')
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
local last = redis.call('XREVRANGE', wake, '+', '-', 'COUNT', 1)[1]
return { math.floor(now), nextDue, cursor, last and last[1] or '0-0' }
