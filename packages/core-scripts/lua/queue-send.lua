--[[ queue-send: append a message once per deduplication ID within its window.
The queue's send with a deduplication ID (README "The contract": send). A send without one is a
plain XADD.

KEYS[1]  stream: ready stream                  (stream)
KEYS[2]  deduplicationKey: deduplication key of this ID   (string: the original entry ID, with PX expiry)
ARGV[1]  payload: message payload              (bytes)
ARGV[2]  windowMs: deduplication window         (ms, 1..2^31-1)

Reply    { entryId: string, duplicate: flag }
         duplicate = 1 when the ID was seen within the window: entryId is then the original
         entry's ID, nothing is appended and the window is not extended; 0 when the payload was
         appended.
Errors   RESPIRE_WRONGTYPE, RESPIRE_NOPERM (XADD on the stream, SET on the key), RESPIRE_UNSUPPORTED
]]
--@include acl
--@include types

respire_require_acl()
respire_expect_type(KEYS[2], 'string')
local original = redis.call('GET', KEYS[2])
if original then
  return { original, 1 }
end
respire_expect_type(KEYS[1], 'stream')
respire_allow(KEYS[1], 'XADD', KEYS[1], '*', 'payload', 'x')
respire_allow(KEYS[2], 'SET', KEYS[2], 'x', 'PX', '1')
local id = redis.call('XADD', KEYS[1], '*', 'payload', ARGV[1])
redis.call('SET', KEYS[2], id, 'PX', ARGV[2])
return { id, 0 }
