--[[ include: worker
Consumer-group helpers of the hosted stream worker (seed 002).

  respire_redis_version()          REDIS_VERSION_NUM (0x00MMmmpp) on Redis, 0 on Valkey or when unknown
  respire_acl_allows(cmd, ...)     true when redis.acl_check_cmd exists and allows `cmd ...`; false otherwise
  respire_allow_if_acl(key, cmd, ...)
                                   raises RESPIRE_NOPERM when redis.acl_check_cmd exists and refuses
                                   `cmd ...` (Redis 6.2 has no ACL check in Lua: the command itself
                                   then decides)
  respire_fence(stream, group, id, consumer, count)
      -> the XPENDING entry { id, consumer, idle ms, delivery count } when `id` is still pending to
         `consumer` at delivery count `count`; nil otherwise (also for a missing stream or group)
]]
local function respire_redis_version()
  if redis.SERVER_NAME == 'valkey' then return 0 end
  return tonumber(redis.REDIS_VERSION_NUM) or 0
end

local function respire_acl_allows(cmd, ...)
  if type(redis.acl_check_cmd) ~= 'function' then return false end
  local ok, allowed = pcall(redis.acl_check_cmd, cmd, ...)
  return ok and allowed == true
end

local function respire_allow_if_acl(key, cmd, ...)
  if type(redis.acl_check_cmd) ~= 'function' then return end
  local ok, allowed = pcall(redis.acl_check_cmd, cmd, ...)
  if not ok or allowed ~= true then
    error({ err = 'RESPIRE_NOPERM ' .. cmd .. ' on ' .. key .. ' is not permitted for this user' })
  end
end

local function respire_fence(stream, group, id, consumer, count)
  local pending = redis.pcall('XPENDING', stream, group, id, id, 1)
  if type(pending) ~= 'table' or pending.err then
    if type(pending) == 'table' and pending.err and string.find(pending.err, 'NOGROUP', 1, true) then return nil end
    if type(pending) == 'table' and pending.err then error(pending) end
    return nil
  end
  local entry = pending[1]
  if not entry then return nil end
  if entry[2] ~= consumer or tonumber(entry[4]) ~= tonumber(count) then return nil end
  return entry
end
