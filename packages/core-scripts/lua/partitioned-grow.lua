--[[ partitioned-grow: append a partition count to a partitioned queue's history, if unchanged.
PartitionedQueue.grow (README of @respire/queue: "Scaling past one master", "Growing the
partition count"): a compare-and-set of the metadata key, so two concurrent grows never both
apply to one history, and the server clock of the growth is recorded with it. The caller reads
the history, decides, and calls this with what it read; a changed history is answered, not
overwritten, and the caller decides again.

KEYS[1]  metadata: the queue's partition history   (string: "<count>" or "<count>,<count>@<ms>,...", "g" first when grouped)
ARGV[1]  recorded: the history the caller read      ('' when the key was missing)
ARGV[2]  count: the partition count to append       (decimal, 1..256; checked by the caller)

Reply    { applied: flag, history: string }
         applied = 1: the key now holds history (ARGV[2] alone when the key was missing, else
         ARGV[1] then ",<count>@<server clock, ms>"); 0: the key no longer holds ARGV[1] and
         nothing changed, history is what it holds ('' when missing)
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (SET on the key)
]]
--@include server
--@include acl
--@include types

local key = KEYS[1]
respire_expect_type(key, 'string')
local current = redis.call('GET', key) or ''
if current ~= ARGV[1] then
  return { 0, current }
end
local history = ARGV[2]
if current ~= '' then
  history = current .. ',' .. ARGV[2] .. '@' .. respire_int(math.floor(respire_now_ms()))
end
respire_allow(key, 'SET', key, history)
redis.call('SET', key, history)
return { 1, history }
