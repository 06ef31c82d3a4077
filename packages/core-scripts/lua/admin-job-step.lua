--[[ admin-job-step: a job's runner claims it, reports progress, or finishes it: fenced by ownership.
`claim` takes the job for ARGV[1] when it is running and its owner is ARGV[1], none (a runner
that stopped released it) or one that has not reported within the lease (a runner that died); `progress` and `finish`
write only while ARGV[1] owns it (a runner whose job another one took over stops). Each write
sets heartbeatMs to the server time; `finish` also sets finishedMs and the hash's expiry.

KEYS[1]  job: the job's hash                   (hash)
ARGV[1]  owner: the runner                     (its token)
ARGV[2]  step: claim, progress or finish
ARGV[3]  leaseMs: an owner silent this long has died   (ms)
ARGV[4]  retentionMs: keep a finished job this long    (ms)
ARGV[5..] fields: field, value, ...            (counters, cursor, state, error)

Reply    { 1 done, cancel: string } | { 0 notDone, state: string, owner: string }
         done (cancel: '1' when someone asked to cancel, else ''); not done: the job is
         not running, or another runner owns it
Errors   RESPIRE_UNSUPPORTED (Redis < 7), RESPIRE_WRONGTYPE, RESPIRE_NOPERM (HSET, PEXPIRE)
Server   Redis 7+.
]]
--@include server
--@include types

respire_require_acl()
local job, me, step = KEYS[1], ARGV[1], ARGV[2]
respire_expect_type(job, 'hash')
local state, owner, beat, cancel = unpack(redis.call('HMGET', job, 'state', 'owner', 'heartbeatMs', 'cancel'))
local now = math.floor(respire_now_ms())
local mine = owner == me
if step == 'claim' then
  local free = not owner or owner == '' or not beat or now - tonumber(beat) >= tonumber(ARGV[3])
  mine = state == 'running' and (mine or free)
elseif state ~= 'running' then
  mine = false
end
if not mine then return { 0, state or '', owner or '' } end
respire_allow(job, 'HSET', job, 'state', 'running')
if step == 'finish' then respire_allow(job, 'PEXPIRE', job, '1') end
redis.call('HSET', job, 'owner', me, 'heartbeatMs', respire_int(now), unpack(ARGV, 5))
if step == 'finish' then
  redis.call('HSET', job, 'finishedMs', respire_int(now))
  redis.call('PEXPIRE', job, ARGV[4])
end
return { 1, cancel or '' }
