--[[ admin-group-backlogs: one bounded step of the walk over a grouped queue's groups, keeping the largest backlogs.
Reads only. A grouped queue's groups with messages are in its ready ring or in flight (queue README
"Message groups"); a step reads the backlog length (LLEN of prefix .. group ID) of at most ARGV[4]
groups: first the ring by rank (phase 0), then the groups in flight by HSCAN (phase 1: the
in-flight counts when there are any, so fair groups are read once per group; else the leased
hash's values, one per blocked ordered group). It returns where to go on and the ARGV[5] largest
backlogs it read, so the caller merges the steps. Not a snapshot: between steps a group may move.

KEYS[1]  ready: ready ring                      (sorted set: group ID -> position)
KEYS[2]  leased: heads in flight                (hash: entry ID -> group ID)
KEYS[3]  inflight: messages in flight per group (hash: group ID -> count; fair groups only)
ARGV[1]  backlogPrefix: key prefix of the group backlogs   (the group ID follows)
ARGV[2]  phase: where the walk is                 (0 the ring, 1 the groups in flight)
ARGV[3]  cursor: the ring's rank or the HSCAN cursor  ('0' to start a phase)
ARGV[4]  budget: groups read at most              (1..10000)
ARGV[5]  top: largest backlogs returned at most   (1..100)

Reply    { phase: int, cursor: string, read: int, ...largest: { group: string, backlog: int } }
         the next step's phase and cursor (phase 2: done), the groups read, the largest backlogs read (above 0, largest first)
Errors   RESPIRE_WRONGTYPE
]]
--@include types
--@include leased-mark

local ready, leased, inflight = KEYS[1], KEYS[2], KEYS[3]
local prefix, phase, cursor = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local budget, top = tonumber(ARGV[4]), tonumber(ARGV[5])
local found, read = {}, 0

local function measure(group)
  read = read + 1
  local size = respire_typed_call(prefix .. group, 'list', 'LLEN', prefix .. group)
  if size > 0 then found[#found + 1] = { group, size } end
end

if phase == 0 then
  local rank = tonumber(cursor)
  local groups = respire_typed_call(ready, 'zset', 'ZRANGE', ready, rank, rank + budget - 1)
  for _, group in ipairs(groups) do measure(group) end
  if #groups < budget then phase, cursor = 1, '0' else cursor = tostring(rank + #groups) end
elseif phase == 1 then
  local fair = respire_typed_call(inflight, 'hash', 'HLEN', inflight) > 0
  local hash = fair and inflight or leased
  local reply = respire_typed_call(hash, 'hash', 'HSCAN', hash, cursor, 'COUNT', budget)
  cursor = reply[1]
  for i = 1, #reply[2], 2 do
    -- The leased hash's mark field names no group.
    if fair or reply[2][i] ~= RESPIRE_LEASED_MARK then measure(fair and reply[2][i] or reply[2][i + 1]) end
  end
  if cursor == '0' then phase = 2 end
end

table.sort(found, function(a, b)
  if a[2] ~= b[2] then return a[2] > b[2] end
  return a[1] < b[1]
end)
local out = { phase, cursor, read }
for i = 1, math.min(top, #found) do
  out[#out + 1] = found[i][1]
  out[#out + 1] = found[i][2]
end
return out
