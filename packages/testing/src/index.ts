// The public entry of @respire/testing.
export { FakeRedisServer } from './server.js';
export type { FakeRedisServerOptions, NamedScript } from './server.js';
export { FakeClock } from './clock.js';
export type { ClockOptions } from './clock.js';
export { FaultInjector } from './faults.js';
export type { Fault, FaultAction, FaultRule } from './faults.js';
export { CommandLog } from './command-log.js';
export type { LoggedCommand } from './command-log.js';
export type { FakeUserOptions } from './acl.js';
export { REDIS_VERSIONS, VALKEY_VERSION } from './versions.js';
export type { RedisVersion, ServerFlavour, ServerModel } from './versions.js';
