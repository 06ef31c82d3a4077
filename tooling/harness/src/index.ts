export { startRedisServer, serverBinary, binaryVersion, freePort, redisCli, redisAtLeast } from './servers.js';
export type { RedisServerHandle, StartOptions } from './servers.js';
export { startRedisCluster } from './cluster.js';
export type { RedisClusterHandle } from './cluster.js';
export { createAclUser } from './acl.js';
export type { AclUser } from './acl.js';
export { contractTargets, standalone, commandCalls } from './targets.js';
export type { Connection, Target } from './targets.js';
export { eventually, sleep, stopAfterEach, uniqueKeys, uniqueName } from './helpers.js';
