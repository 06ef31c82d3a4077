import type {
  Actor,
  AdminApi,
  AuditRecord,
  BulkOptions,
  BulkResult,
  ConsumerList,
  ConsumerOptions,
  DeadLetterRecord,
  DeleteResult,
  EntryBody,
  IdleConsumerResult,
  Overview,
  Page,
  PageOptions,
  PendingActionResult,
  PendingEntry,
  PendingExpectation,
  QueueDelivery,
  QueueStatus,
  Resource,
  ResourceId,
  RetryResult,
  StreamStatus,
} from './api.js';
import { Auditor } from './audit.js';
import type { AdminContext } from './context.js';
import * as deadLetterActions from './dead-letter-actions.js';
import * as pages from './pages.js';
import * as pendingActions from './pending-actions.js';
import { Redis, RespireValidationError, toDurationMs } from './redis.js';
import { Resources, type DiscoveryOptions, type QueueConfig, type StreamConfig } from './resources.js';
import * as status from './status.js';
import { toList, toName, toOptions } from './validate.js';

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
  /**
   * Called with one {@link AuditRecord} per action (also for a viewer refused before any I/O,
   * then with the host clock). A logger that throws is ignored: it never breaks the action.
   */
  readonly audit?: (record: AuditRecord) => void;
  /**
   * Key of a stream to which every audit record is also appended (XADD, fields `at`, `actor`,
   * `role`, `action`, `resource`, `target` (JSON), `result`, `detail`). A failed append does not undo the
   * action; the logger then gets the record with `auditStreamError`. @defaultValue none
   */
  readonly auditStream?: string;
  /**
   * Deadline of each of the admin's commands, in ms; 0 disables it. Unwritten when it expires, a
   * command is not sent; written and unanswered, it rejects a few ms later with an unknown outcome
   * (`RespireTransportError.outcomeUnknown`). @defaultValue the client's own setting (node-redis
   * never times out a command once it is written)
   */
  readonly commandTimeoutMs?: number;
}

const KNOWN_OPTIONS = ['queues', 'streams', 'discoverQueues', 'audit', 'auditStream', 'commandTimeoutMs'];

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

  /**
   * @throws {@link RespireValidationError} for a client that is not node-redis, an unknown option, a bad
   *   queue name or stream key, two resources with the same id, or a dead-letter stream equal to
   *   its source.
   * @throws {@link RespireCrossSlotError} when a queue's key prefix splits its keys across slots.
   */
  constructor(client: unknown, options: RespireAdminOptions = {}) {
    const o = toOptions('options', options, KNOWN_OPTIONS);
    const timeout = o.commandTimeoutMs === undefined ? undefined : toDurationMs('commandTimeoutMs', o.commandTimeoutMs, true);
    const redis = new Redis(client, timeout);
    const resources = new Resources(redis, toList('queues', o.queues), toList('streams', o.streams), o.discoverQueues);
    if (o.audit !== undefined && typeof o.audit !== 'function') throw new RespireValidationError('audit', 'must be a function');
    const auditStream = o.auditStream === undefined ? undefined : toName('auditStream', o.auditStream, 65_536);
    if (auditStream !== undefined) resources.checkAuditStream(auditStream);
    this.#ctx = { redis, resources, auditor: new Auditor(redis, o.audit, auditStream) };
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
   * Every resource with its counts, and the server time. At most 16 resources are queried at a
   * time, so a large discovery never floods the server with one burst.
   */
  overview(): Promise<Overview> {
    return status.overview(this.#ctx);
  }

  /**
   * A queue's counts from its own metadata (DESIGN.md): ready = the private group's lag (null when
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

  /** One page of the group's PEL (XPENDING extended form, COUNT-bounded), oldest entry first. */
  pending(id: ResourceId, group: string, options?: PageOptions & { readonly consumer?: string }): Promise<Page<PendingEntry>> {
    return pages.pending(this.#ctx, id, group, options);
  }

  /** One entry body of the resource's main stream (XRANGE id id); null when deleted or trimmed. */
  entry(id: ResourceId, entryId: string): Promise<EntryBody | null> {
    return pages.entry(this.#ctx, id, entryId);
  }

  /**
   * One page of dead-letter records (XRANGE / XREVRANGE with COUNT), newest first by default.
   * Worker records are read positionally (seed 002), queue records by their three fields (seed
   * 000); anything else comes back as a `foreign` record.
   */
  deadLetters(id: ResourceId, options?: PageOptions & { readonly order?: 'newest' | 'oldest' }): Promise<Page<DeadLetterRecord>> {
    return pages.deadLetters(this.#ctx, id, options);
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
  queueDeliveries(id: ResourceId, options?: PageOptions): Promise<Page<QueueDelivery> & { readonly serverTimeMs: number }> {
    return pages.queueDeliveries(this.#ctx, id, options);
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
}
