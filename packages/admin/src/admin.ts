import type {
  Actor,
  AdminApi,
  AuditRecord,
  BulkOptions,
  BulkProgress,
  BulkResult,
  ConsumerInfo,
  DeadLetterRecord,
  DeleteResult,
  EntryBody,
  GroupStatus,
  IdleConsumerResult,
  Overview,
  Page,
  PageOptions,
  PendingActionResult,
  PendingEntry,
  QueueDelivery,
  QueueResource,
  QueueStatus,
  Resource,
  ResourceId,
  RetryResult,
  StreamResource,
  StreamStatus,
} from './api.js';
import { queueDelivery, queueRecord, workerRecord } from './records.js';
import {
  BINARY,
  Redis,
  RespireValidationError,
  bytes,
  adminScripts,
  hasInfoField,
  infoField,
  isRespireError,
  keySlot,
  numberOrNull,
  parseEntries,
  parseWithScores,
  queueKeys,
  text,
  toKeyPrefix,
  toRespireError,
  type RedisArg,
} from './redis.js';
import { requireOperator, toCount, toEntryId, toName, toOptions } from './validate.js';

/** A reliable queue to show: its name as given to `new ReliableQueue(client, name)` and its key prefix. */
export interface QueueConfig {
  readonly name: string;
  /** The queue's `keyPrefix` option. @defaultValue `''` */
  readonly keyPrefix?: string;
}

/**
 * A worker stream to show. A worker dead-letter record does not name its source stream (seed 002
 * fixes its first five fields), so the source of a retry is this configuration: records of
 * `deadLetterStream` are retried onto `stream`.
 */
export interface StreamConfig {
  /** The logical stream key, as given to `new StreamWorker({ stream })`. */
  readonly stream: string;
  /** Prepended to `stream` and `deadLetterStream` (the worker's client key prefix). @defaultValue `''` */
  readonly keyPrefix?: string;
  /** The workers' `deadLetterStream` (logical key). Without it the stream has no dead-letter views or retries. */
  readonly deadLetterStream?: string;
  /** Display name. @defaultValue the resolved stream key */
  readonly label?: string;
}

/** Bounds of the queue discovery SCAN. */
export interface DiscoveryOptions {
  /** SCAN COUNT hint per call, 1..10000. @defaultValue 1000 */
  readonly scanCount?: number;
  /** SCAN calls per master before giving up (then `discoveryTruncated`), 1..10000. @defaultValue 100 */
  readonly maxPages?: number;
}

/** Options of {@link RespireAdmin}. */
export interface RespireAdminOptions {
  /** Reliable queues to show. @defaultValue `[]` */
  readonly queues?: readonly QueueConfig[];
  /** Worker streams to show (the only way the admin learns of them). @defaultValue `[]` */
  readonly streams?: readonly StreamConfig[];
  /**
   * Also find reliable queues with a bounded SCAN (MATCH `*{respire-queue:*}:stream`, TYPE
   * stream, COUNT, a page limit; every master of a Cluster; never KEYS). `true` uses the default
   * bounds. @defaultValue false
   */
  readonly discoverQueues?: boolean | DiscoveryOptions;
  /**
   * Called with one {@link AuditRecord} per action (also for a viewer refused before any I/O,
   * then with the host clock). A logger that throws is ignored: it never breaks the action.
   */
  readonly audit?: (record: AuditRecord) => void;
  /**
   * Key of a stream to which every audit record is also appended (XADD, fields `at`, `actor`,
   * `action`, `resource`, `target` (JSON), `result`, `detail`). A failed append does not undo the
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
const QUEUE_GROUP = 'respire';
const DISCOVERY_MATCH = '*{respire-queue:*}:stream';
const QUEUE_STREAM_KEY = /^(.*)\{respire-queue:([^{}]+)\}:stream$/s;
/** The idle time a released pending entry gets: past every minimum idle time a worker accepts (2^31-1 ms). */
const RELEASE_IDLE_MS = 2_147_483_647;

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
  readonly #redis: Redis;
  readonly #configured = new Map<ResourceId, Resource>();
  readonly #discovery: Required<DiscoveryOptions> | undefined;
  readonly #audit: ((record: AuditRecord) => void) | undefined;
  readonly #auditStream: string | undefined;

  /**
   * @throws {RespireValidationError} for a client that is not node-redis, an unknown option, a bad
   *   queue name or stream key, two resources with the same id, or a dead-letter stream equal to
   *   its source.
   * @throws {RespireCrossSlotError} when a queue's key prefix splits its keys across slots.
   */
  constructor(client: unknown, options: RespireAdminOptions = {}) {
    const o = toOptions('options', options, KNOWN_OPTIONS);
    const timeout = o.commandTimeoutMs === undefined ? undefined : toCount('commandTimeoutMs', o.commandTimeoutMs, 0, 0, 2_147_483_647);
    this.#redis = new Redis(client, timeout);
    for (const [i, q] of (o.queues ?? []).entries()) this.#add(queueResource(q, `queues[${i}]`, false));
    for (const [i, s] of (o.streams ?? []).entries()) this.#add(streamResource(s, `streams[${i}]`));
    if (o.discoverQueues === true) this.#discovery = { scanCount: 1000, maxPages: 100 };
    else if (o.discoverQueues && typeof o.discoverQueues === 'object') {
      const d = toOptions('discoverQueues', o.discoverQueues, ['scanCount', 'maxPages']);
      this.#discovery = { scanCount: toCount('discoverQueues.scanCount', d.scanCount, 1000, 1, 10_000), maxPages: toCount('discoverQueues.maxPages', d.maxPages, 100, 1, 10_000) };
    } else if (o.discoverQueues !== undefined && o.discoverQueues !== false) {
      throw new RespireValidationError('discoverQueues', 'must be a boolean or { scanCount, maxPages }');
    }
    if (o.audit !== undefined && typeof o.audit !== 'function') throw new RespireValidationError('audit', 'must be a function');
    this.#audit = o.audit;
    this.#auditStream = o.auditStream === undefined ? undefined : toName('auditStream', o.auditStream);
  }

  #add(resource: Resource): void {
    if (this.#configured.has(resource.id)) throw new RespireValidationError('resource', `'${resource.id}' is configured twice`);
    this.#configured.set(resource.id, resource);
  }

  // ---- resources -------------------------------------------------------------------------

  /** Configured queues and streams, then queues found by the bounded SCAN (when enabled). */
  async resources(): Promise<{ readonly resources: readonly Resource[]; readonly discoveryTruncated: boolean }> {
    const resources = [...this.#configured.values()];
    if (!this.#discovery) return { resources, discoveryTruncated: false };
    const { keys, truncated } = await this.#scanQueues(this.#discovery);
    for (const key of keys.sort()) {
      if (this.#configured.has(key)) continue;
      const found = parseQueueStreamKey(key);
      if (found) resources.push(found);
    }
    return { resources, discoveryTruncated: truncated };
  }

  async #scanQueues(bounds: Required<DiscoveryOptions>): Promise<{ keys: string[]; truncated: boolean }> {
    const found = new Set<string>();
    let truncated = false;
    for (const node of await this.#redis.masters()) {
      let cursor = '0';
      let pages = 0;
      do {
        if (pages === bounds.maxPages) {
          truncated = true;
          break;
        }
        let reply: unknown[];
        try {
          reply = (await node.sendCommand(['SCAN', cursor, 'MATCH', DISCOVERY_MATCH, 'COUNT', String(bounds.scanCount), 'TYPE', 'stream'], BINARY)) as unknown[];
        } catch (error) {
          throw toRespireError(error, 'RespireAdmin queue discovery (SCAN)');
        }
        pages++;
        cursor = text(reply[0]);
        for (const key of (reply[1] as unknown[]) ?? []) {
          // A key that is not valid UTF-8 cannot be addressed by a string id: skipped.
          const name = utf8(bytes(key));
          if (name !== undefined) found.add(name);
        }
      } while (cursor !== '0');
    }
    return { keys: [...found], truncated };
  }

  /**
   * The resource with this id: a configured one, or (with discovery) a queue whose stream key it
   * is and which exists.
   * @throws {RespireValidationError} (`resource`) for an unknown id.
   */
  async resource(id: ResourceId): Promise<Resource> {
    const key = toName('resource', id, 65_536);
    const configured = this.#configured.get(key);
    if (configured) return configured;
    if (this.#discovery) {
      const found = parseQueueStreamKey(key);
      if (found && text(await this.#redis.send(key, ['TYPE', key], 'RespireAdmin resource')) === 'stream') return found;
    }
    throw new RespireValidationError('resource', `unknown resource '${key}': neither configured${this.#discovery ? ' nor a discoverable queue' : ''}`);
  }

  async #queue(id: ResourceId): Promise<QueueResource> {
    const r = await this.resource(id);
    if (r.kind !== 'queue') throw new RespireValidationError('resource', `'${id}' is a worker stream, not a queue`);
    return r;
  }

  async #stream(id: ResourceId): Promise<StreamResource> {
    const r = await this.resource(id);
    if (r.kind !== 'stream') {
      throw new RespireValidationError('resource', `'${id}' is a queue: its group's pending entries do not tell the truth after first delivery; use queueDeliveries`);
    }
    return r;
  }

  /** The dead-letter stream of a resource. */
  #deadKey(r: Resource): string {
    if (r.kind === 'queue') return r.keys.deadLetter;
    if (r.deadLetterStream === undefined) throw new RespireValidationError('resource', `'${r.id}' has no dead-letter stream configured`);
    return r.deadLetterStream;
  }

  // ---- status ----------------------------------------------------------------------------

  /**
   * Every resource with its counts, and the server time. At most 16 resources are queried at a
   * time, so a large discovery never floods the server with one burst.
   */
  async overview(): Promise<Overview> {
    const { resources, discoveryTruncated } = await this.resources();
    const serverTimeMs = await this.#redis.timeMs(resources[0]?.id ?? 'respire', 'RespireAdmin overview');
    const statuses = await mapLimited<Resource, QueueStatus | StreamStatus>(resources, 16, (r) => (r.kind === 'queue' ? this.#queueStatus(r) : this.#streamStatus(r)));
    return {
      serverTimeMs,
      queues: statuses.filter((s): s is QueueStatus => 'inFlight' in s),
      streams: statuses.filter((s): s is StreamStatus => 'groups' in s),
      discoveryTruncated,
    };
  }

  /**
   * A queue's counts from its own metadata (DESIGN.md): ready = the private group's lag (null when
   * the server cannot tell), inFlight = members of the deadlines set, due = those whose deadline
   * passed on the server clock, deadLetters = the dead-letter stream's length.
   */
  async queueStatus(id: ResourceId): Promise<QueueStatus> {
    return this.#queueStatus(await this.#queue(id));
  }

  async #queueStatus(q: QueueResource): Promise<QueueStatus> {
    const op = 'RespireAdmin queueStatus';
    const { stream, deadlines, deadLetter } = q.keys;
    const now = await this.#redis.timeMs(stream, op);
    const [length, groups, inFlight, due, dead] = await Promise.all([
      this.#redis.send(stream, ['XLEN', stream], op),
      this.#redis.trySend(stream, ['XINFO', 'GROUPS', stream], op),
      this.#redis.send(stream, ['ZCARD', deadlines], op),
      this.#redis.send(stream, ['ZCOUNT', deadlines, '-inf', String(now)], op),
      this.#redis.send(stream, ['XLEN', deadLetter], op),
    ]);
    let ready: number | null = Number(length);
    if (Array.isArray(groups)) {
      const group = groups.find((g) => text(infoField(g, 'name')) === QUEUE_GROUP);
      if (group !== undefined) ready = numberOrNull(infoField(group, 'lag'));
    } else {
      missingOrThrow(groups, null, op);
    }
    return { resource: q, length: Number(length), ready, inFlight: Number(inFlight), due: Number(due), deadLetters: Number(dead) };
  }

  /** A worker stream's length, its groups (XINFO GROUPS) and its dead-letter stream's length. */
  async streamStatus(id: ResourceId): Promise<StreamStatus> {
    return this.#streamStatus(await this.#stream(id));
  }

  async #streamStatus(s: StreamResource): Promise<StreamStatus> {
    const op = 'RespireAdmin streamStatus';
    const [length, groups, dead] = await Promise.all([
      this.#redis.send(s.stream, ['XLEN', s.stream], op),
      this.#redis.trySend(s.stream, ['XINFO', 'GROUPS', s.stream], op, true),
      s.deadLetterStream === undefined ? null : this.#redis.send(s.deadLetterStream, ['XLEN', s.deadLetterStream], op),
    ]);
    const exists = Array.isArray(groups);
    if (!exists) missingOrThrow(groups, null, op);
    const list: GroupStatus[] = exists
      ? (groups as unknown[]).map((g) => ({
          name: text(infoField(g, 'name')),
          consumers: Number(text(infoField(g, 'consumers'))),
          pending: Number(text(infoField(g, 'pending'))),
          lag: hasInfoField(g, 'lag') ? numberOrNull(infoField(g, 'lag')) : null,
          lastDeliveredId: text(infoField(g, 'last-delivered-id')),
        }))
      : [];
    return { resource: s, length: Number(length), exists, groups: list, deadLetters: dead === null ? null : Number(dead) };
  }

  // ---- consumer groups -------------------------------------------------------------------

  /**
   * The group's consumers (XINFO CONSUMERS) with pending counts and idle times. XINFO CONSUMERS has
   * no COUNT: its cost grows with the number of consumers of the group (prune idle ones with
   * {@link removeIdleConsumers}).
   */
  async consumers(id: ResourceId, group: string): Promise<readonly ConsumerInfo[]> {
    const g = toName('group', group);
    const s = await this.#stream(id);
    const reply = await this.#redis.trySend(s.stream, ['XINFO', 'CONSUMERS', s.stream, g], 'RespireAdmin consumers', true);
    if (!Array.isArray(reply)) return missingOrThrow(reply, [], 'RespireAdmin consumers');
    return reply.map((c) => {
      const inactive = hasInfoField(c, 'inactive') ? numberOrNull(infoField(c, 'inactive')) : null;
      return {
        name: text(infoField(c, 'name')),
        pending: Number(text(infoField(c, 'pending'))),
        idleMs: Number(text(infoField(c, 'idle'))),
        inactiveMs: inactive === null || inactive < 0 ? null : inactive,
      };
    });
  }

  /** One page of the group's PEL (XPENDING extended form, COUNT-bounded), oldest entry first. */
  async pending(id: ResourceId, group: string, options?: PageOptions & { readonly consumer?: string }): Promise<Page<PendingEntry>> {
    const g = toName('group', group);
    const o = toOptions('options', options, ['count', 'cursor', 'consumer']);
    const count = toCount('count', o.count, 50);
    const cursor = o.cursor === undefined ? undefined : toEntryId('cursor', o.cursor);
    const consumer = o.consumer === undefined ? undefined : toName('consumer', o.consumer);
    const s = await this.#stream(id);
    const args: RedisArg[] = ['XPENDING', s.stream, g, cursor === undefined ? '-' : `(${cursor}`, '+', String(count + 1)];
    if (consumer !== undefined) args.push(consumer);
    const reply = await this.#redis.trySend(s.stream, args, 'RespireAdmin pending', true);
    if (!Array.isArray(reply)) return missingOrThrow(reply, { items: [], next: undefined }, 'RespireAdmin pending');
    const rows = reply.map((r) => {
      const row = r as unknown[];
      return { id: text(row[0]), consumer: text(row[1]), idleMs: Number(text(row[2])), deliveryCount: Number(text(row[3])) };
    });
    return page(rows, count);
  }

  /** One entry body of the resource's main stream (XRANGE id id); null when deleted or trimmed. */
  async entry(id: ResourceId, entryId: string): Promise<EntryBody | null> {
    const e = toEntryId('entryId', entryId);
    const r = await this.resource(id);
    const stream = r.kind === 'queue' ? r.keys.stream : r.stream;
    const [found] = parseEntries(await this.#redis.send(stream, ['XRANGE', stream, e, e, 'COUNT', '1'], 'RespireAdmin entry', true));
    return found ?? null;
  }

  // ---- dead letters ----------------------------------------------------------------------

  /**
   * One page of dead-letter records (XRANGE / XREVRANGE with COUNT), newest first by default.
   * Worker records are read positionally (seed 002), queue records by their three fields (seed
   * 000); anything else comes back as a `foreign` record.
   */
  async deadLetters(id: ResourceId, options?: PageOptions & { readonly order?: 'newest' | 'oldest' }): Promise<Page<DeadLetterRecord>> {
    const o = toOptions('options', options, ['count', 'cursor', 'order']);
    const count = toCount('count', o.count, 50);
    const cursor = o.cursor === undefined ? undefined : toEntryId('cursor', o.cursor);
    if (o.order !== undefined && o.order !== 'newest' && o.order !== 'oldest') {
      throw new RespireValidationError('order', `must be 'newest' or 'oldest', got ${JSON.stringify(o.order)}`);
    }
    const newest = o.order !== 'oldest';
    const r = await this.resource(id);
    const dead = this.#deadKey(r);
    const args = newest
      ? ['XREVRANGE', dead, cursor === undefined ? '+' : `(${cursor}`, '-', 'COUNT', String(count + 1)]
      : ['XRANGE', dead, cursor === undefined ? '-' : `(${cursor}`, '+', 'COUNT', String(count + 1)];
    const entries = parseEntries(await this.#redis.send(dead, args, 'RespireAdmin deadLetters', true));
    const read = r.kind === 'queue' ? queueRecord : workerRecord;
    return page(entries.map((e) => read(e.id, e.fields)), count);
  }

  /** One dead-letter record; null when it is gone. */
  async deadLetter(id: ResourceId, recordId: string): Promise<DeadLetterRecord | null> {
    const rid = toEntryId('recordId', recordId);
    const r = await this.resource(id);
    const dead = this.#deadKey(r);
    const [found] = parseEntries(await this.#redis.send(dead, ['XRANGE', dead, rid, rid, 'COUNT', '1'], 'RespireAdmin deadLetter', true));
    if (!found) return null;
    return (r.kind === 'queue' ? queueRecord : workerRecord)(found.id, found.fields);
  }

  /**
   * One page of a queue's delivered, uncompleted messages, by rank in its deadlines set (ZRANGE
   * with scores, bounded), soonest deadline first; the receipt is never exposed. The cursor is a
   * rank: pages of a set that changes between calls may overlap or skip.
   */
  async queueDeliveries(id: ResourceId, options?: PageOptions): Promise<Page<QueueDelivery> & { readonly serverTimeMs: number }> {
    const o = toOptions('options', options, ['count', 'cursor']);
    const count = toCount('count', o.count, 50);
    if (o.cursor !== undefined && (typeof o.cursor !== 'string' || !/^\d{1,15}$/.test(o.cursor))) {
      throw new RespireValidationError('cursor', `must be a cursor from a previous page (a whole number), got ${JSON.stringify(o.cursor)}`);
    }
    const start = o.cursor === undefined ? 0 : Number(o.cursor);
    const q = await this.#queue(id);
    const op = 'RespireAdmin queueDeliveries';
    const now = await this.#redis.timeMs(q.keys.stream, op);
    const reply = await this.#redis.send(q.keys.stream, ['ZRANGE', q.keys.deadlines, String(start), String(start + count), 'WITHSCORES'], op);
    const rows = parseWithScores(reply);
    const items: QueueDelivery[] = [];
    for (const [member, score] of rows.slice(0, count)) {
      const d = queueDelivery(member, score, now);
      if (d) items.push(d);
    }
    return { items, next: rows.length > count ? String(start + count) : undefined, serverTimeMs: now };
  }

  // ---- actions ---------------------------------------------------------------------------

  /**
   * Puts a dead letter back where it came from and removes it. A queue record's payload is sent
   * to the queue again as a fresh message (no deduplication ID; its delivery count starts again);
   * a worker record's original fields (without the `_respire.*` pairs) are appended to the
   * configured source stream. Same slot: one atomic script. A dead-letter stream in another slot
   * (see {@link StreamResource.retryAtomic}): append first, then delete.
   * @throws {RespirePermissionError} for a viewer (before any I/O) or a server ACL refusal (nothing changed).
   */
  async retryDeadLetter(actor: Actor, id: ResourceId, recordId: string): Promise<RetryResult> {
    const who = this.#operator(actor, 'retry', id, { recordId });
    const rid = toEntryId('recordId', recordId);
    return this.#audited(who, 'retry', id, { recordId: rid }, async () => {
      const r = await this.resource(id);
      if (r.kind === 'stream' && r.deadLetterStream === undefined) {
        return { value: { status: 'refused', reason: `'${r.id}' has no dead-letter stream configured` } as const, result: 'refused' as const };
      }
      const [outcome] = await this.#retry(r, [rid]);
      const value: RetryResult =
        outcome!.status === 1 ? { status: 'retried', newId: outcome!.value } : outcome!.status === 0 ? { status: 'missing' } : { status: 'refused', reason: outcome!.value };
      return { value, result: value.status === 'retried' ? 'ok' : value.status, target: value.status === 'retried' ? { recordId: rid, newId: value.newId } : undefined };
    });
  }

  /** Retries records (≤ 1000), in order: status 1 retried (value = new ID), 0 missing, -1 foreign (value = reason). */
  async #retry(r: Resource, ids: readonly string[]): Promise<{ status: number; value: string }[]> {
    const op = 'RespireAdmin retry';
    const dead = this.#deadKey(r);
    if (r.kind === 'queue') return parseStatuses(await this.#redis.script(adminScripts.retryQueue, [dead, r.keys.stream], ids, op));
    if (r.retryAtomic) return parseStatuses(await this.#redis.script(adminScripts.retryWorker, [dead, r.stream], ids, op));
    // Another slot: read, append (IDMP on 8.6+), then delete.
    const out: { status: number; value: string }[] = [];
    const append: { index: number; id: string; fields: readonly (readonly [Buffer, Buffer])[] }[] = [];
    // The reads are pipelined; an ID repeated in one call counts once (later ones are missing).
    const seen = new Set<string>();
    const first = ids.map((rid) => !seen.has(rid) && seen.add(rid) !== undefined);
    const reads = await Promise.all(
      ids.map((rid, index) => (first[index] ? this.#redis.send(dead, ['XRANGE', dead, rid, rid, 'COUNT', '1'], op, true) : Promise.resolve([]))),
    );
    for (const [index, rid] of ids.entries()) {
      const [found] = parseEntries(reads[index]);
      const record = found ? workerRecord(found.id, found.fields) : undefined;
      if (!record) out[index] = { status: 0, value: '' };
      else if (record.kind !== 'worker') out[index] = { status: -1, value: 'not a worker dead-letter record (the five _respire.* pairs are not in place)' };
      else append.push({ index, id: rid, fields: record.fields });
    }
    if (append.length > 0) {
      const args: RedisArg[] = [`respire-admin:${dead}`];
      for (const a of append) args.push(a.id, String(a.fields.length), ...a.fields.flat());
      const reply = (await this.#redis.script(adminScripts.append, [r.stream], args, op)) as unknown[];
      await this.#redis.send(dead, ['XDEL', dead, ...append.map((a) => a.id)], op);
      append.forEach((a, k) => (out[a.index] = { status: 1, value: text((reply[k] as unknown[])[0]) }));
    }
    return out;
  }

  /** Deletes one dead-letter record (XDEL). */
  async deleteDeadLetter(actor: Actor, id: ResourceId, recordId: string): Promise<DeleteResult> {
    const who = this.#operator(actor, 'delete', id, { recordId });
    const rid = toEntryId('recordId', recordId);
    return this.#audited(who, 'delete', id, { recordId: rid }, async () => {
      const dead = this.#deadKey(await this.resource(id));
      const n = Number(await this.#redis.send(dead, ['XDEL', dead, rid], 'RespireAdmin deleteDeadLetter'));
      const value: DeleteResult = n === 1 ? { status: 'deleted' } : { status: 'missing' };
      return { value, result: n === 1 ? 'ok' : 'missing' };
    });
  }

  /** Retries every dead letter present when it starts, oldest first, one script call per page. */
  async retryAllDeadLetters(actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult> {
    return this.#bulk(actor, id, 'retry-all', options, async (r, ids) => {
      const statuses = await this.#retry(r, ids);
      return { done: statuses.filter((s) => s.status === 1).length, failed: statuses.filter((s) => s.status === -1).length };
    });
  }

  /** Deletes every dead letter present when it starts, oldest first, one XDEL per page. */
  async deleteAllDeadLetters(actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult> {
    return this.#bulk(actor, id, 'delete-all', options, async (r, ids) => {
      const dead = this.#deadKey(r);
      return { done: Number(await this.#redis.send(dead, ['XDEL', dead, ...ids], 'RespireAdmin deleteAllDeadLetters')), failed: 0 };
    });
  }

  async #bulk(
    actor: Actor,
    id: ResourceId,
    action: 'retry-all' | 'delete-all',
    options: BulkOptions | undefined,
    run: (r: Resource, ids: string[]) => Promise<BulkProgress>,
  ): Promise<BulkResult> {
    const who = this.#operator(actor, action, id, {});
    const o = toOptions('options', options, ['pageSize', 'limit', 'signal', 'onProgress']);
    const pageSize = toCount('pageSize', o.pageSize, 100);
    const limitOption = o.limit === undefined ? undefined : toCount('limit', o.limit, 0, 1, Number.MAX_SAFE_INTEGER);
    if (o.signal !== undefined && !(o.signal instanceof AbortSignal)) throw new RespireValidationError('signal', 'must be an AbortSignal');
    if (o.onProgress !== undefined && typeof o.onProgress !== 'function') throw new RespireValidationError('onProgress', 'must be a function');
    const progress = { done: 0, failed: 0, aborted: false };
    const target: Record<string, string | number> = {};
    return this.#audited(who, action, id, target, async () => {
      const op = `RespireAdmin ${action}`;
      const r = await this.resource(id);
      if (r.kind === 'stream' && action === 'retry-all' && r.deadLetterStream === undefined) {
        throw new RespireValidationError('resource', `'${r.id}' has no dead-letter stream configured`);
      }
      const dead = this.#deadKey(r);
      const [length, last] = await Promise.all([
        this.#redis.send(dead, ['XLEN', dead], op),
        this.#redis.send(dead, ['XREVRANGE', dead, '+', '-', 'COUNT', '1'], op),
      ]);
      const lastId = parseEntries(last)[0]?.id;
      const limit = limitOption ?? Number(length);
      target.limit = limit;
      let cursor: string | undefined;
      let seen = 0;
      try {
        while (lastId !== undefined && seen < limit) {
          if (o.signal?.aborted) {
            progress.aborted = true;
            break;
          }
          const want = Math.min(pageSize, limit - seen);
          const ids = parseEntries(
            await this.#redis.send(dead, ['XRANGE', dead, cursor === undefined ? '-' : `(${cursor}`, lastId, 'COUNT', String(want)], op),
          ).map((e) => e.id);
          if (ids.length === 0) break;
          cursor = ids[ids.length - 1];
          seen += ids.length;
          const step = await run(r, ids);
          progress.done += step.done;
          progress.failed += step.failed;
          try {
            o.onProgress?.({ done: progress.done, failed: progress.failed });
          } catch {
            // a progress callback never breaks the action
          }
        }
      } finally {
        target.done = progress.done;
        target.failed = progress.failed;
        if (progress.aborted) target.aborted = 'true';
      }
      return { value: { ...progress }, result: 'ok' };
    });
  }

  /** Releases a pending entry for redelivery, fenced by the delivery count and owner shown on the page. */
  async releasePending(
    actor: Actor,
    id: ResourceId,
    group: string,
    entryId: string,
    expected: { readonly deliveryCount: number; readonly consumer: string },
  ): Promise<PendingActionResult> {
    return this.#pendingAction(actor, 'release', id, group, entryId, expected, false);
  }

  /** Acknowledges a pending entry (and deletes its body with `deleteEntry`), fenced like {@link releasePending}. */
  async ackPending(
    actor: Actor,
    id: ResourceId,
    group: string,
    entryId: string,
    expected: { readonly deliveryCount: number; readonly consumer: string },
    options?: { readonly deleteEntry?: boolean },
  ): Promise<PendingActionResult> {
    const o = toOptions('options', options, ['deleteEntry']);
    if (o.deleteEntry !== undefined && typeof o.deleteEntry !== 'boolean') throw new RespireValidationError('deleteEntry', 'must be a boolean');
    return this.#pendingAction(actor, 'ack', id, group, entryId, expected, o.deleteEntry === true);
  }

  async #pendingAction(
    actor: Actor,
    action: 'release' | 'ack',
    id: ResourceId,
    group: string,
    entryId: string,
    expected: { readonly deliveryCount: number; readonly consumer: string },
    deleteEntry: boolean,
  ): Promise<PendingActionResult> {
    const who = this.#operator(actor, action, id, { group, entryId });
    const g = toName('group', group);
    const e = toEntryId('entryId', entryId);
    if (typeof expected !== 'object' || expected === null) throw new RespireValidationError('expected', 'must be { deliveryCount, consumer }');
    const count = toCount('expected.deliveryCount', expected.deliveryCount, 0, 1, Number.MAX_SAFE_INTEGER);
    const consumer = toName('expected.consumer', expected.consumer);
    const target: Record<string, string | number> = { group: g, entryId: e, consumer, deliveryCount: count };
    if (deleteEntry) target.deleteEntry = 'true';
    return this.#audited<PendingActionResult>(who, action, id, target, async () => {
      const s = await this.#stream(id);
      const reply =
        action === 'release'
          ? await this.#redis.script(adminScripts.releasePending, [s.stream], [g, e, consumer, String(count), String(RELEASE_IDLE_MS)], 'RespireAdmin releasePending')
          : await this.#redis.script(adminScripts.ackPending, [s.stream], [g, e, consumer, String(count), deleteEntry ? '1' : '0'], 'RespireAdmin ackPending');
      const [status, owner, current] = reply as unknown[];
      const code = Number(status);
      if (code === 1) return { value: { status: action === 'release' ? 'released' : 'acknowledged' }, result: 'ok' };
      if (code === -1) {
        const value = { status: 'changed', deliveryCount: Number(current), consumer: text(owner) } as const;
        return { value, result: 'changed', detail: `now pending to '${value.consumer}' at delivery count ${value.deliveryCount}` };
      }
      return { value: { status: 'missing' }, result: 'missing', ...(code === 2 ? { detail: 'its body was deleted: dropped from the PEL' } : {}) };
    });
  }

  /**
   * Deletes the group's consumers that hold no pending entries and have been idle at least
   * `minIdleMs`, checked and deleted in one script; consumers with pending entries are never
   * deleted (XGROUP DELCONSUMER would drop their entries) and are reported as kept.
   */
  async removeIdleConsumers(actor: Actor, id: ResourceId, group: string, minIdleMs: number): Promise<IdleConsumerResult> {
    const who = this.#operator(actor, 'remove-idle-consumers', id, { group });
    const g = toName('group', group);
    const idle = toCount('minIdleMs', minIdleMs, 0, 1, 2_147_483_647);
    const target: Record<string, string | number | readonly string[]> = { group: g, minIdleMs: idle };
    return this.#audited(who, 'remove-idle-consumers', id, target, async () => {
      const s = await this.#stream(id);
      const reply = (await this.#redis.script(adminScripts.removeIdleConsumers, [s.stream], [g, String(idle)], 'RespireAdmin removeIdleConsumers', true)) as unknown[][];
      const value = { removed: (reply[0] ?? []).map(text), keptWithPending: (reply[1] ?? []).map(text) };
      target.removed = value.removed;
      target.keptWithPending = value.keptWithPending;
      return { value, result: 'ok' };
    });
  }

  // ---- audit -----------------------------------------------------------------------------

  /** The operator check (before any I/O); a refused viewer is audited with the host clock. */
  #operator(actor: Actor, action: AuditRecord['action'], id: ResourceId, target: AuditRecord['target']): Actor {
    try {
      return requireOperator(actor, action);
    } catch (error) {
      if (isRespireError(error, 'PERMISSION_DENIED')) {
        this.#log({ atMs: Date.now(), actor: actor.name, action, resource: String(id), target: safeTarget(target), result: 'refused', detail: 'PERMISSION_DENIED: not an operator' });
      }
      throw error;
    }
  }

  async #audited<T>(
    actor: Actor,
    action: AuditRecord['action'],
    id: ResourceId,
    target: AuditRecord['target'],
    run: () => Promise<{ value: T; result: AuditRecord['result']; detail?: string; target?: AuditRecord['target'] | undefined }>,
  ): Promise<T> {
    const key = typeof id === 'string' && id.length > 0 ? id : 'respire';
    let atMs: number;
    try {
      atMs = await this.#redis.timeMs(key, `RespireAdmin ${action}`);
    } catch {
      atMs = Date.now();
    }
    let record: AuditRecord;
    try {
      const outcome = await run();
      record = { atMs, actor: actor.name, action, resource: id, target: outcome.target ?? target, result: outcome.result, ...(outcome.detail ? { detail: outcome.detail } : {}) };
      await this.#record(record);
      return outcome.value;
    } catch (error) {
      const code = isRespireError(error) ? error.code : 'ERROR';
      const refused = code === 'PERMISSION_DENIED' || code === 'INVALID_ARGUMENT' || code === 'WRONG_TYPE';
      record = { atMs, actor: actor.name, action, resource: id, target, result: refused ? 'refused' : 'failed', detail: `${code}: ${(error as Error).message}` };
      await this.#record(record);
      throw error;
    }
  }

  async #record(record: AuditRecord): Promise<void> {
    let logged = record;
    if (this.#auditStream !== undefined) {
      const s = this.#auditStream;
      try {
        await this.#redis.send(
          s,
          [
            'XADD', s, '*',
            'at', String(record.atMs),
            'actor', record.actor,
            'action', record.action,
            'resource', record.resource,
            'target', JSON.stringify(record.target),
            'result', record.result,
            'detail', record.detail ?? '',
          ],
          'RespireAdmin audit stream',
        );
      } catch (error) {
        logged = { ...record, auditStreamError: (error as Error).message };
      }
    }
    this.#log(logged);
  }

  #log(record: AuditRecord): void {
    try {
      this.#audit?.(record);
    } catch {
      // a throwing audit logger never breaks the action
    }
  }
}

// ---- helpers -----------------------------------------------------------------------------

function queueResource(config: QueueConfig, argument: string, discovered: boolean): QueueResource {
  const c = toOptions(argument, config, ['name', 'keyPrefix']);
  const keyPrefix = toKeyPrefix(c.keyPrefix);
  const keys = queueKeys(c.name, keyPrefix);
  return {
    kind: 'queue',
    id: keys.stream,
    name: c.name as string,
    keyPrefix,
    keys: { stream: keys.stream, deadlines: keys.deadlines, deadLetter: keys.deadLetter },
    discovered,
  };
}

function streamResource(config: StreamConfig, argument: string): StreamResource {
  const c = toOptions(argument, config, ['stream', 'keyPrefix', 'deadLetterStream', 'label']);
  const prefix = toKeyPrefix(c.keyPrefix);
  const stream = prefix + toName(`${argument}.stream`, c.stream, 65_536);
  const dead = c.deadLetterStream === undefined ? undefined : prefix + toName(`${argument}.deadLetterStream`, c.deadLetterStream, 65_536);
  if (dead === stream) throw new RespireValidationError(`${argument}.deadLetterStream`, `must differ from the stream (both resolve to '${stream}')`);
  const label = c.label === undefined ? stream : toName(`${argument}.label`, c.label);
  return { kind: 'stream', id: stream, stream, deadLetterStream: dead, label, retryAtomic: dead !== undefined && keySlot(dead) === keySlot(stream) };
}

/** A queue stream key found by the SCAN → its resource, when it is one a ReliableQueue would use. */
function parseQueueStreamKey(key: string): QueueResource | undefined {
  const match = QUEUE_STREAM_KEY.exec(key);
  if (!match) return undefined;
  try {
    const r = queueResource({ name: match[2]!, keyPrefix: match[1]! }, 'discovered', true);
    return r.id === key ? r : undefined;
  } catch {
    return undefined;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function utf8(b: Buffer): string | undefined {
  try {
    return strictUtf8.decode(b);
  } catch {
    return undefined;
  }
}

/** `map` with at most `limit` calls in flight, results in input order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await map(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function page<T>(rows: readonly T[], count: number): Page<T> & { items: T[] } {
  const items = rows.slice(0, count);
  const last = items[items.length - 1] as { id?: string } | undefined;
  return { items, next: rows.length > count && last?.id !== undefined ? last.id : undefined };
}

/** A missing stream or group reads as empty; any other error reply is thrown as a Respire error. */
function missingOrThrow<T>(reply: unknown, empty: T, operation: string): T {
  const error = (reply as { error: Error }).error;
  if (/^NOGROUP|no such key/i.test(error.message)) return empty;
  throw toRespireError(error, operation);
}

function parseStatuses(reply: unknown): { status: number; value: string }[] {
  return (reply as unknown[][]).map((r) => ({ status: Number(r[0]), value: text(r[1]) }));
}

function safeTarget(target: AuditRecord['target']): AuditRecord['target'] {
  const out: Record<string, string | number | readonly string[]> = {};
  for (const [k, v] of Object.entries(target)) out[k] = typeof v === 'number' || Array.isArray(v) ? v : String(v);
  return out;
}
