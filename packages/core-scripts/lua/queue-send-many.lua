--[[ queue-send-many: append a batch of messages, each once per deduplication ID, some delayed.
The queue's sendMany and its delayed sends (README "Delayed send", "Batch send"; beyond the
contract). Each item is appended in order as an entry of the format of
includes/queue-entries.lua, unless its deduplication key holds an entry ID (the window is open):
then that original ID is its result and nothing is appended. An item with a delay records its due
time (server now + delay, rounded up); the receive that finds it before then parks it in the
deadlines index, not delivered. Items sharing a deduplication ID: the first is appended, the rest
are its duplicates. Every key type and permission is checked before the first write.

KEYS[1]  stream: ready stream                  (stream)
KEYS[2..] deduplicationKeys: deduplication keys of the batch   (string: an entry ID, with PX expiry; each once)
ARGV[1..] items: per item payload, key index (0: none; else its index in KEYS), window (ms), delay (ms), headers (bytes, '' for none)

Reply    { ...results: { entryId: string, duplicate: flag } }   per item, in order: duplicate = 1 when
         its deduplication ID was seen within the window (entryId is then the original's); 0 when appended
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XADD on the stream, SET on a deduplication key), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include types
--@include server
--@include queue-entries

respire_require_acl()
local stream = KEYS[1]

-- Plan: read every deduplication key (a read: a key of another type fails here, before any write).
local originals = {}
for k = 2, #KEYS do
  originals[k] = respire_typed_call(KEYS[k], 'string', 'GET', KEYS[k])
end
respire_expect_type(stream, 'stream')
respire_allow(stream, 'XADD', stream, '*', 'payload', 'x', 'due', '1', 'headers', 'x')
for k = 2, #KEYS do
  if not originals[k] then respire_allow(KEYS[k], 'SET', KEYS[k], 'x', 'PX', '1') end
end

local now = nil
local reply = {}
for i = 1, #ARGV, 5 do
  local key = tonumber(ARGV[i + 1])
  local original = key > 0 and originals[key]
  if original then
    reply[#reply + 1] = original
    reply[#reply + 1] = 1
  else
    local delay, due = tonumber(ARGV[i + 3]), nil
    if delay > 0 then
      now = now or respire_now_ms()
      due = math.ceil(now) + delay
    end
    local id = redis.call('XADD', stream, '*', unpack(respire_queue_entry_fields(ARGV[i], due, ARGV[i + 4])))
    if key > 0 then
      redis.call('SET', KEYS[key], id, 'PX', ARGV[i + 2])
      -- A later item with the same ID in this batch is its duplicate.
      originals[key] = id
    end
    reply[#reply + 1] = id
    reply[#reply + 1] = 0
  end
end
return reply
