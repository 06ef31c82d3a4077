--[[ include: server
Server facts, read from the serving node inside each call (never cached by the client).

  respire_now_ms()        server clock (TIME) in milliseconds with the microseconds as a fraction
  respire_int(n)          a whole number as a decimal string, safe past 2^31 and 2^53 formatting quirks
  respire_ms(n)           a millisecond time with its fraction (3 decimals), for score ranges
  respire_is_valkey()     true on Valkey, which pins REDIS_VERSION to 7.2.4 in Lua
  respire_has_xackdel()   true on Redis 8.2+ (not Valkey) when the caller may run XACKDEL
  respire_require_acl()   raises RESPIRE_UNSUPPORTED on servers without redis.acl_check_cmd (Redis < 7)
]]
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

local function respire_is_valkey()
  return redis.SERVER_NAME == 'valkey'
end

local function respire_require_acl()
  if type(redis.acl_check_cmd) ~= 'function' then
    error({ err = 'RESPIRE_UNSUPPORTED Redis 7.0 or newer (redis.acl_check_cmd) is required' })
  end
end

local function respire_has_xackdel(stream, group)
  if respire_is_valkey() then return false end
  local version = tonumber(redis.REDIS_VERSION_NUM) or 0
  if version < 0x080200 then return false end
  local ok, allowed = pcall(redis.acl_check_cmd, 'XACKDEL', stream, group, 'IDS', '1', '0-1')
  return ok and allowed == true
end
