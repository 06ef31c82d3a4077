// Shared by Respire's own packages (queue, worker, admin) and tools; not covered by semver.
// Applications import the public entry, `@respire/core-scripts`.
export { isErrorReply, replyCode, toRespireError } from './errors.js';
export { describeThrown, exceptionType, MAX_DESCRIPTION_CHARS, MAX_EXCEPTION_TYPE_CHARS } from './describe.js';
export { commandTarget } from './transport.js';
export type { CommandTarget, CommandTargetOptions, SendOptions } from './transport.js';
export { infoField, parseEntries, parseReadReply, replyString } from './replies.js';
export type { RawEntry } from './replies.js';
export { runScript } from './runner.js';
export type { RunScriptOptions, ScriptArg } from './runner.js';
export type { ScriptDefinition } from './script.js';
export * as scripts from './generated/scripts.js';
export * as scriptCalls from './generated/calls.js';
export { isReceipt, newReceiptToken, receiptOf } from './receipts.js';
export { MAX_INT32, assertKnownOptions, describeValue, toDurationMs, toIntegerInRange } from './durations.js';
export { crc16, hashTagOf, keySlot } from './slots.js';
export { assertSameSlot, isWellFormedText, queueKeys, toKeyPrefix } from './keys.js';
export type { QueueKeys } from './keys.js';
