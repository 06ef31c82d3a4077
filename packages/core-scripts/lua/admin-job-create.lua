--[[ admin-job-create: record a new bulk job, owned by the process that will run it.
A job is a hash of string fields (its selection, counters, state); the index is a sorted set of
job IDs scored by creation time (server clock). Index entries older than the retention are
dropped and the job hash expires after it, so finished jobs do not pile up.

KEYS[1]  job: the job's hash                   (hash)
KEYS[2]  index: job IDs by creation time       (sorted set: job ID -> ms)
ARGV[1]  jobId: the job's ID
ARGV[2]  owner: the runner that owns it        (a random token of the process)
ARGV[3]  retentionMs: keep it this long        (ms)
ARGV[4..] fields: field, value, ...            (the job's description and counters)

Reply    { 1 created, createdAtMs: int } | { 0 taken, 0 }
         created (ms, server clock); taken: the ID is in use, nothing done
Errors   RESPIRE_UNSUPPORTED (Redis < 7), RESPIRE_WRONGTYPE, RESPIRE_NOPERM (HSET, ZADD, PEXPIRE)
Server   Redis 7+.
]]
--@include server
--@include types

respire_require_acl()
local job, index = KEYS[1], KEYS[2]
respire_expect_type(job, 'hash')
respire_expect_type(index, 'zset')
if redis.call('EXISTS', job) == 1 then return { 0, 0 } end
respire_allow(job, 'HSET', job, 'state', 'running')
respire_allow(job, 'PEXPIRE', job, '1')
respire_allow(index, 'ZADD', index, '0', 'x')
respire_allow(index, 'ZREMRANGEBYSCORE', index, '-inf', '0')
local now = respire_int(math.floor(respire_now_ms()))
redis.call('HSET', job, 'id', ARGV[1], 'owner', ARGV[2], 'state', 'running', 'createdMs', now, 'heartbeatMs', now, unpack(ARGV, 4))
redis.call('PEXPIRE', job, ARGV[3])
redis.call('ZADD', index, now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. respire_int(tonumber(now) - tonumber(ARGV[3])))
return { 1, now }
