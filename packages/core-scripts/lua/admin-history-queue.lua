--[[ admin-history-queue: record one history sample of a reliable queue, unless one is recent.
The sample (include history) holds the ready stream's entries added and length, its oldest entry
(acknowledged and dead-lettered messages are deleted, so it is the oldest unacknowledged one),
the private group's entries read and lag, the deadlines set's size (in flight) and due members,
the dead letters added and their length, and the counters hash when the queue keeps one. Reads
only, then one XADD to the history stream trimmed by age; nothing else changes.

KEYS[1]  stream: ready stream                  (stream)
KEYS[2]  deadlines: delivery deadlines         (sorted set)
KEYS[3]  deadLetter: dead-letter stream        (stream)
KEYS[4]  counters: counters the queue may keep (hash: field -> count, optional)
KEYS[5]  history: history stream               (stream: one entry per sample)
ARGV[1]  minIntervalMs: skip when the last sample is younger   (ms, 0..2^31-1)
ARGV[2]  retentionMs: keep samples this long   (ms, 1..2^53)
ARGV[3]  maxGroups: groups sampled at most     (1..1000)

Reply    { 1 recorded, sampleId: string } | { 0 skipped, lastSampleId: string }
         recorded, or skipped: the last sample is younger than ARGV[1]
Errors   RESPIRE_UNSUPPORTED (Redis < 7), RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XADD on the history stream)
Server   Redis 7+ (XINFO entries-added, entries-read and lag).
]]
--@include history

respire_require_acl()
local stream, deadlines, dead, counters, history = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local now = respire_now_ms()
if not respire_history_due(history, now, ARGV[1]) then
  return { 0, redis.call('XREVRANGE', history, '+', '-', 'COUNT', 1)[1][1] }
end
local added, length, first = respire_stream_facts(stream)
local deadAdded, deadLength = respire_stream_facts(dead)
local fields = {
  'v', '1', 'added', added, 'length', length, 'oldest', respire_ms_of(first ~= '' and first or nil),
  'dlAdded', deadAdded, 'dlLength', deadLength,
  'inFlight', respire_num(respire_typed_call(deadlines, 'zset', 'ZCARD', deadlines)),
  'due', respire_num(redis.call('ZCOUNT', deadlines, '-inf', respire_ms(now))),
}
return { 1, respire_history_record(history, now, ARGV[2], fields, stream, ARGV[3], counters) }
