// The test harness: private redis-server processes and Clusters, contract targets, test helpers.
export { startRedisServer, serverBinary, binaryVersion, freePort, redisCli, redisAtLeast } from './servers.js';
export type { RedisServerHandle, StartOptions } from './servers.js';
export { startRedisCluster } from './cluster.js';
export type { RedisClusterHandle } from './cluster.js';
export { createAclUser } from './acl.js';
export type { AclUser } from './acl.js';
export { contractTargets, describeOnTargets, standalone, commandCalls } from './targets.js';
export type { Connection, Target } from './targets.js';
export { eventually, sleep, stopAfterEach, uniqueKeys, uniqueName } from './helpers.js';
export { startTcpProxy } from './proxy.js';
export type { TcpProxy } from './proxy.js';
export { spawnTypeScriptChild } from './child.js';
export type { ChildExit, TypeScriptChild } from './child.js';
export { hostileValues, errorSummary } from './hostile.js';
export type { HostileValue } from './hostile.js';
