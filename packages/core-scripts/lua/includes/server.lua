--[[ include: server - server facts: the clock, number formatting, the version gate, XACKDEL
Server facts, read from the serving node inside each call (never cached by the client).

  respire_now_ms()          server clock (TIME) in milliseconds with the microseconds as a fraction
  respire_int(n)            a whole number as a decimal string, safe past 2^31 and 2^53 formatting quirks
  respire_ms(n)             a millisecond time with its fraction (3 decimals), for score ranges
  respire_redis_version()   the one version gate: REDIS_VERSION_NUM (0x00MMmmpp) on Redis 7+; 0 on
                            Redis before 7.0 (no version in Lua); 0x070200 on Valkey, which has
                            Redis 7.2's stream commands and none of Redis 8's (and pins
                            REDIS_VERSION to 7.2.4, so its own number says nothing about them)
  respire_has_xackdel(stream, group)
                            true on Redis 8.2+ when the caller may run XACKDEL
]]
--@include acl

local function respire_now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000.0 + tonumber(t[2]) / 1000.0
end

local function respire_int(n)
  return string.format('%.0f', n)
end

local function respire_ms(n)
  return string.format('%.3f', n)
end

local function respire_redis_version()
  if redis.SERVER_NAME == 'valkey' then return 0x070200 end
  return tonumber(redis.REDIS_VERSION_NUM) or 0
end

local function respire_has_xackdel(stream, group)
  return respire_redis_version() >= 0x080200
    and respire_acl_allows('XACKDEL', stream, group, 'IDS', '1', '0-1') == true
end
