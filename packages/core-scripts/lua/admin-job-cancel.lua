--[[ admin-job-cancel: ask a running job to stop; a job whose runner died is cancelled at once.
A live runner reads the request with its next progress report and stops between pages; a job
whose owner has not reported within the lease (interrupted) has no runner left, so it is marked
cancelled here.

KEYS[1]  job: the job's hash                   (hash)
ARGV[1]  actor: who asks                        (the operator's name)
ARGV[2]  leaseMs: an owner silent this long has died   (ms)
ARGV[3]  retentionMs: keep a finished job this long    (ms)

Reply    { 1 asked } | { 2 cancelled } | { 0 notRunning, state: string }
         asked: the runner stops after its current page; cancelled now (no live
         runner); not running (done, cancelled, failed, or no such job: '')
Errors   RESPIRE_UNSUPPORTED (Redis < 7), RESPIRE_WRONGTYPE, RESPIRE_NOPERM (HSET, PEXPIRE)
Server   Redis 7+.
]]
--@include server
--@include types

respire_require_acl()
local job = KEYS[1]
respire_expect_type(job, 'hash')
local state, beat = unpack(redis.call('HMGET', job, 'state', 'heartbeatMs'))
if state ~= 'running' then return { 0, state or '' } end
respire_allow(job, 'HSET', job, 'cancel', '1')
respire_allow(job, 'PEXPIRE', job, '1')
local now = math.floor(respire_now_ms())
redis.call('HSET', job, 'cancel', '1', 'cancelledBy', ARGV[1])
if beat and now - tonumber(beat) < tonumber(ARGV[2]) then return { 1 } end
redis.call('HSET', job, 'state', 'cancelled', 'finishedMs', respire_int(now))
redis.call('PEXPIRE', job, ARGV[3])
return { 2 }
