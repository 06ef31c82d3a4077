// Shared by Respire's own packages (queue, worker, admin) and tools; not covered by semver.
// Applications import the public entry, `@respire/core-scripts`.
export { isConnectionFailure, isErrorReply, isNotSent, isTransient, isUnanswered, replyCode, toRespireError, transientReplyCode } from './classify.js';
export { describeError, describeThrown, describeValue, exceptionType, ignoreRejection, safeGet } from './describe.js';
export { RETRY_INITIAL_DELAY_MS, RETRY_MAX_DELAY_MS, TransientBackoff, retryTransient, sleep } from './retry.js';
export { commandTarget } from './transport.js';
export type { CommandTarget, SendOptions } from './transport.js';
export { replyWithin } from './deadline.js';
export { toDurability } from './durability.js';
export type { Durability } from './durability.js';
export { infoField, parseEntries, replyString } from './replies.js';
export type { RawEntry } from './replies.js';
export { runScript } from './runner.js';
export type { ScriptArg } from './runner.js';
export * as scripts from './generated/scripts.js';
export * as scriptCalls from './generated/calls.js';
export type * from './generated/replies.js';
export { decodeGroupedReceiveReply, decodeQueueReceiveReply, decodeWorkerCompleteReply } from './generated/replies.js';
export { compareEntryIds, entryIdParts, isEntryId, nextEntryId, previousEntryId, toEntryId } from './formats/entry-ids.js';
export { isReceipt, leaseMember, newReceiptToken, parseLeaseMember, receiptOf } from './formats/receipts.js';
export { queueDeadLetterFields, readQueueDeadLetter } from './formats/queue-dead-letters.js';
export type { FieldPairs, QueueDeadLetter } from './formats/queue-dead-letters.js';
export { QUEUE_ENTRY_FIELDS, queueEntryFields, readQueueEntry } from './formats/queue-entries.js';
export { MAX_HEADERS, MAX_HEADERS_BYTES, readHeaders, writeHeaders } from './formats/headers.js';
export type { MessageHeaders, ReceivedHeaders } from './formats/headers.js';
export type { QueueEntry } from './formats/queue-entries.js';
export {
  MAX_DEAD_LETTER_FIELD_PAIRS,
  MAX_DEAD_LETTER_GROUP_BYTES,
  WORKER_DEAD_LETTER_META,
  deadLetterExceptionType,
  readWorkerDeadLetter,
  workerDeadLetterFields,
} from './formats/worker-dead-letters.js';
export type { WorkerDeadLetter } from './formats/worker-dead-letters.js';
export { MAX_INT32, toDurationMs, toIntegerInRange, toOptions } from './options.js';
export { keySlot } from './slots.js';
export { GROUPED_LEASED_MARK, assertSameSlot, isWellFormedText, queueKeys, toKeyPrefix } from './keys.js';
export type { QueueKeys } from './keys.js';
export { subscriptionKeys, topicKeys } from './topic-keys.js';
export type { SubscriptionKeys, TopicKeys } from './topic-keys.js';
export {
  MAX_GENERATIONS,
  MAX_PARTITIONS,
  currentCount,
  extendsHistory,
  formatHistory,
  parseHistory,
  partitionNames,
  partitionSet,
} from './partition-layout.js';
export type { Generation, PartitionHistory, PartitionSet } from './partition-layout.js';
