--[[ include: acl - permission checks before a script's first write
Permission checks made before a script's first write, so that a refusal changes nothing. One probe
(redis.acl_check_cmd: command and key permissions of the calling user) serves every check.

  respire_acl_allows(cmd, ...)  true when the user may run `cmd ...`; false when refused; nil on a
                                server without redis.acl_check_cmd (Redis before 7.0)
  respire_allow(key, cmd, ...)  raises RESPIRE_NOPERM when the user may not run `cmd ...` (`key`
                                names the key in the message); where the server cannot check
                                (Redis before 7.0) the command itself decides
  respire_require_acl()         raises RESPIRE_UNSUPPORTED on a server without redis.acl_check_cmd,
                                for scripts whose contract needs every check made up front
]]
local function respire_acl_allows(cmd, ...)
  if type(redis.acl_check_cmd) ~= 'function' then return nil end
  local ok, allowed = pcall(redis.acl_check_cmd, cmd, ...)
  return ok and allowed == true
end

local function respire_allow(key, cmd, ...)
  if respire_acl_allows(cmd, ...) == false then
    error({ err = 'RESPIRE_NOPERM ' .. cmd .. ' on ' .. key .. ' is not permitted for this user' })
  end
end

local function respire_require_acl()
  if type(redis.acl_check_cmd) ~= 'function' then
    error({ err = 'RESPIRE_UNSUPPORTED Redis 7.0 or newer (redis.acl_check_cmd) is required' })
  end
end
