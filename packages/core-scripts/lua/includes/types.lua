--[[ include: types - key type checks before a script's first write
Key type checks made before a script's first write, so that a wrong type changes nothing.

  respire_expect_type(key, kind)  raises RESPIRE_WRONGTYPE <key> <found> unless the key is missing or of `kind`
  respire_typed_call(key, kind, cmd, ...)
                                  runs a command whose WRONGTYPE (nothing changed yet: a read, or
                                  the script's first write) becomes RESPIRE_WRONGTYPE naming the key
                                  and both types, so TYPE is called only on that failure
]]
local function respire_expect_type(key, kind)
  local found = redis.call('TYPE', key)
  found = found.ok or found
  if found ~= 'none' and found ~= kind then
    error({ err = 'RESPIRE_WRONGTYPE ' .. key .. ' holds a ' .. found .. ', expected a ' .. kind })
  end
end

local function respire_typed_call(key, kind, cmd, ...)
  local reply = redis.pcall(cmd, ...)
  if type(reply) == 'table' and reply.err then
    if string.find(reply.err, 'WRONGTYPE', 1, true) then
      local found = redis.call('TYPE', key)
      found = found.ok or found
      local holds = (found == 'none' or found == kind) and 'another type' or ('a ' .. found)
      error({ err = 'RESPIRE_WRONGTYPE ' .. key .. ' holds ' .. holds .. ', expected a ' .. kind })
    end
    error(reply)
  end
  return reply
end
