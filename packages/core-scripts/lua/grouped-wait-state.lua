--[[ grouped-wait-state: where a grouped queue's waiting receive blocks from and until when. Reads only.
A grouped queue's waiting receive (README of @respire/queue: "Message groups", "Waiting receive")
calls it after an empty receive: the server clock, the earliest deadline in the grouped deadlines
index, and the last entry IDs of the grouped stream (a send appends to it) and of the wake stream
(an ACK or a dead letter moving a group on, or a NACK, appends to it), from which XREAD BLOCK
wakes on the first entry appended to either, and how many groups are ready now: the cursors are
the streams' ends, so a send or ACK made since the empty receive shows as a ready group instead
(the receive must not block then). Read in one atomic call, so no send or ACK can fall between the
cursors, the ring and the clock. Nothing changes.

KEYS[1]  stream: grouped stream                 (stream: fields payload, group, headers when any)
KEYS[2]  deadlines: delivery deadlines          (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
KEYS[3]  wake: wake stream                      (stream of at most one entry)
KEYS[4]  ready: ready ring                      (sorted set: group ID -> position)

Reply    { nowMs: int, nextDueMs: int, cursor: string, wakeCursor: string, readyGroups: int }
         the server clock (ms, rounded down); the earliest deadline (ms, rounded up), -1 when
         nothing is leased; the last entry ID of the grouped stream and of the wake stream ('0-0'
         for an empty or missing one: any entry wakes the block); the groups in the ready ring
Errors   RESPIRE_WRONGTYPE
]]
--@include server
--@include types

local stream, deadlines, wake, ready = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
respire_expect_type(stream, 'stream')
respire_expect_type(deadlines, 'zset')
respire_expect_type(wake, 'stream')
respire_expect_type(ready, 'zset')
local now = respire_now_ms()
local nextDue = -1
local first = redis.call('ZRANGE', deadlines, 0, 0, 'WITHSCORES')
if first[2] then nextDue = math.ceil(tonumber(first[2])) end
local function last(key)
  local entry = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)[1]
  return entry and entry[1] or '0-0'
end
return { math.floor(now), nextDue, last(stream), last(wake), redis.call('ZCARD', ready) }
