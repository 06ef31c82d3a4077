--[[ include: leases-grouped - a grouped queue (ordered message groups) as the lease engine's source
A grouped queue's source of messages for the lease engine (leases.lua, included after this file).
Message bodies are entries of the grouped stream (fields `payload`, `group`). Per group, its
backlog is a sorted set of its entry IDs scored by send position (deleted when empty, so an empty
group leaves no key); the ready ring is a sorted set of the group IDs whose head may be taken,
scored by the position they joined it. A taken head is recorded in the leased hash (entry ID ->
group ID) and its group leaves the ring, so at most one message of a group is in flight; the head
stays in its backlog until it is settled, and a redelivery comes from the deadlines index, so it
goes before anything later of its group. Settling a head removes it from its backlog and the
stream and puts its group, when it has more, at the back of the ring (round robin). Every
operation is O(log n) in the ring, the backlog and the leased hash; nothing scans groups or a
backlog (except past heads whose stream entries were deleted behind the queue's back).

The grouped keys are beside the ungrouped queue's under the queue's hash tag; while the ungrouped
queue's stream exists (an instance without `groups` used the name) every grouped script refuses.

  respire_grouped_source(stream, ready, leased, prefix, ungrouped)
                                        -> the source (its keys); `prefix` .. group ID is a backlog
  respire_grouped_expect_mode(ungrouped)
                                        RESPIRE_WRONGTYPE while the ungrouped queue's stream exists
  respire_grouped_tail(key)             -> the last score of sorted set `key`, nil when it is empty
                                        (a member added at the back scores one more)
  respire_source_check(source)          the key types, and the mode (above)
  respire_source_body(source, id)       -> the field list of entry `id`, or nil when it is gone
  respire_source_allow_take(source)     RESPIRE_NOPERM unless the user may take heads
  respire_source_take(source, count)    -> the heads of up to `count` groups from the front of the
                                           ring { { id, fields }, ... }; reads first, then writes
  respire_source_plan_settle(source)    checks the permissions settling needs
  respire_source_settle(source, ids)    removes settled heads and advances their groups
]]
--@include acl
--@include types
--@include server

local function respire_grouped_source(stream, ready, leased, prefix, ungrouped)
  return { stream = stream, ready = ready, leased = leased, prefix = prefix, ungrouped = ungrouped }
end

local function respire_grouped_expect_mode(ungrouped)
  if redis.call('EXISTS', ungrouped) == 1 then
    error({ err = 'RESPIRE_WRONGTYPE ' .. ungrouped .. ' holds an ungrouped queue of the same name, expected none: '
      .. 'this queue is grouped, and one name cannot be both' })
  end
end

local function respire_grouped_tail(key)
  local tail = respire_typed_call(key, 'zset', 'ZRANGE', key, -1, -1, 'WITHSCORES')
  return tail[2] and tonumber(tail[2])
end

local function respire_source_check(source)
  respire_grouped_expect_mode(source.ungrouped)
  respire_expect_type(source.stream, 'stream')
  respire_expect_type(source.ready, 'zset')
  respire_expect_type(source.leased, 'hash')
end

local function respire_source_body(source, id)
  local entry = redis.call('XRANGE', source.stream, id, id)[1]
  return entry and entry[2]
end

-- A backlog's permissions are checked on `prefix` itself, the key of no group (IDs are nonempty).
local function respire_source_allow_take(source)
  respire_allow(source.ready, 'ZREM', source.ready, 'x')
  respire_allow(source.leased, 'HSET', source.leased, 'x', 'x')
  respire_allow(source.prefix, 'ZREM', source.prefix, 'x')
end

local function respire_source_take(source, count)
  local groups = redis.call('ZRANGE', source.ready, 0, count - 1)
  local taken, leased, gone = {}, {}, {}
  for _, group in ipairs(groups) do
    local backlog = source.prefix .. group
    local i = 0
    while true do
      local head = respire_typed_call(backlog, 'zset', 'ZRANGE', backlog, i, i)[1]
      if not head then break end
      local fields = respire_source_body(source, head)
      if fields then
        taken[#taken + 1] = { head, fields }
        leased[#leased + 1] = head
        leased[#leased + 1] = group
        break
      end
      -- Deleted from the stream behind the queue's back: dropped from its backlog.
      gone[#gone + 1] = { backlog, head }
      i = i + 1
    end
  end
  if #groups > 0 then redis.call('ZREM', source.ready, unpack(groups)) end
  if #leased > 0 then redis.call('HSET', source.leased, unpack(leased)) end
  for _, pair in ipairs(gone) do redis.call('ZREM', pair[1], pair[2]) end
  return taken
end

local function respire_source_plan_settle(source)
  respire_allow(source.stream, 'XDEL', source.stream, '0-1')
  respire_allow(source.leased, 'HDEL', source.leased, 'x')
  respire_allow(source.prefix, 'ZREM', source.prefix, 'x')
  respire_allow(source.ready, 'ZADD', source.ready, '1', 'x')
  return true
end

local function respire_source_settle(source, ids)
  -- Reads first: a key of another type fails here, before anything changed. A settled message is
  -- its group's head (one in flight per group), so the backlog's first two tell whether more wait.
  local groups = respire_typed_call(source.leased, 'hash', 'HMGET', source.leased, unpack(ids))
  local more, tail = {}, nil
  for i, group in ipairs(groups) do
    if group then
      local backlog = source.prefix .. group
      local first = respire_typed_call(backlog, 'zset', 'ZRANGE', backlog, 0, 1)
      more[i] = #first > 1 or (first[1] ~= nil and first[1] ~= ids[i])
      if more[i] and not tail then tail = respire_grouped_tail(source.ready) or 0 end
    end
  end
  respire_typed_call(source.stream, 'stream', 'XDEL', source.stream, unpack(ids))
  redis.call('HDEL', source.leased, unpack(ids))
  for i, group in ipairs(groups) do
    if group then
      redis.call('ZREM', source.prefix .. group, ids[i])
      -- The group moves on: to the back of the ring when more of it waits.
      if more[i] then
        tail = tail + 1
        redis.call('ZADD', source.ready, respire_int(tail), group)
      end
    end
  end
end
