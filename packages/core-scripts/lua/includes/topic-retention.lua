--[[ include: topic-retention - a reliable topic's retention: trim what no subscription needs, count what a bound takes
A reliable topic keeps each publication until every subscription has completed it, optionally
bounded by age and length. Each subscription is a consumer group on the topic's stream; it still
needs every entry after its last-delivered ID and every entry from the oldest one in its pending
entries list (which holds exactly its leased, not yet settled deliveries). With no subscription at
all, nothing is trimmed for acknowledgement (a subscription created later at 'earliest' gets it);
only the bounds apply. A stream worker's `trimAcknowledgedEntries` (worker-trim.lua) is this rule
without bounds, on a stream whose groups are the workers'.

  respire_topic_retention_allow(stream, trimmed)
      checks the key types and the permissions retention's writes need (XTRIM, HINCRBY)
  respire_topic_retention_plan(stream, maxAge, maxLength, limit, adding)
      -> a plan: looks at the oldest `limit` entries at most and picks the longest prefix of them
         that no subscription needs, or that is older than `maxAge` ms (server clock; 0 = no
         bound) or beyond the newest `maxLength` entries (0 = no bound), counting `adding` newer
         entries about to be appended (which it never trims). Reads only, so a script plans
         before its first write; `plan.keep` is nil when every entry goes (set it to an entry
         appended since).
  respire_topic_retention_apply(stream, trimmed, plan)
      -> the number of entries trimmed (XTRIM MINID, exact); for each subscription, the trimmed
         entries it had not yet been delivered are added to its field of `trimmed` (a hash). An
         entry trimmed while leased is counted by the receive that finds it gone.
]]
--@include server
--@include acl
--@include types
--@include entry-ids

local function respire_topic_groups(stream)
  local groups = {}
  for _, info in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    local group = {}
    for f = 1, #info, 2 do
      local field, value = info[f], info[f + 1]
      if field == 'name' then group.name = value
      elseif field == 'pending' then group.pending = tonumber(value)
      elseif field == 'last-delivered-id' then group.last = value end
    end
    if group.pending and group.pending > 0 then
      group.oldest = redis.call('XPENDING', stream, group.name)[2]
    end
    groups[#groups + 1] = group
  end
  return groups
end

-- The end (an XRANGE end argument) of the oldest entries retention may trim: those every
-- subscription has completed (before its oldest pending entry, else up to its last-delivered
-- ID), or older than `cutoff` ms; '+' when a length bound is exceeded; nil when nothing can go.
-- Reading only up to it keeps a publish's retention O(what it trims), not O(limit).
local function respire_topic_trim_end(groups, cutoff, overLength)
  if overLength then return '+' end
  local finish, inclusive
  for _, group in ipairs(groups) do
    local id, incl = group.oldest or group.last, group.oldest == nil
    if not finish then
      finish, inclusive = id, incl
    else
      local c = respire_entry_id_compare(id, finish)
      -- An ID that does not compare (never from Redis): trim nothing on a guess.
      if c == nil then return nil end
      if c < 0 or (c == 0 and not incl) then finish, inclusive = id, incl end
    end
  end
  -- '(0-0' is no range end: a cutoff at or before the epoch takes nothing.
  if cutoff and cutoff > 0 then
    local age = respire_int(cutoff) .. '-0'
    local c = finish and respire_entry_id_compare(age, finish)
    if not finish or (c and (c > 0 or (c == 0 and not inclusive))) then finish, inclusive = age, false end
  end
  if not finish then return nil end
  return inclusive and finish or ('(' .. finish)
end

local function respire_topic_retention_allow(stream, trimmed)
  respire_expect_type(stream, 'stream')
  respire_expect_type(trimmed, 'hash')
  respire_allow(stream, 'XTRIM', stream, 'MINID', '0-1')
  respire_allow(trimmed, 'HINCRBY', trimmed, 'x', '1')
end

local function respire_topic_retention_plan(stream, maxAge, maxLength, limit, adding)
  local plan = { count = 0, lost = {} }
  if redis.call('EXISTS', stream) == 0 then return plan end
  local groups = respire_topic_groups(stream)
  local length = maxLength > 0 and (redis.call('XLEN', stream) + adding) or 0
  local cutoff = maxAge > 0 and (math.floor(respire_now_ms()) - maxAge) or nil
  local finish = respire_topic_trim_end(groups, cutoff, maxLength > 0 and length > maxLength)
  if not finish then return plan end
  local head = redis.call('XRANGE', stream, '-', finish, 'COUNT', limit + 1)
  for i = 1, math.min(#head, limit) do
    local id = head[i][1]
    local over = (maxLength > 0 and length - (i - 1) > maxLength)
    if not over and cutoff then over = tonumber((respire_entry_id_parts(id))) < cutoff end
    local needed = #groups == 0
    -- An ID that does not compare (never from Redis) counts as needed: never trim on a guess.
    for _, group in ipairs(groups) do
      if (respire_entry_id_compare(id, group.last) or 1) > 0 then
        needed = true
        plan.lost[group.name] = (plan.lost[group.name] or 0) + 1
      elseif group.oldest and (respire_entry_id_compare(id, group.oldest) or 1) >= 0 then
        needed = true
      end
    end
    if needed and not over then
      -- Not trimmed: undo this entry's counts.
      for _, group in ipairs(groups) do
        if (respire_entry_id_compare(id, group.last) or 1) > 0 then plan.lost[group.name] = plan.lost[group.name] - 1 end
      end
      break
    end
    plan.count = i
  end
  if plan.count == 0 then return plan end
  plan.keep = head[plan.count + 1] and head[plan.count + 1][1]
  if not plan.keep then
    -- The read stopped at its end: the first entry kept is the one after the last trimmed.
    local last = head[plan.count][1]
    -- Nothing follows the largest ID there is (and '(' before it is no range start).
    local after = last ~= RESPIRE_MAX_ID_PART .. '-' .. RESPIRE_MAX_ID_PART and redis.call('XRANGE', stream, '(' .. last, '+', 'COUNT', 1) or {}
    plan.keep = after[1] and after[1][1]
  end
  return plan
end

local function respire_topic_retention_apply(stream, trimmed, plan)
  if plan.count == 0 then return 0 end
  if plan.keep then
    redis.call('XTRIM', stream, 'MINID', plan.keep)
  else
    redis.call('XTRIM', stream, 'MAXLEN', '0')
  end
  for name, lost in pairs(plan.lost) do
    if lost > 0 then redis.call('HINCRBY', trimmed, name, lost) end
  end
  return plan.count
end
