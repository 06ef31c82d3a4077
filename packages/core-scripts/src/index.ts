export {
  RespireError,
  RespireValidationError,
  RespireCrossSlotError,
  RespireKeyTypeError,
  RespirePermissionError,
  RespireUnsupportedServerError,
  RespireServerError,
  RespireTransportError,
  RespireCodecError,
  isRespireError,
  isErrorReply,
  toRespireError,
} from './errors.js';
export type { RespireErrorCode, RespireErrorOptions } from './errors.js';
export { MAX_DURATION_MS, assertKnownOptions, describeValue, toDurationMs, toIntegerInRange } from './durations.js';
export { crc16, hashTagOf, keySlot } from './slots.js';
export { assertSameSlot, isWellFormedText, queueKeys, toKeyPrefix } from './keys.js';
export type { QueueKeys } from './keys.js';
export { commandTarget } from './client.js';
export type { CommandTarget, CommandTargetOptions, RedisArg, RedisClientLike, StandaloneClientLike, ClusterClientLike } from './client.js';
export { runScript } from './runner.js';
export type { RunScriptOptions } from './runner.js';
export type { ScriptDefinition } from './script.js';
export * as scripts from './generated/scripts.js';
