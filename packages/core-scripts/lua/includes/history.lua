--[[ include: history
A resource's history: one stream of samples in the resource's slot, one entry per sample (its ID
is the server time of the sample), trimmed by age (XADD ... MINID ~). A sample holds counters
that only grow (entries added, entries read by a group) and gauges (lengths, pending counts, lag,
the oldest unacknowledged entry); rates are the differences between samples, computed by the
reader. Values are decimal strings, '' when unknown.

  respire_history_due(history, now, minIntervalMs)
      -> true when the last sample is at least minIntervalMs old (or there is none): several
         samplers on one resource then record one sample per interval between them
  respire_stream_facts(stream)
      -> entries added, length, first entry ID ('0', '0', '' when the stream does not exist)
  respire_group_facts(stream, maxGroups)
      -> a list of { name, value } for at most maxGroups groups (XINFO GROUPS order), value
         "read|pending|lag|lastDeliveredMs|oldestPendingMs|firstWaitingMs|consumers"
  respire_counters(key)  -> field, value, field, value, ... of a counters hash, each field as 'c.<field>'
  respire_history_append(history, now, retentionMs, fields)
      -> the new sample's ID: XADD with MINID ~ (now - retentionMs), after the type and permission
         checks of the history key
]]
--@include server
--@include acl
--@include types

local function respire_ms_of(id)
  return id and string.match(id, '^(%d+)-') or ''
end

local function respire_history_due(history, now, minIntervalMs)
  local last = respire_typed_call(history, 'stream', 'XREVRANGE', history, '+', '-', 'COUNT', 1)[1]
  if not last then return true end
  return now - tonumber(respire_ms_of(last[1])) >= tonumber(minIntervalMs)
end

local function respire_info_map(list)
  local map = {}
  for i = 1, #list, 2 do map[list[i]] = list[i + 1] end
  return map
end

local function respire_num(value)
  if type(value) == 'number' then return respire_int(value) end
  if type(value) == 'string' then return value end
  return ''
end

local function respire_stream_facts(stream)
  if redis.call('EXISTS', stream) == 0 then return '0', '0', '' end
  local info = respire_info_map(respire_typed_call(stream, 'stream', 'XINFO', 'STREAM', stream))
  local first = info['first-entry']
  return respire_num(info['entries-added']), respire_num(info['length']), (type(first) == 'table' and first[1]) or ''
end

local function respire_group_facts(stream, maxGroups)
  if redis.call('EXISTS', stream) == 0 then return {} end
  local out = {}
  local groups = redis.call('XINFO', 'GROUPS', stream)
  for i = 1, math.min(#groups, tonumber(maxGroups)) do
    local g = respire_info_map(groups[i])
    local name, last = g['name'], g['last-delivered-id']
    -- A group that has read nothing yet reports no read counter: it has read 0.
    local read = g['entries-read']
    if (read == nil or read == false) and last == '0-0' then read = 0 end
    local oldest = redis.call('XPENDING', stream, name, '-', '+', 1)[1]
    local waiting = redis.call('XRANGE', stream, '(' .. last, '+', 'COUNT', 1)[1]
    out[#out + 1] = {
      name,
      table.concat({
        respire_num(read), respire_num(g['pending']), respire_num(g['lag']),
        respire_ms_of(last), respire_ms_of(oldest and oldest[1]), respire_ms_of(waiting and waiting[1]),
        respire_num(g['consumers']),
      }, '|'),
    }
  end
  return out
end

local function respire_counters(key)
  local out = {}
  local all = respire_typed_call(key, 'hash', 'HGETALL', key)
  for i = 1, #all, 2 do
    out[#out + 1] = 'c.' .. all[i]
    out[#out + 1] = all[i + 1]
  end
  return out
end

local function respire_history_append(history, now, retentionMs, fields)
  respire_expect_type(history, 'stream')
  local minid = respire_int(math.max(0, math.floor(now) - tonumber(retentionMs)))
  respire_allow(history, 'XADD', history, 'MINID', '~', minid, '*', 'v', '1')
  return redis.call('XADD', history, 'MINID', '~', minid, '*', unpack(fields))
end

-- Adds each group's facts (at most maxGroups) and the counters hash to fields, then appends the sample.
local function respire_history_record(history, now, retentionMs, fields, stream, maxGroups, counters)
  for _, g in ipairs(respire_group_facts(stream, maxGroups)) do
    fields[#fields + 1] = 'g:' .. g[1]
    fields[#fields + 1] = g[2]
  end
  for _, v in ipairs(respire_counters(counters)) do fields[#fields + 1] = v end
  return respire_history_append(history, now, retentionMs, fields)
end
