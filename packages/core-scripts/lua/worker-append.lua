--[[ worker-append: append one typed entry, with a stable idempotency identity on Redis 8.6+.
The worker's StreamProducer (worker README, "Producer retries"): an append carries a stable
identity on Redis 8.6+ (XADD ... IDMP producer-id idempotency-id). A repeat within the
server's window (stream-idmp-duration, stream-idmp-maxsize) returns the original entry's ID and
appends nothing; the payload is not compared. Elsewhere the entry is appended plainly. A retry
(ARGV[3] = '1') on a server without IDMP is refused, because the first attempt may have committed
and a plain append could duplicate it. Decided on every call, never cached.

KEYS[1]  stream: target stream                 (stream)
ARGV[1]  producerId: producer ID               (stable per producer)
ARGV[2]  idempotencyId: idempotency ID         (stable per logical append, reused by its retries)
ARGV[3]  retry: retry flag                     ('1' for a retry of an uncertain append, else '0')
ARGV[4..] fields: field, value, field, value, ...   (at least one pair)

Reply    { entryId: string, idempotent: flag }   idempotent = 1 when IDMP was used, else 0
Errors   RESPIRE_UNSUPPORTED (a retry without IDMP), RESPIRE_WRONGTYPE, NOPERM
Server   Redis 6.2+; IDMP on Redis 8.6+ (not Valkey 9.1).
]]
--@include server
--@include types

local stream = KEYS[1]
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
respire_expect_type(stream, 'stream')
if respire_redis_version() >= 0x080600 then
  local id = redis.pcall('XADD', stream, 'IDMP', ARGV[1], ARGV[2], '*', unpack(fields))
  if type(id) ~= 'table' or not id.err then return { id, 1 } end
  local message = string.lower(id.err)
  if not (string.find(message, 'syntax', 1, true) or string.find(message, 'invalid stream id', 1, true)) then error(id) end
end
if ARGV[3] == '1' then
  error({ err = 'RESPIRE_UNSUPPORTED the server has no idempotent XADD (IDMP, Redis 8.6+): an uncertain append is not retried' })
end
return { redis.call('XADD', stream, '*', unpack(fields)), 0 }
