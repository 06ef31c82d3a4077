// Shared by Respire's own packages (queue, worker, admin) and tools; not covered by semver.
// Applications import the public entry, `@respire/core-scripts`.
export {
  TRANSIENT_REPLY_CODES,
  isConnectionFailure,
  isErrorReply,
  isNotSent,
  isTransient,
  isUnanswered,
  replyCode,
  toRespireError,
  transientReplyCode,
} from './classify.js';
export {
  MAX_DESCRIPTION_CHARS,
  MAX_EXCEPTION_TYPE_CHARS,
  describeError,
  describeThrown,
  describeValue,
  exceptionType,
  ignoreRejection,
  isError,
  safeGet,
} from './describe.js';
export { RETRY_INITIAL_DELAY_MS, RETRY_MAX_DELAY_MS, TransientBackoff, retryTransient, settledWithin, sleep } from './retry.js';
export type { RetryOptions } from './retry.js';
export { commandTarget, replyWithin } from './transport.js';
export type { CommandTarget, CommandTargetOptions, SendOptions } from './transport.js';
export { infoField, parseEntries, parseReadReply, replyString } from './replies.js';
export type { RawEntry } from './replies.js';
export { runScript } from './runner.js';
export type { RunScriptOptions, ScriptArg, ScriptCallOptions } from './runner.js';
export type { ScriptDefinition } from './script.js';
export * as scripts from './generated/scripts.js';
export * as scriptCalls from './generated/calls.js';
export type * from './generated/replies.js';
export { isReceipt, newReceiptToken, receiptOf } from './receipts.js';
export { MAX_INT32, assertKnownOptions, toDurationMs, toIntegerInRange } from './durations.js';
export { crc16, hashTagOf, keySlot } from './slots.js';
export { assertSameSlot, isWellFormedText, queueKeys, toKeyPrefix } from './keys.js';
export type { QueueKeys } from './keys.js';
