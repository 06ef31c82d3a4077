--[[ queue-receive: recover due entries, dead-letter exhausted ones, then lease new entries.
Seed 000 "Delivery and receipts", "Delivery limit and dead letters".

Recovery is bounded: at most `max` due entries (expired leases and due NACKs, oldest deadline
first) are examined per call. Each due entry with deliveries left is redelivered and takes a
batch slot; an exhausted one (delivery count >= limit) is moved to the dead-letter stream and
takes no slot; one whose body is gone is dropped from the metadata and takes no slot. Remaining
slots are filled with new entries through the private consumer group (created at '0' with
MKSTREAM when missing). Writes run only after every key type and every permission the call
will use has been checked.

KEYS[1]  stream: ready stream                  (stream)
KEYS[2]  deadlines: delivery deadlines         (sorted set: "<entry ID>:<receipt or count>" -> deadline, ms)
KEYS[3]  deadLetter: dead-letter stream        (stream)
ARGV[1]  visibilityTimeoutMs: visibility timeout   (ms, 1..2^31-1)
ARGV[2]  max: most messages                    (messages, 1..1000)
ARGV[3]  deliveryLimit: delivery limit         (deliveries, >= 1)
ARGV[4]  token: receipt token of this call     (16 URL-safe characters, client-generated)
ARGV[5]  group: consumer group and consumer name   (the queue's private group)

Reply    { deadLettered: int, ...entries: { id: string, payload: bytes, deliveryCount: int } }
         the number of messages moved to the dead-letter stream, then the leased entries:
         redelivered entries first (oldest deadline first), then new entries in stream order;
         each receipt is "<count>.<token>.<position in the batch, from 1>".
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM, RESPIRE_UNSUPPORTED
]]
--@include acl
--@include leases

respire_require_acl()
local stream, deadlines, dead = KEYS[1], KEYS[2], KEYS[3]
local visibility, max, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local token, group = ARGV[4], ARGV[5]
respire_expect_type(stream, 'stream')

local now = respire_now_ms()
local deadline = respire_int(math.ceil(now) + visibility)

-- Plan: classify the due entries before writing anything.
local redeliver, exhausted, vanished = {}, {}, {}
local due = respire_typed_call(deadlines, 'zset', 'ZRANGEBYSCORE', deadlines, '-inf', respire_ms(now), 'LIMIT', 0, max)
for _, member in ipairs(due) do
  local id, count = respire_parse_member(member)
  local body = id and redis.call('XRANGE', stream, id, id)[1]
  if not body then
    vanished[#vanished + 1] = id
  elseif count >= limit then
    exhausted[#exhausted + 1] = { id, respire_payload(body[2]), count }
  else
    redeliver[#redeliver + 1] = { id, respire_payload(body[2]), count + 1 }
  end
end
local slots = max - #redeliver

-- Preflight: every write this call will make.
if #exhausted > 0 then
  respire_expect_type(dead, 'stream')
  respire_allow(dead, 'XADD', dead, '*', 'payload', 'x', 'source_id', '0-1', 'delivery_count', '1')
end
local native = false
if #exhausted > 0 or #vanished > 0 then native = respire_plan_ack_delete(stream, group) end
if #due > 0 then respire_allow(deadlines, 'ZREM', deadlines, 'x') end
if slots > 0 then
  respire_allow(stream, 'XREADGROUP', 'GROUP', group, group, 'COUNT', '1', 'STREAMS', stream, '>')
end
respire_allow(deadlines, 'ZADD', deadlines, '0', 'x')

-- Writes. XREADGROUP goes first: a missing group is its only failure, and nothing has changed yet.
local fresh = {}
if slots > 0 then
  local read = redis.pcall('XREADGROUP', 'GROUP', group, group, 'COUNT', slots, 'STREAMS', stream, '>')
  if type(read) == 'table' and read.err then
    if not string.find(read.err, 'NOGROUP', 1, true) then error(read) end
    respire_allow(stream, 'XGROUP', 'CREATE', stream, group, '0', 'MKSTREAM')
    redis.call('XGROUP', 'CREATE', stream, group, '0', 'MKSTREAM')
    read = redis.call('XREADGROUP', 'GROUP', group, group, 'COUNT', slots, 'STREAMS', stream, '>')
  end
  if read and read[1] then fresh = read[1][2] end
end

local drop = {}
for _, entry in ipairs(exhausted) do
  redis.call('XADD', dead, '*', 'payload', entry[2], 'source_id', entry[1],
    'delivery_count', respire_int(entry[3]))
  drop[#drop + 1] = entry[1]
end
for _, id in ipairs(vanished) do
  if id then drop[#drop + 1] = id end
end
if #drop > 0 then respire_ack_delete(stream, group, drop, native) end
if #due > 0 then redis.call('ZREM', deadlines, unpack(due)) end

local reply = { #exhausted }
local leases = {}
local function lease(id, payload, count)
  local position = #leases / 2 + 1
  leases[#leases + 1] = deadline
  leases[#leases + 1] = respire_member(id, respire_receipt(count, token, position))
  reply[#reply + 1] = id
  reply[#reply + 1] = payload
  reply[#reply + 1] = count
end
for _, entry in ipairs(redeliver) do lease(entry[1], entry[2], entry[3]) end
for _, entry in ipairs(fresh) do lease(entry[1], respire_payload(entry[2]), 1) end
if #leases > 0 then redis.call('ZADD', deadlines, unpack(leases)) end
return reply
