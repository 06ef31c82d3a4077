// The shapes of the operator's API (AdminApi) that the CLI and the dashboard are written against.
/**
 * The operator's API (authorized inspection of consumer groups, pending entries and dead letters,
 * with retry and delete actions): the shapes every face of it (the `respire` CLI,
 * `@respire/dashboard`) is written against. `RespireAdmin` implements {@link AdminApi}.
 *
 * Conventions:
 * - Times are milliseconds; absolute times are the server's clock (`TIME`), never the host's —
 *   except for an ACL user that may not run TIME (it is not in `@read`): the host clock stands in.
 * - Counts that Redis cannot tell are `null` ("unknown"), never 0.
 * - Bytes stay bytes (`Buffer`); rendering (UTF-8 / JSON / hex, caps) is the face's job, with
 *   {@link PayloadView} helpers exported by the admin package.
 * - Every read is bounded: pages carry `count` (1..1000) and a cursor; nothing runs KEYS, an
 *   unbounded XRANGE/XPENDING/ZRANGE, or a cross-slot multi-key command.
 * - A resource is addressed by its {@link ResourceId}: the resolved key of its main stream (for a
 *   queue `<keyPrefix>{respire-queue:<name>}:stream`, for a worker stream its stream key). Unknown
 *   ids (neither configured nor, for queues, discoverable) throw `RespireValidationError('resource')`,
 *   recognised by `isUnknownResource`.
 */
import type { GroupDetail, GroupedQueueStatus, GroupedQueueSummary, GroupedStatusOptions, InFlightHead, ReadyGroup } from './grouped.js';
import type {
  PartitionedDeadLetter,
  PartitionedDeadLetterOptions,
  PartitionedQueueStatus,
  PartitionedQueueSummary,
  UnavailablePartitionedQueue,
} from './partitioned.js';
import type { SeekResult, SeekTarget, SubscriptionRetryResult, TopicStatus, TopicSummary } from './topics.js';

/** The resolved key of a resource's main stream; stable and unique across queues and streams. */
export type ResourceId = string;

/** A reliable queue the admin knows (configured, or found by the bounded SCAN). */
export interface QueueResource {
  readonly kind: 'queue';
  readonly id: ResourceId;
  /** Queue name (as given to `new ReliableQueue(client, name)`). */
  readonly name: string;
  readonly keyPrefix: string;
  readonly keys: { readonly stream: string; readonly deadlines: string; readonly deadLetter: string };
  /** True when it came from the SCAN rather than from configuration. */
  readonly discovered: boolean;
}

/** A worker stream the admin knows (from configuration: see `StreamConfig`). */
export interface StreamResource {
  readonly kind: 'stream';
  readonly id: ResourceId;
  /** Resolved stream key. */
  readonly stream: string;
  /**
   * Resolved dead-letter stream of the workers on this stream, when configured. Retrying one of
   * its records appends the original fields to {@link stream}.
   */
  readonly deadLetterStream: string | undefined;
  /** Display label from configuration, else the stream key. */
  readonly label: string;
  /**
   * True when {@link deadLetterStream} shares the source stream's Cluster slot (the worker README
   * requires it of workers): a retry is then one atomic script. False for a dead-letter stream an operator
   * configured in another slot: a retry appends first and deletes second, so a retry repeated
   * after a failure between the two may append a duplicate (never loses the record; on Redis
   * 8.6+ an idempotent XADD keyed by the record ID suppresses the repeat). False when no
   * dead-letter stream is configured.
   */
  readonly retryAtomic: boolean;
}

export type Resource = QueueResource | StreamResource;

/** Counts of one queue at a glance (from the queue's deadlines sorted set, not the group's PEL: see the README). */
export interface QueueStatus {
  readonly resource: QueueResource;
  /** Entries in the stream (waiting + leased + delayed; XLEN). */
  readonly length: number;
  /** Not yet delivered: the private group's lag; null when the server cannot tell. */
  readonly ready: number | null;
  /** Delivered and not completed: members of the deadlines set (leased or NACKed). */
  readonly inFlight: number;
  /** Of those, due now (expired leases and due NACKs): redelivered or dead-lettered by the next receive. */
  readonly due: number;
  /** Dead-letter stream length. */
  readonly deadLetters: number;
  /**
   * False when the queue has no data under this name and key prefix: its stream does not exist and
   * nothing is in flight or dead-lettered (a mistyped name or prefix, or a queue never sent to).
   */
  readonly exists: boolean;
}

export interface GroupStatus {
  readonly name: string;
  readonly consumers: number;
  /** PEL size. */
  readonly pending: number;
  /** Undelivered entries (XINFO GROUPS `lag`); null = unknown, never shown as 0. */
  readonly lag: number | null;
  readonly lastDeliveredId: string;
  /** Entries the group has read (XINFO GROUPS `entries-read`); null when the server cannot tell. */
  readonly entriesRead: number | null;
}

export interface StreamStatus {
  readonly resource: StreamResource;
  /** XLEN; 0 when the stream does not exist (then `exists` is false). */
  readonly length: number;
  readonly exists: boolean;
  readonly groups: readonly GroupStatus[];
  /** Length of the dead-letter stream, or null when none is configured. */
  readonly deadLetters: number | null;
}

export interface Overview {
  readonly serverTimeMs: number;
  readonly queues: readonly QueueStatus[];
  readonly streams: readonly StreamStatus[];
  /** True when the queue SCAN stopped at its page limit: more queues may exist. */
  readonly discoveryTruncated: boolean;
  /**
   * Resources whose status the server refused to give (a key of another type, an ACL refusal, any
   * other error reply), in resource order: one broken resource never hides the others. A transport
   * failure still fails the whole overview.
   */
  readonly unavailable: readonly UnavailableResource[];
}

export interface OverviewOptions {
  /**
   * Only the resources for which this answers `true` (a name search, a per-principal guard):
   * asked for every resource at once, before any status is read, so a narrow filter reads little.
   */
  readonly include?: (resource: Resource) => boolean | Promise<boolean>;
}

/** A resource the overview could not read, and why. */
export interface UnavailableResource {
  readonly resource: Resource;
  /** The Respire error code, e.g. `WRONG_TYPE`, `PERMISSION_DENIED`, `SERVER_ERROR`. */
  readonly code: string;
  readonly message: string;
}

export interface ConsumerInfo {
  readonly name: string;
  readonly pending: number;
  /** Since the consumer's last attempted interaction (XINFO CONSUMERS `idle`), ms. */
  readonly idleMs: number;
  /** Since its last successful interaction (Redis 7.2+ `inactive`), ms; null when unknown. */
  readonly inactiveMs: number | null;
}

/**
 * A consumer group's consumers, or only how many there are when that is more than the caller's
 * limit: XINFO CONSUMERS has no COUNT (its reply grows with the group, and random consumer names
 * accumulate in a group forever), so a group above the limit is declined, not read.
 */
export interface ConsumerList {
  /** Every consumer of the group, in XINFO CONSUMERS order; empty when {@link truncated}. */
  readonly items: readonly ConsumerInfo[];
  /** How many consumers the group has (XINFO GROUPS `consumers`); 0 for a missing stream or group. */
  readonly total: number;
  /**
   * True when the group has more than `limit` consumers: XINFO CONSUMERS was not sent (or, when
   * consumers appeared between the two reads, its reply was dropped) and `items` is empty. Remove
   * idle consumers (`removeIdleConsumers`) or ask again with a larger limit.
   */
  readonly truncated: boolean;
}

export interface ConsumerOptions {
  /** Decline (`truncated`) a group with more consumers than this, 1..100000. @defaultValue 1000 */
  readonly limit?: number;
}

/** One XPENDING extended-form row. */
export interface PendingEntry {
  readonly id: string;
  readonly consumer: string;
  /** Since the entry was last delivered or claimed, ms (-1 for an entry Redis 8.8's XNACK released). */
  readonly idleMs: number;
  readonly deliveryCount: number;
  /**
   * True when the entry was released for redelivery and waits for any worker's next recovery to
   * claim it: by an operator's release (its idle time set to 2^31-1 ms or more, so `idleMs` no
   * longer tells how long its owner held it) or by Redis 8.8's XNACK (no owner, idle -1).
   */
  readonly released: boolean;
}

/**
 * A page of rows, the cursor of the next page (undefined: this was the last) and the cursor of the
 * page before it (undefined: this was the first).
 */
export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | undefined;
  /** Pass it as `before` to read the page before this one; undefined on the first page. */
  readonly previous?: string | undefined;
}

/**
 * Which page to read: the first (no option), the one after a `cursor`, the one before a `before`
 * cursor, or the `last`. At most one of `cursor`, `before` and `last`.
 */
export interface PageOptions {
  /** Rows per page, 1..1000. @defaultValue 50 */
  readonly count?: number;
  /** Cursor from a page's `next`: the page after it. */
  readonly cursor?: string;
  /** Cursor from a page's `previous`: the page before it. */
  readonly before?: string;
  /** The last page. */
  readonly last?: boolean;
}

/** Which pending entries a page of the PEL lists. */
export interface PendingOptions extends PageOptions {
  /** Only this consumer's entries (XPENDING's consumer argument; `''` is a valid name). */
  readonly consumer?: string;
  /** Only entries idle at least this long, ms (XPENDING IDLE), 1..2^31-1. */
  readonly minIdleMs?: number;
}

/** Which dead letters a search lists; every given condition must hold. */
export interface DeadLetterFilter {
  /** The record's reason: a worker's `explicit`, `nack`, `processing-failed`, `delivery-limit`; `delivery-limit` for every queue record. */
  readonly reason?: string;
  /** The worker's consumer group (`_respire.group`), or a grouped queue record's message group; ungrouped queue records have none. */
  readonly group?: string;
  /** The worker's exception type, exactly; queue records have none. */
  readonly exceptionType?: string;
  /** The ID of the entry the record came from. */
  readonly sourceId?: string;
  /** Dead-lettered at or after this time (the record ID's time), ms since the epoch. */
  readonly sinceMs?: number;
  /** Dead-lettered at or before this time (the record ID's time), ms since the epoch. */
  readonly untilMs?: number;
}

/** A page of dead letters; with a filter, also how far the search went. */
export interface DeadLetterPage extends Page<DeadLetterRecord> {
  /** Records read to make this page (with a filter, more than it shows). */
  readonly scanned: number;
  /**
   * False when a filtered search stopped at its `scanLimit` before it had a full page or reached
   * the end: `next` (or `previous`) then continues the search from the last record it read.
   */
  readonly complete: boolean;
}

export interface DeadLetterOptions extends PageOptions {
  /** @defaultValue 'newest' */
  readonly order?: 'newest' | 'oldest';
  /** Only records matching every condition; the time range bounds the XRANGE itself. */
  readonly filter?: DeadLetterFilter;
  /**
   * With a filter: at most this many records are read per call, 1..100000, so a search never
   * scans an unbounded stream in one go (see {@link DeadLetterPage.complete}). @defaultValue 10000
   */
  readonly scanLimit?: number;
}

/** A stream entry body; `null` from {@link AdminApi.entry} means deleted or trimmed. */
export interface EntryBody {
  readonly id: string;
  /** Field/value pairs in order, as bytes (names may repeat). */
  readonly fields: readonly (readonly [Buffer, Buffer])[];
}

/** A worker dead-letter record (the worker README's "Delivery limits and dead letters"): metadata read positionally. */
export interface WorkerDeadLetter {
  readonly kind: 'worker';
  readonly id: string;
  readonly sourceId: string;
  readonly group: string;
  readonly attempt: number;
  readonly reason: string;
  readonly exceptionType: string;
  /** The original fields, after the five `_respire.*` pairs, unchanged and in order. */
  readonly fields: readonly (readonly [Buffer, Buffer])[];
}

/** A queue dead-letter record (the queue README): `payload`, `source_id`, `delivery_count`. */
export interface QueueDeadLetter {
  readonly kind: 'queue';
  readonly id: string;
  readonly sourceId: string;
  readonly deliveryCount: number;
  readonly payload: Buffer;
  /** The message's group, for a grouped queue's record (user data: render it inert); absent for an ungrouped queue's. */
  readonly group?: string;
}

/** A record that does not have the shape its stream's owner writes (shown raw, never retried). */
export interface ForeignRecord {
  readonly kind: 'foreign';
  readonly id: string;
  readonly fields: readonly (readonly [Buffer, Buffer])[];
}

export type DeadLetterRecord = WorkerDeadLetter | QueueDeadLetter | ForeignRecord;

/** A delivered, not yet completed queue message: receipt-free. */
export interface QueueDelivery {
  readonly id: string;
  readonly deliveryCount: number;
  /** `leased`: held under a receipt; `delayed`: NACKed, waiting for its due time. */
  readonly state: 'leased' | 'delayed';
  /** Lease deadline or due time, server clock, ms since the epoch. */
  readonly untilMs: number;
  /** True when `untilMs` has passed: the next receive redelivers or dead-letters it. */
  readonly due: boolean;
}

/** A message of a reliable queue, and where it is in its life. */
export interface QueueMessage {
  readonly id: string;
  /** The entry's `payload` field (empty when it has none). */
  readonly payload: Buffer;
  /** Every field of the entry, in order. */
  readonly fields: readonly (readonly [Buffer, Buffer])[];
  /**
   * `ready`: not yet delivered; `leased`: held under a receipt until `untilMs`; `delayed`: NACKed
   * or released, due at `untilMs`; `delivered`: delivered and not completed, but its deadline was
   * not among the deadlines set's members read (a bounded ZSCAN) or it has none.
   */
  readonly state: 'ready' | 'leased' | 'delayed' | 'delivered';
  /** Deliveries so far: 0 while ready; null when `delivered` (not known). */
  readonly deliveryCount: number | null;
  /** Lease deadline or due time (server clock, ms); null when ready or not known. */
  readonly untilMs: number | null;
  /** True when `untilMs` has passed: the next receive redelivers it or moves it to the dead letters. */
  readonly due: boolean;
  /**
   * A delayed send's due time (its entry's `due` field; server clock, ms): no receive delivers it
   * before then. A `ready` message with a `dueMs` still ahead is waiting for it; once a receive has
   * met it, it is `delayed` with delivery count 0 and `untilMs` = `dueMs`. Null for a message sent
   * without a delay.
   */
  readonly dueMs: number | null;
  /**
   * The headers it was sent with (queue README "Headers"): strings as strings, bytes as Buffers;
   * user data, so render them inert, as payloads. Empty for none; null when its `headers` field is
   * not in the queue's format.
   */
  readonly headers: Readonly<Record<string, string | Buffer>> | null;
}

/** What the operator saw of a leased or delayed queue message: the action is done only while both still hold. */
export interface QueueMessageExpectation {
  readonly deliveryCount: number;
  /** The lease deadline or due time shown (`QueueDelivery.untilMs`, `QueueMessage.untilMs`). */
  readonly untilMs: number;
}

export type QueueMessageActionResult =
  | { readonly status: 'released' | 'deleted' }
  /** Not in flight: acknowledged, dead-lettered, or its body is gone. */
  | { readonly status: 'missing' }
  /** Delivered again, NACKed, released or completed meanwhile: nothing was done. `deliveryCount`: what its member records now, null when not at the deadline shown. */
  | { readonly status: 'changed'; readonly deliveryCount: number | null };

/** Who did it; the faces pass their authorized principal. */
export interface Actor {
  readonly name: string;
  readonly role: 'viewer' | 'operator';
}

/** One audited action (logger callback and, optionally, an audit stream). */
export interface AuditRecord {
  readonly atMs: number;
  /** The actor's name. */
  readonly actor: string;
  /** The actor's role: `operator` for an action taken, `viewer` for one refused before any I/O. */
  readonly role: Actor['role'];
  readonly action:
    | 'retry'
    | 'delete'
    | 'retry-all'
    | 'delete-all'
    | 'release'
    | 'ack'
    | 'remove-idle-consumers'
    | 'trim-acknowledged'
    | 'release-message'
    | 'delete-message'
    | 'seek'
    | 'job-start'
    | 'job-cancel'
    | 'job-finish';
  readonly resource: ResourceId;
  /** Entry or record IDs, group, consumer names acted on. */
  readonly target: Readonly<Record<string, string | number | readonly string[]>>;
  readonly result: 'ok' | 'missing' | 'changed' | 'refused' | 'failed';
  /** Error code or a short reason when not ok. */
  readonly detail?: string;
  /**
   * Set (on the record handed to the logger) when appending this record to the audit stream
   * failed; the action itself stands.
   */
  readonly auditStreamError?: string;
}

export type RetryResult =
  | { readonly status: 'retried'; readonly newId: string }
  /** The record is gone (already retried or deleted). */
  | { readonly status: 'missing' }
  /** A foreign record, or a worker record without a configured source stream. */
  | { readonly status: 'refused'; readonly reason: string };

export type DeleteResult = { readonly status: 'deleted' } | { readonly status: 'missing' };

/** What the operator saw of a pending entry: a pending action is done only while both still hold (fencing). */
export interface PendingExpectation {
  readonly deliveryCount: number;
  readonly consumer: string;
}

export type PendingActionResult =
  | {
      readonly status: 'released' | 'acknowledged';
      /**
       * Set when an ack was asked to delete the entry but other groups of the stream still need it
       * (pending there, or not yet delivered to them): it was acknowledged in this group and its
       * body kept for those groups, named here (sorted).
       */
      readonly entryKeptFor?: readonly string[];
      /** True when an ack was asked to delete the entry and did (no other group needed it). */
      readonly entryDeleted?: boolean;
    }
  /**
   * Not pending in the group (also for a missing stream or group). A release of a pending entry
   * whose body was deleted answers this too: XCLAIM dropped the dangling PEL reference.
   */
  | { readonly status: 'missing' }
  /** The delivery count or owner changed since the page was rendered: nothing was done. */
  | { readonly status: 'changed'; readonly deliveryCount: number; readonly consumer: string };

export interface BulkProgress {
  /** Records retried (or deleted). */
  readonly done: number;
  /** Records left in place: foreign records a retry cannot put back. */
  readonly failed: number;
}

/** What a bulk action did; `aborted` when its `signal` stopped it between pages. */
export interface BulkResult extends BulkProgress {
  readonly aborted: boolean;
}

export interface BulkOptions {
  /** Records per script call / page, 1..1000. @defaultValue 100 */
  readonly pageSize?: number;
  /**
   * Stop after this many records. Records appended after the action started (for example a
   * retried entry that fails again) are never touched: pages stop at the last record ID seen at
   * the start. @defaultValue the stream's length when the action started
   */
  readonly limit?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: BulkProgress) => void;
}

export interface IdleConsumerResult {
  readonly removed: readonly string[];
  /** Consumers idle past the threshold but still holding pending entries: never removed. */
  readonly keptWithPending: readonly string[];
}

/** Everything the faces call. Reads never block Redis; actions are atomic where Redis allows. */
export interface AdminApi {
  resources(): Promise<{ readonly resources: readonly Resource[]; readonly discoveryTruncated: boolean }>;
  resource(id: ResourceId): Promise<Resource>;
  overview(options?: OverviewOptions): Promise<Overview>;
  queueStatus(id: ResourceId): Promise<QueueStatus>;
  streamStatus(id: ResourceId): Promise<StreamStatus>;

  /**
   * Consumer-group views (`consumers`, `pending`, `releasePending`, `ackPending`,
   * `removeIdleConsumers`) are for worker streams; a queue's group PEL does not tell the truth
   * after first delivery (use `queueDeliveries`), so a queue id throws `RespireValidationError`.
   * A group the stream does not have (or a stream that does not exist) throws
   * `RespireNotFoundError` (`isNotFound`), naming the nearest groups that exist.
   */
  consumers(id: ResourceId, group: string, options?: ConsumerOptions): Promise<ConsumerList>;
  /** One group's status (XINFO GROUPS); a group the stream does not have throws `RespireNotFoundError`. */
  group(id: ResourceId, group: string): Promise<GroupStatus>;
  pending(id: ResourceId, group: string, options?: PendingOptions): Promise<Page<PendingEntry>>;
  /** One entry body (XRANGE id id); null when deleted or trimmed. */
  entry(id: ResourceId, entryId: string): Promise<EntryBody | null>;
  deadLetters(id: ResourceId, options?: DeadLetterOptions): Promise<DeadLetterPage>;
  deadLetter(id: ResourceId, recordId: string): Promise<DeadLetterRecord | null>;
  queueDeliveries(id: ResourceId, options?: PageOptions): Promise<Page<QueueDelivery> & { readonly serverTimeMs: number; readonly total: number }>;
  /** A queue's ready messages (not yet delivered), oldest first by default; `total` is the group's lag (null: unknown). */
  queueMessages(
    id: ResourceId,
    options?: PageOptions & { readonly order?: 'oldest' | 'newest' },
  ): Promise<Page<QueueMessage> & { readonly total: number | null; readonly serverTimeMs: number }>;
  /** One message of a queue and its state; null when it is not in the queue's stream. */
  queueMessage(id: ResourceId, entryId: string): Promise<(QueueMessage & { readonly serverTimeMs: number }) | null>;
  /** A resource's history: rates and backlogs per series, from the samples kept in Redis. */
  history(id: ResourceId, options?: HistoryOptions): Promise<History>;
  /** Records one history sample of every resource, unless one younger than `minIntervalMs` exists. */
  recordHistory(options?: { readonly minIntervalMs?: number }): Promise<HistoryRecordResult>;
  /** Finds an entry ID, a dead-letter record, the dead letters of a source ID, or (queues) a deduplication ID. */
  find(id: ResourceId, query: string, options?: { readonly scanLimit?: number }): Promise<FindResult>;

  retryDeadLetter(actor: Actor, id: ResourceId, recordId: string): Promise<RetryResult>;
  deleteDeadLetter(actor: Actor, id: ResourceId, recordId: string): Promise<DeleteResult>;
  retryAllDeadLetters(actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult>;
  deleteAllDeadLetters(actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult>;
  /** Fenced by the delivery count and owner shown on the page. */
  releasePending(actor: Actor, id: ResourceId, group: string, entryId: string, expected: PendingExpectation): Promise<PendingActionResult>;
  ackPending(
    actor: Actor,
    id: ResourceId,
    group: string,
    entryId: string,
    expected: PendingExpectation,
    options?: { readonly deleteEntry?: boolean },
  ): Promise<PendingActionResult>;
  removeIdleConsumers(actor: Actor, id: ResourceId, group: string, minIdleMs: number): Promise<IdleConsumerResult>;
  /**
   * Trims up to `max` (1..1000, default 1000) of a worker stream's oldest entries that every
   * consumer group of the stream has acknowledged: the worker's `trimAcknowledgedEntries` rule
   * (worker README "Trimming acknowledged entries"), never an entry some group still needs, nothing
   * on a stream without groups. An operator action, audited as `trim-acknowledged`.
   * @returns how many entries were trimmed; call again while it equals `max`.
   * @throws {@link RespireAuthorizationError} for a viewer, {@link RespireValidationError} for a bad
   *   `max` (both before any I/O); not-found for an unknown stream.
   */
  trimAcknowledged(actor: Actor, id: ResourceId, options?: { readonly max?: number }): Promise<{ readonly trimmed: number }>;
  /** Starts a bulk job (retry or delete of selected or filtered dead letters) in the background. */
  startJob(actor: Actor, id: ResourceId, spec: JobSpec, options?: { readonly onProgress?: (job: Job) => void }): Promise<RunningJob>;
  /** Resumes an interrupted job from where it stopped. */
  resumeJob(actor: Actor, jobId: string, options?: { readonly onProgress?: (job: Job) => void }): Promise<RunningJob>;
  /** Asks a running job to stop (an interrupted one stops at once). */
  cancelJob(actor: Actor, jobId: string): Promise<{ readonly status: 'asked' | 'cancelled' | 'not-running'; readonly job: Job | null }>;
  /** One job; null when unknown (or expired). */
  job(jobId: string): Promise<Job | null>;
  /** Recent jobs, newest first, optionally of one resource. */
  jobs(options?: { readonly resource?: ResourceId; readonly count?: number }): Promise<readonly Job[]>;
  /** Makes a leased or delayed queue message due now (a NACK without delay), fenced by what the operator saw. */
  releaseQueueMessage(actor: Actor, id: ResourceId, entryId: string, expected: QueueMessageExpectation): Promise<QueueMessageActionResult>;
  /** Acknowledges (removes) a leased or delayed queue message, fenced by what the operator saw. */
  deleteQueueMessage(actor: Actor, id: ResourceId, entryId: string, expected: QueueMessageExpectation): Promise<QueueMessageActionResult>;

  /** Reliable topics (configured, then discovered) with their publications and subscription counts. */
  topics(): Promise<{ readonly topics: readonly TopicSummary[]; readonly discoveryTruncated: boolean }>;
  /** A topic and each subscription's lag, pending, retried dead letters not yet completed, oldest unacknowledged age, dead letters and trimmed count. */
  topic(id: ResourceId): Promise<TopicStatus>;
  subscriptionDeadLetters(id: ResourceId, subscription: string, options?: DeadLetterOptions): Promise<DeadLetterPage>;
  deleteSubscriptionDeadLetter(actor: Actor, id: ResourceId, subscription: string, recordId: string): Promise<DeleteResult>;
  /** A subscription's dead letter delivered again to that subscription only (atomic; a repeat is `missing`). */
  retrySubscriptionDeadLetter(actor: Actor, id: ResourceId, subscription: string, recordId: string): Promise<SubscriptionRetryResult>;
  retryAllSubscriptionDeadLetters(actor: Actor, id: ResourceId, subscription: string, options?: BulkOptions): Promise<BulkResult>;
  deleteAllSubscriptionDeadLetters(actor: Actor, id: ResourceId, subscription: string, options?: BulkOptions): Promise<BulkResult>;
  /** Moves a subscription (audited `seek`): its leases are discarded and the retained publications after `to` delivered again. */
  seekSubscription(actor: Actor, id: ResourceId, subscription: string, to: SeekTarget): Promise<SeekResult>;

  /** Grouped queues (configured, then discovered) with their counts: O(1) reads each. */
  groupedQueues(): Promise<{ readonly groupedQueues: readonly GroupedQueueSummary[]; readonly discoveryTruncated: boolean }>;
  /** A grouped queue's counts and largest backlogs (a cached walk over its groups). */
  groupedQueue(id: ResourceId, options?: GroupedStatusOptions): Promise<GroupedQueueStatus>;
  /** One page of the ready ring, in receive order, with backlogs. */
  readyGroups(id: ResourceId, options?: { readonly count?: number; readonly cursor?: string }): Promise<Page<ReadyGroup>>;
  /** One page of the messages in flight (ordered groups: the blocked heads), soonest deadline first. */
  groupsInFlight(
    id: ResourceId,
    options?: { readonly count?: number; readonly cursor?: string },
  ): Promise<Page<InFlightHead> & { readonly serverTimeMs: number }>;
  /** One group: backlog, head, state, messages in flight. */
  messageGroup(id: ResourceId, groupId: string): Promise<GroupDetail>;
  /** One page of a grouped queue's dead letters, as {@link deadLetters}, each record with its group. */
  groupedDeadLetters(id: ResourceId, options?: DeadLetterOptions): Promise<DeadLetterPage>;
  /** Appends a grouped dead letter to the back of its group (a fresh message) and removes the record. */
  retryGroupedDeadLetter(actor: Actor, id: ResourceId, recordId: string): Promise<RetryResult>;
  deleteGroupedDeadLetter(actor: Actor, id: ResourceId, recordId: string): Promise<DeleteResult>;
  retryAllGroupedDeadLetters(actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult>;
  deleteAllGroupedDeadLetters(actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult>;

  /** Partitioned queues (configured, then discovered) with their partition counts and totals. */
  partitionedQueues(): Promise<{
    readonly partitionedQueues: readonly PartitionedQueueSummary[];
    readonly discoveryTruncated: boolean;
    readonly unavailable: readonly UnavailablePartitionedQueue[];
  }>;
  /** A partitioned queue: each partition's counts, slot and master, and the totals per master. */
  partitionedQueue(id: ResourceId): Promise<PartitionedQueueStatus>;
  /** The dead letters of every partition as one list, newest first, each naming its partition. */
  partitionedDeadLetters(id: ResourceId, options?: PartitionedDeadLetterOptions): Promise<Page<PartitionedDeadLetter>>;
  retryPartitionedDeadLetter(actor: Actor, id: ResourceId, partition: number, recordId: string): Promise<RetryResult>;
  deletePartitionedDeadLetter(actor: Actor, id: ResourceId, partition: number, recordId: string): Promise<DeleteResult>;
}

/**
 * One point of a history series. Rates are per second over the interval that ends at `atMs`
 * (null for the first point, after a counter went back — a stream deleted and recreated —, or
 * when the server could not tell); the rest are gauges at `atMs`.
 */
export interface HistoryPoint {
  /** The sample's time (server clock), ms since the epoch. */
  readonly atMs: number;
  /** Entries appended to the stream (sends; also retried dead letters). */
  readonly sent: number | null;
  /** First deliveries (entries read by the group); all deliveries when the producers keep counters. */
  readonly delivered: number | null;
  /**
   * Completions: for a queue, first deliveries that left in flight other than to the dead letters;
   * for a worker group, entries read that left its PEL (acknowledged, dead letters included).
   */
  readonly acknowledged: number | null;
  /** Records appended to the dead-letter stream. */
  readonly deadLettered: number | null;
  /** Not yet delivered: a queue's ready count, a group's lag. */
  readonly lag: number | null;
  /** Delivered and not completed: a queue's in-flight count, a group's PEL size. */
  readonly pending: number | null;
  /** Age of the oldest unacknowledged entry (from its entry ID's time), ms. */
  readonly oldestAgeMs: number | null;
  /** Length of the dead-letter stream. */
  readonly deadLetters: number | null;
  /** Consumers of the group. */
  readonly consumers: number | null;
}

/** The points of one series: the queue, the worker stream itself, or one of its consumer groups. */
export interface HistorySeries {
  readonly kind: 'queue' | 'stream' | 'group';
  /** The group's name (`''` for a queue or a stream). */
  readonly name: string;
  readonly points: readonly HistoryPoint[];
}

/** A resource's history between two times. */
export interface History {
  readonly resource: Resource;
  /** False when the resource can have no history (a stream key no history key shares a slot with). */
  readonly kept: boolean;
  /** Samples read (at most 10,000, the newest of the range: `truncated` says when there were more). */
  readonly samples: number;
  readonly truncated: boolean;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly series: readonly HistorySeries[];
}

export interface HistoryOptions {
  /** From this time (server clock, ms). @defaultValue the oldest sample kept */
  readonly sinceMs?: number;
  /** Up to this time. @defaultValue now */
  readonly untilMs?: number;
  /**
   * Points per series at most, 2..10000: samples in between are left out, and since counters
   * only grow, a rate over a longer interval is the mean rate of the samples left out. @defaultValue 500
   */
  readonly maxPoints?: number;
}

/** What one recording of history did. */
export interface HistoryRecordResult {
  readonly recorded: number;
  /** Resources whose last sample was younger than `minIntervalMs` (another sampler took it). */
  readonly skipped: number;
  /** Resources whose sample the server refused (an ACL refusal, a key of another type), or that can have no history. */
  readonly failed: readonly { readonly id: ResourceId; readonly code: string; readonly message: string }[];
}

/** What a bulk job does to which dead letters. */
export interface JobSpec {
  readonly action: 'retry' | 'delete';
  /** These records (1..1000 IDs), in this order. */
  readonly recordIds?: readonly string[];
  /**
   * Or every record that matches this filter (without one: every record), among those present
   * when the job starts (records appended later, such as a retried entry that fails again, are
   * never touched), oldest first.
   */
  readonly filter?: DeadLetterFilter;
  /** Stop after this many records. @defaultValue no limit but the admin's `jobs.maxRecords` */
  readonly limit?: number;
}

/**
 * A bulk job, as kept in Redis (any admin on the same server sees it). `interrupted`: still
 * running by its record, but its runner has not reported within the lease (its process stopped
 * or died); resume or cancel it.
 */
export interface Job {
  readonly id: string;
  readonly resource: ResourceId;
  readonly action: 'retry' | 'delete';
  readonly selection: { readonly recordIds: readonly string[] } | { readonly filter: DeadLetterFilter };
  readonly limit: number | null;
  /** Who started it (and its role). */
  readonly actor: string;
  readonly state: 'running' | 'interrupted' | 'done' | 'cancelled' | 'failed';
  readonly createdMs: number;
  /** The runner's last report (server clock). */
  readonly heartbeatMs: number;
  readonly finishedMs: number | null;
  /** Records in the selection when it started (with a filter: the dead-letter stream's length then, an upper bound). */
  readonly total: number;
  /** Records read so far (with a filter, also those that did not match). */
  readonly examined: number;
  /** Records retried or deleted. */
  readonly done: number;
  /** Records a retry left in place: not records Respire writes (foreign). */
  readonly failed: number;
  /** Records already gone when the job reached them (retried or deleted meanwhile). */
  readonly missing: number;
  /** Records per second so far. */
  readonly ratePerSecond: number | null;
  readonly cancelRequested: boolean;
  readonly cancelledBy: string | null;
  /** Why it failed (a Respire error code and message). */
  readonly error: string | null;
}

/** A job started or resumed by this process: its record, and its end. */
export interface RunningJob {
  readonly job: Job;
  /** The job's final record (done, cancelled, failed, or interrupted when this process stopped it); never rejects. */
  readonly finished: Promise<Job>;
}

/** Where a worker stream's entry stands in one consumer group. */
export interface EntryInGroup {
  readonly group: string;
  /** `pending`: delivered, not acknowledged; `done`: delivered and acknowledged; `waiting`: not yet delivered to the group. */
  readonly state: 'pending' | 'done' | 'waiting';
  /** The pending entry (owner, idle time, delivery count) when `pending`. */
  readonly pending?: PendingEntry;
}

/** What {@link AdminApi.find} found for a query. */
export interface FindResult {
  readonly query: string;
  /** The entry of the resource's main stream with this ID. */
  readonly entry: EntryBody | null;
  /** A queue's entry: its state as a message. */
  readonly message?: QueueMessage | null;
  /** A worker stream's entry: where it stands in each consumer group (at most 32 groups are read). */
  readonly groups?: readonly EntryInGroup[];
  /** The dead-letter record with this ID. */
  readonly deadLetter: DeadLetterRecord | null;
  /** The first page of dead letters whose source ID is the query (a bounded search). */
  readonly bySource: DeadLetterPage | null;
  /** A queue's deduplication ID: the entry ID it names, while its window lasts. */
  readonly deduplication: { readonly entryId: string; readonly expiresInMs: number | null } | null;
  /** The server time of the search, ms. */
  readonly serverTimeMs: number;
}
