--[[ worker-recover: one recovery page of idle pending entries for one reader.
Each reader runs at most one page per recovery poll interval, of up to batch-size entries; each
claim increments the Redis delivery count (worker README, "Options": recoveryPollIntervalMs).
Decided on every call on the serving node (never cached):
  * Redis 8.4+ with XRANGE, XACK and XREADGROUP permitted: first removes up to COUNT idle pending IDs
    whose bodies were deleted (XPENDING IDLE + XRANGE + XACK), then XREADGROUP ... CLAIM min-idle
    COUNT n STREAMS s > (claimed entries first; new entries may fill the rest of the page). A server
    that rejects CLAIM falls back to XAUTOCLAIM.
  * otherwise XAUTOCLAIM from ARGV[4] (follow the returned cursor). On Redis 7+ it purges deleted IDs
    itself. Redis 6.2 (no redis.REDIS_VERSION in Lua) returns deleted entries as nil and keeps them
    pending, so the same XPENDING IDLE + XRANGE + XACK cleanup runs first there (skipped when XRANGE
    is denied); an entry that still comes back without fields is acknowledged, never returned.

KEYS[1]  stream: source stream                 (stream)
ARGV[1]  group: consumer group
ARGV[2]  consumer: consumer name               (the reader that takes the entries)
ARGV[3]  minimumIdleTimeMs: minimum idle time   (ms, 1..2^31-1)
ARGV[4]  cursor: XAUTOCLAIM cursor             ('0-0' to start a scan)
ARGV[5]  count: page size                      (entries, >= 1)

Reply    { cursor: string, entries: [{ id: string, fields: [bytes], deliveryCount: int }],
           removed: int, method: 'xautoclaim' | 'claim' }
         the next cursor ('0-0' when the scan wrapped, always with CLAIM), the claimed entries, the
         number of pending IDs whose bodies were deleted that were removed, and the method used
Errors   NOGROUP (group or stream missing), NOPERM
Server   Redis 6.2+ (XAUTOCLAIM); XREADGROUP CLAIM on Redis 8.4+.
]]
--@include server

local stream, group, consumer = KEYS[1], ARGV[1], ARGV[2]
local minIdle, cursor, count = ARGV[3], ARGV[4], tonumber(ARGV[5])
local entries, removed = {}, 0

local function remove_deleted_idle()
  local idle = redis.call('XPENDING', stream, group, 'IDLE', minIdle, '-', '+', count)
  for _, p in ipairs(idle) do
    local body = redis.pcall('XRANGE', stream, p[1], p[1])
    if type(body) == 'table' and body.err then return end
    if not body[1] then
      redis.call('XACK', stream, group, p[1])
      removed = removed + 1
    end
  end
end

if respire_redis_version() < 0x070000 then
  remove_deleted_idle() -- Redis 6.2
elseif respire_redis_version() >= 0x080400
  and respire_acl_allows('XRANGE', stream, '-', '+')
  and respire_acl_allows('XACK', stream, group, '0-1')
  and respire_acl_allows('XREADGROUP', 'GROUP', group, consumer, 'COUNT', '1', 'CLAIM', '1', 'STREAMS', stream, '>') then
  remove_deleted_idle()
  local read = redis.pcall('XREADGROUP', 'GROUP', group, consumer, 'COUNT', count, 'CLAIM', minIdle, 'STREAMS', stream, '>')
  local rejected = type(read) == 'table' and read.err and string.find(string.lower(read.err), 'syntax', 1, true)
  if not rejected then
    if type(read) == 'table' and read.err then error(read) end
    if type(read) == 'table' and read[1] then
      for _, e in ipairs(read[1][2]) do
        local previous = tonumber(e[4]) or 0
        entries[#entries + 1] = { e[1], e[2], previous + 1 }
      end
    end
    return { '0-0', entries, removed, 'claim' }
  end
end

local reply = redis.call('XAUTOCLAIM', stream, group, consumer, minIdle, cursor, 'COUNT', count)
for _, e in ipairs(reply[2]) do
  if type(e) == 'table' then
    if type(e[2]) ~= 'table' then
      redis.call('XACK', stream, group, e[1])
      removed = removed + 1
    else
      local p = redis.call('XPENDING', stream, group, e[1], e[1], 1)[1]
      if p then entries[#entries + 1] = { e[1], e[2], tonumber(p[4]) } end
    end
  end
end
if type(reply[3]) == 'table' then removed = removed + #reply[3] end
return { reply[1], entries, removed, 'xautoclaim' }
