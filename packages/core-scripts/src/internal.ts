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
export { compareEntryIds, entryIdParts, isEntryId, nextEntryId, previousEntryId, toEntryId } from './formats/entry-ids.js';
export { isReceipt, leaseMember, newReceiptToken, parseLeaseMember, receiptOf } from './formats/receipts.js';
export type { LeaseMember } from './formats/receipts.js';
export { QUEUE_DEAD_LETTER_FIELDS, queueDeadLetterFields, readQueueDeadLetter } from './formats/queue-dead-letters.js';
export type { FieldPairs, QueueDeadLetter } from './formats/queue-dead-letters.js';
export {
  MAX_DEAD_LETTER_EXCEPTION_TYPE_BYTES,
  MAX_DEAD_LETTER_FIELD_PAIRS,
  MAX_DEAD_LETTER_GROUP_BYTES,
  MAX_DEAD_LETTER_REASON_BYTES,
  WORKER_DEAD_LETTER_META,
  deadLetterExceptionType,
  readWorkerDeadLetter,
  workerDeadLetterFields,
} from './formats/worker-dead-letters.js';
export type { WorkerDeadLetter } from './formats/worker-dead-letters.js';
export { MAX_INT32, assertKnownOptions, toDurationMs, toIntegerInRange } from './durations.js';
export { crc16, hashTagOf, keySlot } from './slots.js';
export { assertSameSlot, isWellFormedText, queueKeys, toKeyPrefix } from './keys.js';
export type { QueueKeys } from './keys.js';
