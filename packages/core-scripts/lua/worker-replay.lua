--[[ worker-replay: one page of a stable consumer's own pending entries, replayed at startup.
A stable consumer name replays its own pending entries once at startup, before new entries
(worker README, "Options": consumerName); counts come from Redis and include startup replay. The page is re-claimed to the same
consumer with XCLAIM (min idle 0), which increments each delivery count, so a handler still running
in an earlier process under the same name is fenced out. Entries whose bodies were deleted are
dropped from the PEL (XCLAIM does so on Redis 7+; XACK here otherwise) and never returned.

KEYS[1]  stream: source stream                 (stream)
ARGV[1]  group: consumer group
ARGV[2]  consumer: consumer name
ARGV[3]  after: start after this entry ID      ('-' for the first page; exclusive otherwise)
ARGV[4]  count: page size                      (entries, >= 1)

Reply    { last: string, entries: [{ id: string, fields: [bytes], deliveryCount: int }], removed: int }
         the last pending ID examined ('' when there were none), the entries re-claimed, and the
         number of pending IDs whose bodies were deleted that were removed
Errors   NOGROUP (group or stream missing), NOPERM
Server   Redis 6.2+.
]]
local stream, group, consumer = KEYS[1], ARGV[1], ARGV[2]
local start = ARGV[3] == '-' and '-' or ('(' .. ARGV[3])
local pending = redis.call('XPENDING', stream, group, start, '+', tonumber(ARGV[4]), consumer)
if #pending == 0 then return { '', {}, 0 } end
local ids, counts = {}, {}
for i, p in ipairs(pending) do
  ids[i] = p[1]
  counts[p[1]] = tonumber(p[4])
end
local claimed = redis.call('XCLAIM', stream, group, consumer, 0, unpack(ids))
local entries, seen, removed = {}, {}, 0
for _, e in ipairs(claimed) do
  if type(e) == 'table' and type(e[2]) == 'table' then
    seen[e[1]] = true
    entries[#entries + 1] = { e[1], e[2], counts[e[1]] + 1 }
  end
end
for _, id in ipairs(ids) do
  if not seen[id] then
    redis.call('XACK', stream, group, id)
    removed = removed + 1
  end
end
return { ids[#ids], entries, removed }
