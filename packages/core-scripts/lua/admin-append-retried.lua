--[[ admin-append-retried: append retried dead-letter records to a source stream in another slot.
Used when a dead-letter stream is in another Cluster slot than its source (an operator's
configuration: a worker's own dead-letter stream always shares its source's slot), so one script
cannot both append and delete: the caller appends here first and deletes the records afterwards. A retry repeated after a failure between the two
appends again; on Redis 8.6+ (not Valkey) each append is an idempotent XADD ... IDMP keyed by the
record ID, so a repeat within the server's window (stream-idmp-duration, stream-idmp-maxsize)
returns the first entry's ID and appends nothing. Elsewhere it may append a duplicate (never lose
the record). Decided on every call on the serving node, never cached. The type and permission are
checked before the first write, so a refusal changes nothing; the appends of one call are atomic.

KEYS[1]  stream: source stream                 (stream)
ARGV[1]  producer: IDMP producer ID          (the dead-letter stream's key)
ARGV[2..] entries: per entry an idempotency ID, n, then n field/value pairs
                                               (idempotency ID: the record ID; n: 1..1024)

Reply    [{ entryId: string, idempotent: flag }]   per entry, in order; idempotent = 1 when IDMP was used
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XADD on the source), RESPIRE_UNSUPPORTED (Redis < 7)
Server   Redis 7+; IDMP on Redis 8.6+.
]]
--@include server
--@include types

respire_require_acl()
local source, producer = KEYS[1], ARGV[1]
respire_expect_type(source, 'stream')
respire_allow(source, 'XADD', source, '*', 'field', 'value')

local entries = {}
local i = 2
while i <= #ARGV do
  local iid, n = ARGV[i], tonumber(ARGV[i + 1])
  local fields = {}
  for f = i + 2, i + 1 + 2 * n do fields[#fields + 1] = ARGV[f] end
  entries[#entries + 1] = { iid, fields }
  i = i + 2 + 2 * n
end

local idmp = respire_redis_version() >= 0x080600
local reply = {}
for k, e in ipairs(entries) do
  local id = nil
  if idmp then
    local r = redis.pcall('XADD', source, 'IDMP', producer, e[1], '*', unpack(e[2]))
    if type(r) == 'table' and r.err then
      local message = string.lower(r.err)
      if not (string.find(message, 'syntax', 1, true) or string.find(message, 'invalid stream id', 1, true)) then error(r) end
      idmp = false
    else
      id = r
    end
  end
  if id then
    reply[k] = { id, 1 }
  else
    reply[k] = { redis.call('XADD', source, '*', unpack(e[2])), 0 }
  end
end
return reply
