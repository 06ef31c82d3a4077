--[[ include: leases-grouped - a grouped queue (ordered message groups) as the lease engine's source
A grouped queue's source of messages for the lease engine (leases.lua, included after this file).
Message bodies are entries of the grouped stream (fields `payload`, `group`, then `headers` when
the message has any, as a queue entry keeps them: queue-entries.lua). Per group, its
backlog is a list of its entry IDs in send order (a list key is gone when empty, so an empty group
leaves no key; RPUSH's reply tells a send whether the group was empty); the ready ring is a sorted set of the group IDs whose head may be taken,
scored by the position they joined it. A taken head is recorded in the leased hash (entry ID ->
group ID, plus one mark field that keeps it a hashtable: leased-mark.lua) and its group leaves the
ring, so at most one message of a group is in flight; the head stays in its backlog until it is
settled, and a redelivery comes from the deadlines index, so it goes before anything later of its
group. Settling a head removes it from its backlog and the
stream and puts its group, when it has more, at the back of the ring (round robin). Every
operation is O(log n) in the ring and O(1) in the backlog and the leased hash; nothing scans groups
or a backlog (except past heads whose stream entries were deleted behind the queue's back).

Fair groups (concurrency k > 1): up to k messages of a group are in flight, in no promised order.
A taken message leaves its backlog at once, the in-flight hash counts each group's messages in
flight, and a group is in the ring while it has a backlog and fewer than k in flight; a take serves
a group once and puts it back at the end of the ring while it may take more.

The grouped keys are beside the ungrouped queue's under the queue's hash tag; while the ungrouped
queue's stream exists (an instance without `groups` used the name) every grouped script refuses.

  respire_grouped_source(stream, ready, leased, prefix, ungrouped, inflight, concurrency, wake)
                                        -> the source (its keys); `prefix` .. group ID is a backlog;
                                           `wake` the wake stream (one entry at most), appended
                                           to when settling puts a group back on the ring;
                                           `inflight` (group ID -> count) serves concurrency > 1;
                                           its `group_of` gives each leased message's group ID to
                                           the receive's reply (leases-receive.lua)
  respire_grouped_expect_mode(ungrouped)
                                        RESPIRE_WRONGTYPE while the ungrouped queue's stream exists
  respire_grouped_tail(key)             -> the last score of sorted set `key` (the ring), nil when it is
                                        empty (a member added at the back scores one more)
  respire_source_check(source)          the key types, and the mode (above)
  respire_source_body(source, id)       -> the field list of entry `id`, or nil when it is gone
  respire_source_allow_take(source)     RESPIRE_NOPERM unless the user may take heads
  respire_source_take(source, count)    -> the heads of up to `count` groups from the front of the
                                           ring { { id, fields }, ... }, and true when it passed over
                                           `count` groups (a group whose messages were all deleted
                                           yields none, and the ring may hold more); reads first,
                                           then writes
  respire_source_due(fields)            -> nil: a grouped queue takes no delayed sends, so a head is
                                           due at once
  respire_source_headers(fields)       -> the message's encoded headers as a queue entry keeps them
                                          (queue-entries.lua), '' for none
  respire_source_plan_settle(source, ids)
                                        checks the permissions settling needs and, given `ids`, the
                                          types of their groups' backlogs (a receive takes, and
                                          writes, before it settles)
  respire_source_settle(source, ids)    removes settled heads and advances their groups (a group
                                          back on the ring appends to the wake stream)
]]
--@include acl
--@include types
--@include server
--@include queue-entries
--@include entry-ids
--@include leased-mark

-- A message's group: its entry's `group` field (the second, after `payload`).
local function respire_grouped_group(fields)
  for f = 1, #fields, 2 do
    if fields[f] == 'group' then return fields[f + 1] end
  end
  return ''
end

local function respire_grouped_source(stream, ready, leased, prefix, ungrouped, inflight, concurrency, wake)
  return {
    stream = stream, ready = ready, leased = leased, prefix = prefix, ungrouped = ungrouped, inflight = inflight,
    concurrency = concurrency, group_of = respire_grouped_group, wake = wake,
  }
end

-- Groups to the back of the ring, in order, after position `tail`: one ZADD for all of them (a call
-- per group cost about 2 microseconds of server time per settled message). Numbers reach commands
-- as strings made here: Redis formats a Lua number argument with printf's floating-point path, and
-- '%d' of a whole position (far below 2^53) is several times cheaper.
local function respire_grouped_join(source, tail, groups)
  if #groups == 0 then return end
  local scored = {}
  for i, group in ipairs(groups) do
    scored[2 * i - 1] = string.format('%d', tail + i)
    scored[2 * i] = group
  end
  redis.call('ZADD', source.ready, unpack(scored))
end

-- A group moved on without a send: one entry in the wake stream wakes the waiting receives blocked on it.
local function respire_grouped_wake(source)
  redis.call('XADD', source.wake, 'MAXLEN', '1', '*', 'wake', '1')
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
  if source.concurrency > 1 then respire_expect_type(source.inflight, 'hash') end
end

local function respire_source_body(source, id)
  local entry = redis.call('XRANGE', source.stream, id, id)[1]
  return entry and entry[2]
end

-- A backlog's permissions are checked on `prefix` itself, the key of no group (IDs are nonempty).
local function respire_source_allow_take(source)
  respire_allow(source.ready, 'ZREM', source.ready, 'x')
  respire_allow(source.leased, 'HSET', source.leased, 'x', 'x')
  respire_allow(source.prefix, 'LTRIM', source.prefix, '1', '-1')
  if source.concurrency > 1 then
    respire_allow(source.inflight, 'HINCRBY', source.inflight, 'x', '1')
    respire_allow(source.ready, 'ZADD', source.ready, '1', 'x')
  end
end

-- The bodies of `heads` (n of them) that one XRANGE from the oldest finds among as many entries
-- (head ID -> field list): heads taken in ring order are often close together in the stream, and
-- one read of n entries costs well under n reads by ID. A head it does not find is read by ID.
local function respire_grouped_bodies(source, heads, n)
  local bodies = {}
  if n < 2 then return bodies end
  local oldest = heads[1]
  for h = 2, n do
    if respire_entry_id_before(heads[h], oldest) then oldest = heads[h] end
  end
  local entries = redis.call('XRANGE', source.stream, oldest, '+', 'COUNT', n)
  for e = 1, #entries do
    local entry = entries[e]
    bodies[entry[1]] = entry[2]
  end
  return bodies
end

-- Fair groups: a group's next message leaves its backlog when taken; the group goes back to the
-- end of the ring while it has more and fewer than `concurrency` in flight. The front two of each
-- backlog are read first, then the heads' bodies in one read (as the ordered take does). A group on
-- the ring that already has `concurrency` in flight (put there by a caller that assumed a larger
-- limit: an admin retry with a wrong configured `groupConcurrency`) yields nothing and leaves the
-- ring; settling one of its messages puts it back.
local function respire_grouped_take_fair(source, groups, count)
  local n, prefix = #groups, source.prefix
  local counts = n > 0 and respire_typed_call(source.inflight, 'hash', 'HMGET', source.inflight, unpack(groups)) or {}
  local backlogs, fronts, present, found = {}, {}, {}, 0
  for g = 1, n do
    local backlog = prefix .. groups[g]
    local front = {}
    if (tonumber(counts[g]) or 0) < source.concurrency then
      front = respire_typed_call(backlog, 'list', 'LRANGE', backlog, '0', '1')
    end
    backlogs[g], fronts[g] = backlog, front
    if front[1] then
      found = found + 1
      present[found] = front[1]
    end
  end
  local bodies = respire_grouped_bodies(source, present, found)
  local taken, leased, gone, again, t, l, a = {}, {}, {}, {}, 0, 0, 0
  for g = 1, n do
    local backlog, front, i = backlogs[g], fronts[g], 0
    while front[1] do
      local head = front[1]
      local fields = bodies[head] or respire_source_body(source, head)
      gone[backlog] = i + 1
      if fields then
        t = t + 1
        taken[t] = { head, fields }
        leased[l + 1] = head
        leased[l + 2] = groups[g]
        l = l + 2
        if front[2] and (tonumber(counts[g]) or 0) + 1 < source.concurrency then
          a = a + 1
          again[a] = groups[g]
        end
        break
      end
      -- Deleted from the stream behind the queue's back: walked past, and dropped with the taken one.
      i = i + 1
      front = redis.call('LRANGE', backlog, string.format('%d', i), string.format('%d', i + 1))
    end
  end
  local tail = a > 0 and (respire_grouped_tail(source.ready) or 0) or 0
  if n > 0 then redis.call('ZREM', source.ready, unpack(groups)) end
  if l > 0 then redis.call('HSET', source.leased, RESPIRE_LEASED_MARK, RESPIRE_LEASED_MARK_VALUE, unpack(leased)) end
  for backlog, k in pairs(gone) do redis.call('LTRIM', backlog, k, -1) end
  for f = 2, l, 2 do redis.call('HINCRBY', source.inflight, leased[f], 1) end
  respire_grouped_join(source, tail, again)
  return taken, n == count
end


-- A backlog's head (LINDEX reads no more than that); a backlog of another type fails, before any write.
local function respire_grouped_head(backlog)
  local head = redis.pcall('LINDEX', backlog, '0')
  if type(head) == 'table' then return respire_typed_call(backlog, 'list', 'LINDEX', backlog, '0') end
  return head
end

-- Ordered groups: each group's head stays in its backlog until settled; heads whose stream entries
-- are gone are dropped from the front. The loops count instead of using ipairs and `#t + 1`: this
-- runs once per message, and each ipairs step is a function call.
local function respire_source_take(source, count)
  local groups = redis.call('ZRANGE', source.ready, 0, count - 1)
  if source.concurrency > 1 then return respire_grouped_take_fair(source, groups, count) end
  local n, prefix = #groups, source.prefix
  local backlogs, heads, present, found = {}, {}, {}, 0
  for g = 1, n do
    local backlog = prefix .. groups[g]
    local head = respire_grouped_head(backlog)
    backlogs[g] = backlog
    heads[g] = head
    if head then
      found = found + 1
      present[found] = head
    end
  end
  local bodies = respire_grouped_bodies(source, present, found)
  local taken, leased, gone, t, l = {}, {}, {}, 0, 0
  for g = 1, n do
    local head, i = heads[g], 0
    while head do
      local fields = bodies[head] or respire_source_body(source, head)
      if fields then
        t = t + 1
        taken[t] = { head, fields }
        leased[l + 1] = head
        leased[l + 2] = groups[g]
        l = l + 2
        break
      end
      -- Deleted from the stream behind the queue's back: dropped from the front of its backlog.
      i = i + 1
      gone[backlogs[g]] = i
      head = redis.call('LINDEX', backlogs[g], i)
    end
  end
  if n > 0 then redis.call('ZREM', source.ready, unpack(groups)) end
  if l > 0 then redis.call('HSET', source.leased, RESPIRE_LEASED_MARK, RESPIRE_LEASED_MARK_VALUE, unpack(leased)) end
  for backlog, k in pairs(gone) do redis.call('LTRIM', backlog, k, -1) end
  return taken, n == count
end

-- The groups of leased `ids` (false where an ID is not leased): one HMGET, O(1) a field in a
-- hashtable (RESPIRE_LEASED_MARK).
local function respire_grouped_groups_of(source, ids)
  return respire_typed_call(source.leased, 'hash', 'HMGET', source.leased, unpack(ids))
end

-- Settled `ids` leave the leased hash, and the hash goes when only its mark is left.
local function respire_grouped_unlease(source, ids)
  local leased = source.leased
  redis.call('HDEL', leased, unpack(ids))
  if redis.call('HLEN', leased) == 1 and redis.call('HEXISTS', leased, RESPIRE_LEASED_MARK) == 1 then redis.call('DEL', leased) end
end

local function respire_source_due(_fields)
  return nil
end

local function respire_source_headers(fields)
  return respire_queue_entry_headers(fields)
end

local function respire_source_plan_settle(source, ids)
  if ids and #ids > 0 then
    for _, group in ipairs(respire_typed_call(source.leased, 'hash', 'HMGET', source.leased, unpack(ids))) do
      if group then respire_expect_type(source.prefix .. group, 'list') end
    end
  end
  respire_expect_type(source.wake, 'stream')
  respire_allow(source.wake, 'XADD', source.wake, 'MAXLEN', '1', '*', 'wake', '1')
  respire_allow(source.stream, 'XDEL', source.stream, '0-1')
  respire_allow(source.leased, 'HDEL', source.leased, 'x')
  respire_allow(source.leased, 'DEL', source.leased)
  respire_allow(source.prefix, 'LREM', source.prefix, '1', 'x')
  respire_allow(source.ready, 'ZADD', source.ready, '1', 'x')
  if source.concurrency > 1 then respire_allow(source.inflight, 'HSET', source.inflight, 'x', '1') end
  if source.concurrency > 1 then respire_allow(source.inflight, 'HDEL', source.inflight, 'x') end
  return true
end

-- Fair groups: each group's in-flight count drops by its settled messages; a group outside the ring
-- with a backlog and room joins the end of it.
local function respire_grouped_settle_fair(source, ids)
  local groups = respire_grouped_groups_of(source, ids)
  local order, settled = {}, {}
  for _, group in ipairs(groups) do
    if group then
      if not settled[group] then order[#order + 1] = group end
      settled[group] = (settled[group] or 0) + 1
    end
  end
  local counts = #order > 0 and respire_typed_call(source.inflight, 'hash', 'HMGET', source.inflight, unpack(order)) or {}
  local join, left = {}, {}
  for g, group in ipairs(order) do
    left[g] = math.max((tonumber(counts[g]) or 0) - settled[group], 0)
    local backlog = source.prefix .. group
    if left[g] < source.concurrency and respire_typed_call(backlog, 'list', 'LLEN', backlog) > 0 and not redis.call('ZSCORE', source.ready, group) then
      join[#join + 1] = group
    end
  end
  local tail = #join > 0 and (respire_grouped_tail(source.ready) or 0) or 0
  respire_typed_call(source.stream, 'stream', 'XDEL', source.stream, unpack(ids))
  respire_grouped_unlease(source, ids)
  for g, group in ipairs(order) do
    if left[g] == 0 then
      redis.call('HDEL', source.inflight, group)
    else
      redis.call('HSET', source.inflight, group, left[g])
    end
  end
  respire_grouped_join(source, tail, join)
  if #join > 0 then respire_grouped_wake(source) end
end

local function respire_source_settle(source, ids)
  if source.concurrency > 1 then return respire_grouped_settle_fair(source, ids) end
  -- Reads first: a key of another type fails here, before anything changed. A backlog's length and
  -- what the LREM below removes tell whether more of the group waits: a settled message is its
  -- group's head (one in flight per group), so LREM finds it first.
  local groups = respire_grouped_groups_of(source, ids)
  local n, prefix = #ids, source.prefix
  local backlogs, left, order, orderBacklogs, o = {}, {}, {}, {}, 0
  for i = 1, n do
    local group = groups[i]
    if group then
      local backlog = prefix .. group
      backlogs[i] = backlog
      if left[backlog] == nil then
        local length = redis.pcall('LLEN', backlog)
        if type(length) == 'table' then length = respire_typed_call(backlog, 'list', 'LLEN', backlog) end
        left[backlog] = length
        o = o + 1
        order[o] = group
        orderBacklogs[o] = backlog
      end
    end
  end
  if o > 0 then respire_expect_type(source.ready, 'zset') end
  respire_typed_call(source.stream, 'stream', 'XDEL', source.stream, unpack(ids))
  respire_grouped_unlease(source, ids)
  for i = 1, n do
    local backlog = backlogs[i]
    if backlog then left[backlog] = left[backlog] - redis.call('LREM', backlog, '1', ids[i]) end
  end
  -- A group moves on: to the back of the ring (in settling order) when more of it waits.
  local join, j = {}, 0
  for g = 1, o do
    if left[orderBacklogs[g]] > 0 then
      j = j + 1
      join[j] = order[g]
    end
  end
  if j > 0 then
    respire_grouped_join(source, respire_grouped_tail(source.ready) or 0, join)
    respire_grouped_wake(source)
  end
end
