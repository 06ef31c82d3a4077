// RespireAdmin: the operator's API class, delegating to one module per concern.
import type {
  Actor,
  AdminApi,
  AuditRecord,
  BulkOptions,
  BulkResult,
  ConsumerList,
  ConsumerOptions,
  DeadLetterOptions,
  DeadLetterPage,
  DeadLetterRecord,
  DeleteResult,
  GroupStatus,
  History,
  HistoryOptions,
  HistoryRecordResult,
  EntryBody,
  FindResult,
  IdleConsumerResult,
  Job,
  JobSpec,
  Overview,
  OverviewOptions,
  Page,
  PageOptions,
  PendingActionResult,
  PendingEntry,
  PendingExpectation,
  PendingOptions,
  QueueDelivery,
  QueueMessage,
  QueueMessageActionResult,
  QueueMessageExpectation,
  QueueResource,
  QueueStatus,
  Resource,
  ResourceId,
  RetryResult,
  RunningJob,
  StreamStatus,
} from './api.js';
import { Auditor, DEFAULT_AUDIT_STREAM_MAX_LENGTH } from './audit.js';
import type { AdminContext } from './context.js';
import * as deadLetterActions from './dead-letter-actions.js';
import * as deadLetterPages from './dead-letter-pages.js';
import * as groupedDeadLetters from './grouped-dead-letters.js';
import { find } from './find.js';
import { groupOf } from './groups.js';
import * as historyModule from './history.js';
import { HistorySampler, type HistorySamplerOptions } from './history-sampler.js';
import { Jobs, jobSettings, type JobSettings } from './jobs.js';
import { nearest } from './not-found.js';
import * as pages from './pages.js';
import * as pendingActions from './pending-actions.js';
import * as queueMessages from './queue-messages.js';
import { Redis, RespireValidationError, toDurationMs, type DurabilityOptions } from './redis.js';
import { Resources, type DiscoveryOptions, type QueueConfig, type StreamConfig } from './resources.js';
import * as status from './status.js';
import {
  GroupedQueues,
  type GroupDetail,
  type GroupedQueueConfig,
  type GroupedQueueStatus,
  type GroupedQueueSummary,
  type GroupedStatusOptions,
  type InFlightHead,
  type ReadyGroup,
} from './grouped.js';
import {
  PartitionedQueues,
  type PartitionedDeadLetter,
  type PartitionedDeadLetterOptions,
  type PartitionedQueueStatus,
  type PartitionedQueueSummary,
  type UnavailablePartitionedQueue,
} from './partitioned.js';
import {
  TOPIC_KEY,
  Topics,
  type SeekResult,
  type SeekTarget,
  type SubscriptionRetryResult,
  type TopicConfig,
  type TopicStatus,
  type TopicSummary,
} from './topics.js';
import { toCount, toList, toName, toOptions } from './validate.js';

export type { DiscoveryOptions, QueueConfig, StreamConfig };

/** Options of {@link RespireAdmin}. */
export interface RespireAdminOptions {
  /** Reliable queues to show. @defaultValue `[]` */
  readonly queues?: readonly QueueConfig[];
  /** Worker streams to show (the only way the admin learns of them). @defaultValue `[]` */
  readonly streams?: readonly StreamConfig[];
  /**
   * Also find reliable queues with a bounded SCAN (MATCH `*{respire-queue:*}:*`, TYPE stream:
   * their ready and dead-letter streams, so a queue whose ready stream is gone but whose dead
   * letters remain is found too; COUNT, a page limit; every master of a Cluster; never KEYS).
   * `true` uses the default bounds. @defaultValue false
   */
  readonly discoverQueues?: boolean | DiscoveryOptions;
  /** Reliable topics to show (`@respire/queue`'s `ReliableTopic`). @defaultValue `[]` */
  readonly topics?: readonly TopicConfig[];
  /**
   * Also find reliable topics with a bounded SCAN (MATCH `*{respire-topic:*}:stream`, TYPE
   * stream, COUNT, a page limit; every master of a Cluster; never KEYS), as `discoverQueues`.
   * `true` uses the default bounds. @defaultValue false
   */
  readonly discoverTopics?: boolean | DiscoveryOptions;
  /**
   * Grouped queues to show (`new ReliableQueue(client, name, { groups })`, queue README "Message
   * groups"), each optionally with its `groupConcurrency` (1..1000), which retries of its dead
   * letters use to let an idle fair group with room join the ready ring at once. @defaultValue `[]`
   */
  readonly groupedQueues?: readonly GroupedQueueConfig[];
  /**
   * Also find grouped queues with a bounded SCAN (MATCH `*{respire-queue:*}:groups:stream`, TYPE
   * stream, COUNT, a page limit; every master of a Cluster; never KEYS), as `discoverQueues`.
   * `true` uses the default bounds. @defaultValue false
   */
  readonly discoverGroupedQueues?: boolean | DiscoveryOptions;
  /** Partitioned queues to show (`new PartitionedQueue(client, name, { partitions })`, queue README "Scaling past one master"). @defaultValue `[]` */
  readonly partitionedQueues?: readonly QueueConfig[];
  /**
   * Also find partitioned queues with a bounded SCAN (MATCH `*{respire-partitioned:*}:partitions`,
   * TYPE string: their metadata keys; COUNT, a page limit; every master of a Cluster; never KEYS),
   * as `discoverQueues`. `true` uses the default bounds. @defaultValue false
   */
  readonly discoverPartitionedQueues?: boolean | DiscoveryOptions;
  /**
   * Called with one {@link AuditRecord} per action (also for a viewer refused before any I/O,
   * then with the host clock). A logger that throws is ignored: it never breaks the action.
   */
  readonly audit?: (record: AuditRecord) => void;
  /**
   * Key of a stream to which every audit record is also appended (XADD, fields `at`, `actor`,
   * `role`, `action`, `resource`, `target` (JSON), `result`, `detail`). A failed append does not undo the
   * action; the logger then gets the record with `auditStreamError`. The `respire` CLI and the
   * `respire-dashboard` command use `respire:audit` (`DEFAULT_AUDIT_STREAM`). @defaultValue none
   */
  readonly auditStream?: string;
  /**
   * Records the audit stream keeps, about (XADD MAXLEN ~: the oldest are trimmed), 0 for no
   * bound. @defaultValue 100_000
   */
  readonly auditStreamMaxLength?: number;
  /**
   * Deadline of each of the admin's commands, in ms; 0 disables it. Unwritten when it expires, a
   * command is not sent; written and unanswered, it rejects a few ms later with an unknown outcome
   * (`RespireTransportError.outcomeUnknown`). @defaultValue the client's own setting (node-redis
   * never times out a command once it is written)
   */
  readonly commandTimeoutMs?: number;
  /**
   * Beyond the contract: each repair action (retries of dead letters, pending acks and releases,
   * removing idle consumers, queue-message releases and deletes) waits until its write reached
   * `replicas` replicas and/or the AOF (`WAIT` / `WAITAOF` behind it on its connection; the queue
   * README's "Durability"). Short of it the action stays applied and throws
   * `RespireNotDurableError` (the audit records the failure). Reads, history and jobs do not wait.
   * @defaultValue undefined (no wait)
   */
  readonly durability?: DurabilityOptions;
  /**
   * How history samples are kept: `retentionMs` (default 24 hours, 1 minute to 30 days) and
   * `maxGroups` per stream (default 64). Samples are recorded only by {@link RespireAdmin.recordHistory}
   * or a sampler ({@link RespireAdmin.startHistory}).
   */
  readonly history?: historyModule.HistorySettings;
  /**
   * How bulk jobs are kept and run: `keyPrefix` of their keys (default `'respire:'`: keys
   * `respire:{jobs}:index` and `respire:{jobs}:job:<id>`), `retentionMs` (default 7 days),
   * `pageSize` (default 500), `ratePerSecond` (default 0: no limit), `maxRecords` per job
   * (default 10,000,000), `maxRunning` in this process (default 4), `leaseMs` (default 30 s).
   */
  readonly jobs?: JobSettings;
}

const KNOWN_OPTIONS = [
  'queues',
  'streams',
  'discoverQueues',
  'topics',
  'discoverTopics',
  'groupedQueues',
  'discoverGroupedQueues',
  'partitionedQueues',
  'discoverPartitionedQueues',
  'audit',
  'auditStream',
  'auditStreamMaxLength',
  'commandTimeoutMs',
  'durability',
  'history',
  'jobs',
];

/**
 * The operator's API over Respire's queues and worker streams: bounded reads (every page carries
 * COUNT; nothing runs KEYS or an unbounded range) and atomic, audited, fenced repairs run as
 * core-scripts Lua. It uses the node-redis client it is given (standalone or `createCluster`) and
 * never closes it.
 *
 * @example
 * ```ts
 * const admin = new RespireAdmin(client, {
 *   queues: [{ name: 'notifications' }],
 *   streams: [{ stream: '{orders}:events', deadLetterStream: '{orders}:dead' }],
 *   discoverQueues: true,
 *   audit: (record) => logger.info(record, 'respire admin action'),
 * });
 * const { queues, streams } = await admin.overview();
 * await admin.retryDeadLetter({ name: 'alice', role: 'operator' }, '{orders}:events', '1700000000000-0');
 * ```
 */
export class RespireAdmin implements AdminApi {
  readonly #ctx: AdminContext;
  readonly #history: Required<historyModule.HistorySettings>;
  readonly #jobs: Jobs;
  readonly #topics: Topics;
  readonly #grouped: GroupedQueues;
  readonly #partitioned: PartitionedQueues;

  /**
   * @throws {@link RespireValidationError} for a client that is not node-redis, an unknown option, a bad
   *   queue name or stream key, two resources with the same id, or a dead-letter stream equal to
   *   its source.
   * @throws {@link RespireCrossSlotError} when a queue's key prefix splits its keys across slots.
   */
  constructor(client: unknown, options: RespireAdminOptions = {}) {
    const o = toOptions('options', options, KNOWN_OPTIONS);
    const timeout = o.commandTimeoutMs === undefined ? undefined : toDurationMs('commandTimeoutMs', o.commandTimeoutMs, true);
    const redis = new Redis(client, timeout, o.durability);
    const resources = new Resources(redis, toList('queues', o.queues), toList('streams', o.streams), o.discoverQueues);
    if (o.audit !== undefined && typeof o.audit !== 'function') throw new RespireValidationError('audit', 'must be a function');
    const auditStream = o.auditStream === undefined ? undefined : toName('auditStream', o.auditStream, 65_536);
    if (auditStream !== undefined) resources.checkAuditStream(auditStream);
    if (auditStream !== undefined && TOPIC_KEY.test(auditStream)) {
      throw new RespireValidationError('auditStream', `must not be a key of a topic, got '${auditStream}'`);
    }
    this.#history = historyModule.historySettings(o.history);
    const maxLength = toCount('auditStreamMaxLength', o.auditStreamMaxLength, DEFAULT_AUDIT_STREAM_MAX_LENGTH, 0, 1_000_000_000);
    this.#ctx = { redis, resources, auditor: new Auditor(redis, o.audit, auditStream, maxLength) };
    this.#jobs = new Jobs(this.#ctx, jobSettings(o.jobs));
    this.#topics = new Topics(this.#ctx, toList('topics', o.topics), o.discoverTopics);
    this.#grouped = new GroupedQueues(this.#ctx, toList('groupedQueues', o.groupedQueues), o.discoverGroupedQueues);
    this.#partitioned = new PartitionedQueues(this.#ctx, toList('partitionedQueues', o.partitionedQueues), o.discoverPartitionedQueues);
  }

  // ---- resources and status --------------------------------------------------------------

  /** Configured queues and streams, then queues found by the bounded SCAN (when enabled). */
  resources(): Promise<{ readonly resources: readonly Resource[]; readonly discoveryTruncated: boolean }> {
    return this.#ctx.resources.list();
  }

  /**
   * The resource with this id: a configured one, or (with discovery) a queue whose stream key it
   * is and which exists.
   * @throws {@link RespireValidationError} (`resource`) for an unknown id.
   */
  resource(id: ResourceId): Promise<Resource> {
    return this.#ctx.resources.get(id);
  }

  /**
   * Names of `kind` that exist, nearest to `name` first (at most 5), for a "not found" hint:
   * queues from the bounded discovery SCAN, stream keys from a bounded SCAN TYPE stream (without
   * queues' and history keys). Never KEYS.
   */
  async nearestNames(kind: 'queue' | 'stream', name: string): Promise<string[]> {
    const n = toName('name', name, 65_536);
    if (kind === 'stream') return nearest(n, (await this.#ctx.resources.streamKeys()).keys);
    const { resources } = await this.#ctx.resources.list();
    const queues = resources.filter((r): r is QueueResource => r.kind === 'queue' && r.discovered);
    return nearest(n, new Set(queues.map((q) => q.name)));
  }

  /**
   * Every resource with its counts, and the server time. At most 32 resources are queried at a
   * time, so a large discovery never floods the server with one burst; `include` leaves
   * resources out before their status is read.
   */
  overview(options?: OverviewOptions): Promise<Overview> {
    return status.overview(this.#ctx, options);
  }

  /**
   * A queue's counts from its own metadata (the deadlines set, not the group's PEL; see the README): ready = the private group's lag (null when
   * the server cannot tell), inFlight = members of the deadlines set, due = those whose deadline
   * passed on the server clock, deadLetters = the dead-letter stream's length.
   */
  async queueStatus(id: ResourceId): Promise<QueueStatus> {
    return status.queueStatus(this.#ctx, await this.#ctx.resources.queue(id));
  }

  /** A worker stream's length, its groups (XINFO GROUPS) and its dead-letter stream's length. */
  async streamStatus(id: ResourceId): Promise<StreamStatus> {
    return status.streamStatus(this.#ctx, await this.#ctx.resources.stream(id));
  }

  // ---- pages -----------------------------------------------------------------------------

  /**
   * The group's consumers (XINFO CONSUMERS) with pending counts and idle times, unless the group
   * has more than `limit` (default 1000) of them: XINFO CONSUMERS has no COUNT, so its cost grows
   * with the group. XINFO GROUPS tells the count first; above the limit the answer is
   * `{ items: [], total, truncated: true }` and XINFO CONSUMERS is not sent (prune idle consumers
   * with {@link removeIdleConsumers}).
   * @throws {@link RespireValidationError} for a `limit` outside 1..100000.
   * @example
   * ```ts
   * const list = await admin.consumers('{orders}:events', 'fulfillment', { limit: 200 });
   * if (list.truncated) console.log(`${list.total} consumers: too many to list`);
   * ```
   */
  consumers(id: ResourceId, group: string, options?: ConsumerOptions): Promise<ConsumerList> {
    return pages.consumers(this.#ctx, id, group, options);
  }

  /**
   * One group's status: consumers, pending count, lag (null when unknown), last-delivered ID,
   * entries read.
   * @throws {@link RespireNotFoundError} (`group`) when the stream has no such group or does not exist.
   */
  async group(id: ResourceId, group: string): Promise<GroupStatus> {
    const g = toName('group', group);
    return groupOf(this.#ctx, await this.#ctx.resources.stream(id), g, 'RespireAdmin group');
  }

  /**
   * One page of the group's PEL (XPENDING extended form, COUNT-bounded), oldest entry first,
   * optionally one consumer's entries (`consumer`) and those idle at least `minIdleMs` (XPENDING
   * IDLE). First / next (`cursor`) pages read forward; the page `before` a cursor and the `last`
   * page are found by a bounded search, since XPENDING reads only forward. A released entry
   * (`released`) waits for any worker's next recovery.
   * @throws {@link RespireNotFoundError} (`group`) when the stream has no such group or does not exist.
   * @throws {@link RespireValidationError} for a bad count, cursor, consumer or `minIdleMs` (1..2^31-1).
   */
  pending(id: ResourceId, group: string, options?: PendingOptions): Promise<Page<PendingEntry>> {
    return pages.pending(this.#ctx, id, group, options);
  }

  /** One entry body of the resource's main stream (XRANGE id id); null when deleted or trimmed. */
  entry(id: ResourceId, entryId: string): Promise<EntryBody | null> {
    return pages.entry(this.#ctx, id, entryId);
  }

  /**
   * One page of dead-letter records (XRANGE / XREVRANGE with COUNT), newest first by default:
   * the first, the one after `cursor`, the one before `before`, or the `last`. Worker records are
   * read positionally (the worker README's "Delivery limits and dead letters"), queue records by
   * their three fields (the queue README); anything else comes back as a `foreign` record.
   *
   * With a `filter` (reason, group, exception type, source ID, time range) the page is a search:
   * the time range bounds the XRANGE itself; the other conditions are checked on each record, and
   * at most `scanLimit` records (default 10,000) are read per call, in chunks of 1,000. A page that
   * stopped at that limit says `complete: false`, and its `next` (or `previous`) cursor continues
   * the search from the last record read.
   * @throws {@link RespireValidationError} for a bad count, cursor, order or filter.
   */
  deadLetters(id: ResourceId, options?: DeadLetterOptions): Promise<DeadLetterPage> {
    return deadLetterPages.deadLetters(this.#ctx, id, options);
  }

  /** One dead-letter record; null when it is gone. */
  deadLetter(id: ResourceId, recordId: string): Promise<DeadLetterRecord | null> {
    return pages.deadLetter(this.#ctx, id, recordId);
  }

  /**
   * One page of a queue's delivered, uncompleted messages, by rank in its deadlines set (ZRANGE
   * with scores, bounded), soonest deadline first; the receipt is never exposed. The cursor is a
   * rank: pages of a set that changes between calls may overlap or skip.
   */
  queueDeliveries(id: ResourceId, options?: PageOptions): Promise<Page<QueueDelivery> & { readonly serverTimeMs: number; readonly total: number }> {
    return pages.queueDeliveries(this.#ctx, id, options);
  }

  /**
   * One page of a queue's ready messages: entries after its private group's last-delivered ID
   * (every entry before the group exists), oldest first by default; first / next / previous / last
   * like the other pages. `total` is the group's lag (null when the server cannot tell).
   * @throws {@link RespireValidationError} for a bad count, cursor or order, or a worker stream's id.
   */
  queueMessages(
    id: ResourceId,
    options?: PageOptions & { readonly order?: 'oldest' | 'newest' },
  ): Promise<Page<QueueMessage> & { readonly total: number | null; readonly serverTimeMs: number }> {
    return queueMessages.queueMessages(this.#ctx, id, options);
  }

  /**
   * One message of a queue and where it stands: ready, leased (until its deadline), delayed (due
   * at its time) or delivered (its deadlines member not found in a bounded ZSCAN of
   * at most 10,000 members); null when the queue's stream does not hold it. Never the receipt.
   */
  queueMessage(id: ResourceId, entryId: string): Promise<(QueueMessage & { readonly serverTimeMs: number }) | null> {
    return queueMessages.queueMessage(this.#ctx, id, entryId);
  }

  /**
   * A resource's history: per series (a queue; a worker stream and each of its consumer groups)
   * the rates of sends, deliveries, acknowledgements and dead letters per second and the
   * backlogs (lag, pending, oldest unacknowledged age, dead letters) over time, from the samples
   * kept in Redis (see {@link recordHistory}). One bounded XREVRANGE (at most 10,000 samples).
   * @throws {@link RespireValidationError} for a bad time range or `maxPoints` (2..10000).
   */
  history(id: ResourceId, options?: HistoryOptions): Promise<History> {
    return historyModule.history(this.#ctx, id, options);
  }

  /**
   * Records one history sample of every resource, unless one younger than `minIntervalMs`
   * exists (several samplers then share the work): one read-then-append script per resource
   * (`admin-history-queue` / `admin-history-stream`), at most 8 at a time, into a history stream
   * in the resource's slot, trimmed by age (`history.retentionMs`). Its cost does not grow with
   * the message rate: see the README's figures.
   */
  recordHistory(options?: { readonly minIntervalMs?: number }): Promise<HistoryRecordResult> {
    return historyModule.recordHistory(this.#ctx, this.#history, options);
  }

  /**
   * Starts a sampler that records history every `intervalMs` (default 60,000, at least 1,000) in
   * this process, the first time at once; it never overlaps itself and never keeps the process
   * alive. Failures go to `onError` (default: ignored). Stop it with `stop()`.
   */
  startHistory(options?: HistorySamplerOptions): HistorySampler {
    return new HistorySampler(this, options);
  }

  /**
   * Finds what an incident is about in one resource: `query` as an entry ID (the main stream's
   * entry and its state — a queue message's, or a worker entry's in each group —, the dead-letter
   * record with that ID, and the dead letters whose source ID it is: a search from that ID's time,
   * at most `scanLimit` records, default 10,000) and, for a queue, as a deduplication ID (the
   * entry it names while its window lasts).
   */
  find(id: ResourceId, query: string, options?: { readonly scanLimit?: number }): Promise<FindResult> {
    return find(this.#ctx, id, query, options);
  }

  // ---- dead-letter actions ---------------------------------------------------------------

  /**
   * Puts a dead letter back where it came from and removes it. A queue record's payload is sent
   * to the queue again as a fresh message (no deduplication ID; its delivery count starts again);
   * a worker record's original fields (without the `_respire.*` pairs) are appended to the
   * configured source stream. Same slot: one atomic script. A dead-letter stream in another slot
   * (see {@link StreamResource.retryAtomic}): append first, then delete.
   * @throws {@link RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal (nothing changed).
   */
  retryDeadLetter(actor: Actor, id: ResourceId, recordId: string): Promise<RetryResult> {
    return deadLetterActions.retryDeadLetter(this.#ctx, actor, id, recordId);
  }

  /** Deletes one dead-letter record (XDEL). */
  deleteDeadLetter(actor: Actor, id: ResourceId, recordId: string): Promise<DeleteResult> {
    return deadLetterActions.deleteDeadLetter(this.#ctx, actor, id, recordId);
  }

  /** Retries every dead letter present when it starts, oldest first, one script call per page. */
  retryAllDeadLetters(actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult> {
    return deadLetterActions.retryAllDeadLetters(this.#ctx, actor, id, options);
  }

  /** Deletes every dead letter present when it starts, oldest first, one XDEL per page. */
  deleteAllDeadLetters(actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult> {
    return deadLetterActions.deleteAllDeadLetters(this.#ctx, actor, id, options);
  }

  // ---- pending actions -------------------------------------------------------------------

  /** Releases a pending entry for redelivery, fenced by the delivery count and owner shown on the page. */
  releasePending(actor: Actor, id: ResourceId, group: string, entryId: string, expected: PendingExpectation): Promise<PendingActionResult> {
    return pendingActions.pendingAction(this.#ctx, actor, 'release', id, group, entryId, expected, false);
  }

  /**
   * Acknowledges a pending entry, fenced like {@link releasePending}. With `deleteEntry` its body is
   * deleted too, unless another group of the stream still needs it (pending there, or not yet
   * delivered to it): then it is kept and those groups are named in `entryKeptFor`.
   */
  async ackPending(
    actor: Actor,
    id: ResourceId,
    group: string,
    entryId: string,
    expected: PendingExpectation,
    options?: { readonly deleteEntry?: boolean },
  ): Promise<PendingActionResult> {
    const o = toOptions('options', options, ['deleteEntry']);
    if (o.deleteEntry !== undefined && typeof o.deleteEntry !== 'boolean') throw new RespireValidationError('deleteEntry', 'must be a boolean');
    return pendingActions.pendingAction(this.#ctx, actor, 'ack', id, group, entryId, expected, o.deleteEntry === true);
  }

  /**
   * Deletes the group's consumers that hold no pending entries and have been idle at least
   * `minIdleMs`, checked and deleted in one script; consumers with pending entries are never
   * deleted (XGROUP DELCONSUMER would drop their entries) and are reported as kept.
   */
  removeIdleConsumers(actor: Actor, id: ResourceId, group: string, minIdleMs: number): Promise<IdleConsumerResult> {
    return pendingActions.removeIdleConsumers(this.#ctx, actor, id, group, minIdleMs);
  }

  trimAcknowledged(actor: Actor, id: ResourceId, options?: { readonly max?: number }): Promise<{ readonly trimmed: number }> {
    return pendingActions.trimAcknowledged(this.#ctx, actor, id, options);
  }
  // ---- bulk jobs -----------------------------------------------------------------------

  /**
   * Starts a bulk job in the background: retry or delete the given records (`recordIds`, 1..1000)
   * or every record matching `filter` (every record without one) among those present now, oldest
   * first, in pages of `jobs.pageSize`, at most `jobs.ratePerSecond`. The job is kept in Redis
   * (`jobs.keyPrefix`): every admin on the server sees its progress and can cancel it; it runs in
   * this process, and if this process stops it reads `interrupted` (after `jobs.leaseMs`) and can
   * be resumed from where it stopped. Audited when it starts and when it ends (`job-start`,
   * `job-finish` with the counts); `finished` resolves with the final record and never rejects.
   * @throws {@link RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal of the job keys.
   * @throws {@link RespireValidationError} for a bad spec, a stream without a dead-letter stream, or
   *   when this process runs `jobs.maxRunning` jobs already.
   */
  startJob(actor: Actor, id: ResourceId, spec: JobSpec, options?: { readonly onProgress?: (job: Job) => void }): Promise<RunningJob> {
    return this.#jobs.start(actor, id, spec, toOptions('options', options, ['onProgress']).onProgress);
  }

  /**
   * Resumes an interrupted job in this process, from the last page it reported (a page done but
   * not reported is done again: its records are then missing, never retried twice on one slot).
   * @throws {@link RespireValidationError} for an unknown job or one that is not interrupted.
   */
  resumeJob(actor: Actor, jobId: string, options?: { readonly onProgress?: (job: Job) => void }): Promise<RunningJob> {
    return this.#jobs.resume(actor, jobId, toOptions('options', options, ['onProgress']).onProgress);
  }

  /**
   * Asks a running job to stop after its current page (`asked`); an interrupted one is cancelled
   * at once (`cancelled`); a finished one is left alone (`not-running`). Audited (`job-cancel`).
   */
  cancelJob(actor: Actor, jobId: string): Promise<{ readonly status: 'asked' | 'cancelled' | 'not-running'; readonly job: Job | null }> {
    return this.#jobs.cancel(actor, jobId);
  }

  /** One job (its progress, state and final report); null when unknown or expired. */
  job(jobId: string): Promise<Job | null> {
    return this.#jobs.get(jobId);
  }

  /** Recent jobs, newest first (at most `count`, default 50), optionally of one resource. */
  jobs(options?: { readonly resource?: ResourceId; readonly count?: number }): Promise<readonly Job[]> {
    return this.#jobs.list(options);
  }

  /** Stops the jobs this process runs after their current page: they read `interrupted` and can be resumed. */
  stopJobs(): Promise<void> {
    return this.#jobs.stopAll();
  }

  // ---- queue message actions ------------------------------------------------------------

  /**
   * Makes a leased or delayed queue message due now, as a NACK without delay does: its receipt is
   * revoked (the holder's ACK then returns false), its delivery count kept, and the next receive
   * redelivers it or moves it to the dead letters at the delivery limit. Done only while its
   * deadlines member still records the delivery count and deadline the operator saw
   * (`changed` otherwise); audited.
   * @throws {@link RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal (nothing changed).
   */
  releaseQueueMessage(actor: Actor, id: ResourceId, entryId: string, expected: QueueMessageExpectation): Promise<QueueMessageActionResult> {
    return queueMessages.queueMessageAction(this.#ctx, actor, 'release-message', id, entryId, expected);
  }

  /**
   * Acknowledges a leased or delayed queue message for good, as an ACK does: the entry and its
   * delivery metadata are removed (XACKDEL on Redis 8.2+, else XACK and XDEL) and it is never
   * delivered again; fenced and audited like {@link releaseQueueMessage}.
   * @throws {@link RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal (nothing changed).
   */
  deleteQueueMessage(actor: Actor, id: ResourceId, entryId: string, expected: QueueMessageExpectation): Promise<QueueMessageActionResult> {
    return queueMessages.queueMessageAction(this.#ctx, actor, 'delete-message', id, entryId, expected);
  }

  // ---- reliable topics ----------------------------------------------------------------------

  /**
   * Configured topics, then those the bounded discovery SCAN finds (`discoverTopics`), each with
   * its retained publications (XLEN) and number of subscriptions; at most 32 topics read at a time.
   */
  topics(): Promise<{ readonly topics: readonly TopicSummary[]; readonly discoveryTruncated: boolean }> {
    return this.#topics.list();
  }

  /**
   * A topic (id: its stream key) and each subscription's position, lag (publications not yet
   * delivered), pending deliveries, retried dead letters not yet completed (not in its pending
   * entries list), oldest unacknowledged age (server clock), dead letters and publications a
   * retention bound trimmed before it completed them. A few reads, not one snapshot.
   * @throws {@link RespireNotFoundError} (`resource`) for a topic neither configured nor discoverable.
   */
  topic(id: ResourceId): Promise<TopicStatus> {
    return this.#topics.status(id);
  }

  /**
   * One page of a subscription's dead letters: the queue's record format, paged and filtered as
   * {@link deadLetters}.
   * @throws {@link RespireValidationError} for a bad subscription name (blank, braces) or option.
   */
  subscriptionDeadLetters(id: ResourceId, subscription: string, options?: DeadLetterOptions): Promise<DeadLetterPage> {
    return this.#topics.deadLetters(id, subscription, options);
  }

  /**
   * Deletes one record of a subscription's dead letters (XDEL), audited as `delete` with the
   * subscription in its target.
   * @throws {@link RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal.
   */
  deleteSubscriptionDeadLetter(actor: Actor, id: ResourceId, subscription: string, recordId: string): Promise<DeleteResult> {
    return this.#topics.deleteDeadLetter(actor, id, subscription, recordId);
  }

  /**
   * Retries one record of a subscription's dead letters for that subscription only (queue README
   * "Reliable topic", "Dead letters of a subscription"): one atomic script reads the record, makes
   * its publication due again for this subscription (delivery count from 1; no other subscription
   * sees it again), keeps its body until the subscription completes it (retention never drops it)
   * and deletes the record. A repeat finds the record gone: `missing`, nothing changed. Audited as
   * `retry` with the subscription in its target; waits for `durability` like the other repairs.
   * @returns `retried` with the publication's entry ID; `missing`; `refused` for a record not in
   *   the queue's format or a subscription that does not exist (nothing changed).
   * @throws {@link RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal (nothing changed).
   * @throws {@link RespireValidationError} for a bad subscription name or record ID, before any I/O.
   */
  retrySubscriptionDeadLetter(actor: Actor, id: ResourceId, subscription: string, recordId: string): Promise<SubscriptionRetryResult> {
    return this.#topics.retryDeadLetter(actor, id, subscription, recordId);
  }

  /**
   * Retries every record of a subscription's dead letters present when it starts, oldest first, as
   * {@link retrySubscriptionDeadLetter}: one atomic script call per page of `pageSize`, at most
   * `limit` records, stopped between pages by `signal` (the options of {@link retryAllDeadLetters}).
   * Foreign records are left in place and counted `failed`. Audited as `retry-all` with the subscription.
   * @throws {@link RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal.
   * @throws {@link RespireValidationError} for a bad subscription name or option, before any I/O.
   * @throws {@link RespireStateError} when the subscription does not exist; nothing changed.
   */
  retryAllSubscriptionDeadLetters(actor: Actor, id: ResourceId, subscription: string, options?: BulkOptions): Promise<BulkResult> {
    return this.#topics.retryAllDeadLetters(actor, id, subscription, options);
  }

  /**
   * Deletes every record of a subscription's dead letters present when it starts, oldest first, one
   * XDEL per page, with the options of {@link deleteAllDeadLetters}. Audited as `delete-all` with the subscription.
   * @throws {@link RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal.
   * @throws {@link RespireValidationError} for a bad subscription name or option, before any I/O.
   */
  deleteAllSubscriptionDeadLetters(actor: Actor, id: ResourceId, subscription: string, options?: BulkOptions): Promise<BulkResult> {
    return this.#topics.deleteAllDeadLetters(actor, id, subscription, options);
  }

  /**
   * Moves a subscription to `to` (`'earliest'`, `'latest'`, an entry ID or `{ timeMs }`), within
   * what is retained, as `TopicSubscription.seek` does (queue README "Reliable topic"): its leases
   * are discarded and every receipt it issued is stale, its pending entries list emptied, and the
   * retained publications after the new position delivered again with counts from 1; its dead
   * letters and trimmed count stay. Audited as `seek`; waits for `durability` like the repairs.
   * @returns `moved` with the new position and the leases discarded, or `missing` when no such subscription exists.
   * @throws {@link RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal (nothing changed).
   * @throws {@link RespireValidationError} for a bad subscription name or `to`, before any I/O.
   */
  seekSubscription(actor: Actor, id: ResourceId, subscription: string, to: SeekTarget): Promise<SeekResult> {
    return this.#topics.seek(actor, id, subscription, to);
  }

  // ---- grouped queues (read-only) ------------------------------------------------------------

  /**
   * Configured grouped queues, then those the bounded discovery SCAN finds
   * (`discoverGroupedQueues`), each with its counts: messages, ready groups, messages in flight,
   * groups with messages and dead letters. Five O(1) reads per queue, whatever its number of groups.
   */
  groupedQueues(): Promise<{ readonly groupedQueues: readonly GroupedQueueSummary[]; readonly discoveryTruncated: boolean }> {
    return this.#grouped.list();
  }

  /**
   * A grouped queue (id: its grouped stream key, `<keyPrefix>{respire-queue:<name>}:groups:stream`),
   * its counts and its `top` (1..100, default 10) largest backlogs. The largest backlogs are a walk
   * over every group with messages (script `admin-group-backlogs`, 2,000 groups a call: O(groups)),
   * reused for `maxAgeMs` (default 5000; 0 walks now) and shared by concurrent callers.
   * @throws {@link RespireValidationError} for a bad option, before any I/O.
   * @throws {@link RespireNotFoundError} (`resource`) for a grouped queue neither configured nor discoverable.
   */
  groupedQueue(id: ResourceId, options?: GroupedStatusOptions): Promise<GroupedQueueStatus> {
    return this.#grouped.status(id, options);
  }

  /**
   * One page of the ready ring (groups whose head a receive may take), in the order receives take
   * them, each with its backlog: O(log groups + count). `count` 1..1000 (default 50); `cursor` a page's `next`.
   */
  readyGroups(id: ResourceId, options?: { readonly count?: number; readonly cursor?: string }): Promise<Page<ReadyGroup>> {
    return this.#grouped.readyGroups(id, options);
  }

  /**
   * One page of the messages in flight, soonest deadline first: for ordered groups each blocked
   * group's head, with its group ID, entry ID, delivery count and lease deadline (or, once NACKed,
   * due time; ms, server clock). O(log n + count) from the deadlines index.
   */
  groupsInFlight(
    id: ResourceId,
    options?: { readonly count?: number; readonly cursor?: string },
  ): Promise<Page<InFlightHead> & { readonly serverTimeMs: number }> {
    return this.#grouped.inFlight(id, options);
  }

  /**
   * One group of a grouped queue: its backlog, head entry ID, state (`ready`, `blocked`, `empty`)
   * and messages in flight.
   * @throws {@link RespireValidationError} (`groupId`) for an ID the queue would refuse (empty, ill-formed, above 1,024 UTF-8 bytes).
   */
  messageGroup(id: ResourceId, groupId: string): Promise<GroupDetail> {
    return this.#grouped.group(id, groupId);
  }

  // ---- dead letters of grouped queues ---------------------------------------------------

  /**
   * One page of a grouped queue's dead letters, with the options and paging of {@link deadLetters}
   * (`filter.group` matches the message's group). Each record is a queue record with its `group`;
   * a record without one (written before records named their group) is foreign: it can be
   * deleted, not retried.
   * @throws {@link RespireValidationError} for a bad option, before any I/O.
   * @throws {@link RespireNotFoundError} (`resource`) for a grouped queue neither configured nor discoverable.
   */
  groupedDeadLetters(id: ResourceId, options?: DeadLetterOptions): Promise<DeadLetterPage> {
    return groupedDeadLetters.groupedDeadLetters(this.#ctx, this.#grouped, id, options);
  }

  /**
   * Puts a grouped dead letter back at the end of its group and removes the record, in one script
   * (`admin-retry-grouped-dead-letters`): a fresh message with the same payload, group and headers
   * (its delivery count starts again), behind everything its group already has; an idle group
   * joins the back of the ready ring when none of its messages is in flight (queue README
   * "Dead letters of a grouped queue"). A record without a group is refused. Audited as `retry`.
   * @throws {@link RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal (nothing changed).
   * @throws {@link RespireValidationError} for a bad record ID, before any I/O.
   */
  retryGroupedDeadLetter(actor: Actor, id: ResourceId, recordId: string): Promise<RetryResult> {
    return groupedDeadLetters.retryGroupedDeadLetter(this.#ctx, this.#grouped, actor, id, recordId);
  }

  /** Deletes one grouped dead-letter record (XDEL); audited as `delete`, refused as {@link retryGroupedDeadLetter}. */
  deleteGroupedDeadLetter(actor: Actor, id: ResourceId, recordId: string): Promise<DeleteResult> {
    return groupedDeadLetters.deleteGroupedDeadLetter(this.#ctx, this.#grouped, actor, id, recordId);
  }

  /**
   * Retries every grouped dead letter present when it starts, oldest first, one script call per
   * page, with the options of {@link retryAllDeadLetters}; records without a group count as failed.
   * Audited as `retry-all`.
   */
  retryAllGroupedDeadLetters(actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult> {
    return groupedDeadLetters.retryAllGroupedDeadLetters(this.#ctx, this.#grouped, actor, id, options);
  }

  /** Deletes every grouped dead letter present when it starts, oldest first, one XDEL per page; audited as `delete-all`. */
  deleteAllGroupedDeadLetters(actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult> {
    return groupedDeadLetters.deleteAllGroupedDeadLetters(this.#ctx, this.#grouped, actor, id, options);
  }

  // ---- partitioned queues ----------------------------------------------------------------

  /**
   * Configured partitioned queues, then those the bounded discovery SCAN finds
   * (`discoverPartitionedQueues`), each with the partition count its metadata key records (null
   * when none is) and the counts of all its partitions added (`queueStatus` of each: five reads a
   * partition; 4 queues and 32 partitions of each at a time). A queue whose keys the server
   * refuses to read (a key of another type, an ACL) is listed in `unavailable`, never hiding the
   * others; a transport failure fails the whole list.
   */
  partitionedQueues(): Promise<{
    readonly partitionedQueues: readonly PartitionedQueueSummary[];
    readonly discoveryTruncated: boolean;
    readonly unavailable: readonly UnavailablePartitionedQueue[];
  }> {
    return this.#partitioned.list();
  }

  /**
   * A partitioned queue (id: its metadata key, `<keyPrefix>{respire-partitioned:<name>}:partitions`)
   * as one queue: per partition its queue name, slot, master and {@link queueStatus} counts; the
   * totals; and, on a Cluster client, the totals per master (from the client's slot map, as of its
   * last refresh). Partitions are read 32 at a time; not one snapshot.
   * @throws {@link RespireNotFoundError} (`resource`) for a partitioned queue neither configured nor discoverable.
   */
  partitionedQueue(id: ResourceId): Promise<PartitionedQueueStatus> {
    return this.#partitioned.status(id);
  }

  /**
   * One page of the dead letters of all partitions as one list, newest first by record ID (ties:
   * lower partition first), each row naming its partition; follow `next`. Reads at most `count`
   * (1..1000, default 50) records of each partition per page.
   * @throws {@link RespireValidationError} for a bad count or cursor, before any I/O.
   */
  partitionedDeadLetters(id: ResourceId, options?: PartitionedDeadLetterOptions): Promise<Page<PartitionedDeadLetter>> {
    return this.#partitioned.deadLetters(id, options);
  }

  /**
   * Retries one dead letter of partition `partition` onto that partition, as {@link retryDeadLetter}
   * on a queue; audited as `retry` on the partitioned queue with the partition in its target.
   * @throws {@link RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal.
   * @throws {@link RespireValidationError} for a partition outside 0..255 or a bad record ID (before any
   *   I/O), or a partition the recorded count does not have.
   */
  retryPartitionedDeadLetter(actor: Actor, id: ResourceId, partition: number, recordId: string): Promise<RetryResult> {
    return this.#partitioned.retryDeadLetter(actor, id, partition, recordId);
  }

  /** Deletes one dead letter of partition `partition` (XDEL); audited and refused as {@link retryPartitionedDeadLetter}. */
  deletePartitionedDeadLetter(actor: Actor, id: ResourceId, partition: number, recordId: string): Promise<DeleteResult> {
    return this.#partitioned.deleteDeadLetter(actor, id, partition, recordId);
  }
}
