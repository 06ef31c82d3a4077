--[[ admin-history-stream: record one history sample of a worker stream, unless one is recent.
The sample (include history) holds the stream's entries added and length, per consumer group
(at most ARGV[3]) its entries read, pending count, lag, last-delivered time, oldest pending
entry and first entry not yet delivered to it, and consumers; the dead-letter stream's entries
added and length (read here when it shares the slot, ARGV[4] = '1'; else read by the caller just
before and passed in ARGV[5] and ARGV[6], '' when there is none), and the counters hash when the
workers keep one. Reads only, then one XADD to the history stream
trimmed by age; nothing else changes.

KEYS[1]  stream: source stream                 (stream)
KEYS[2]  deadLetter: dead-letter stream        (stream; any key of the slot when ARGV[4] is '0')
KEYS[3]  counters: counters the workers may keep   (hash: field -> count, optional)
KEYS[4]  history: history stream               (stream: one entry per sample)
ARGV[1]  minIntervalMs: skip when the last sample is younger   (ms, 0..2^31-1)
ARGV[2]  retentionMs: keep samples this long   (ms, 1..2^53)
ARGV[3]  maxGroups: groups sampled at most     (1..1000)
ARGV[4]  hasDeadLetter: whether KEYS[2] is the dead-letter stream   ('1' or '0')
ARGV[5]  deadLetterAdded: its entries added, read by the caller   (when ARGV[4] is '0'; '' unknown)
ARGV[6]  deadLetterLength: its length, read by the caller   (when ARGV[4] is '0'; '' unknown)

Reply    { 1 recorded, sampleId: string } | { 0 skipped, lastSampleId: string }
         recorded, or skipped: the last sample is younger than ARGV[1]
Errors   RESPIRE_UNSUPPORTED (Redis < 7), RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XADD on the history stream)
Server   Redis 7+ (XINFO entries-added, entries-read and lag).
]]
--@include history

respire_require_acl()
local stream, dead, counters, history = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now = respire_now_ms()
if not respire_history_due(history, now, ARGV[1]) then
  return { 0, redis.call('XREVRANGE', history, '+', '-', 'COUNT', 1)[1][1] }
end
local added, length = respire_stream_facts(stream)
local fields = { 'v', '1', 'added', added, 'length', length }
local deadAdded, deadLength = ARGV[5], ARGV[6]
if ARGV[4] == '1' then deadAdded, deadLength = respire_stream_facts(dead) end
if deadAdded ~= '' or deadLength ~= '' then
  fields[#fields + 1] = 'dlAdded'
  fields[#fields + 1] = deadAdded
  fields[#fields + 1] = 'dlLength'
  fields[#fields + 1] = deadLength
end
return { 1, respire_history_record(history, now, ARGV[2], fields, stream, ARGV[3], counters) }
