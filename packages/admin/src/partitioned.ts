// Partitioned queues for operators: discovery, counts per partition and per master, and their dead letters as one list.
import type { Actor, DeadLetterRecord, DeleteResult, Page, QueueResource, QueueStatus, ResourceId, RetryResult } from './api.js';
import type { AdminContext } from './context.js';
import { retry, retryResult } from './dead-letter-actions.js';
import { RespireNotFoundError, nearest } from './not-found.js';
import { METADATA_MATCH, metadataKey, parseMetadataKey } from './partition-layout.js';
import { queueRecord } from './records.js';
import type { GroupedQueueSummary } from './grouped.js';
import { groupedPartitionStatus } from './grouped-partition.js';
import {
  MAX_GENERATIONS,
  MAX_PARTITIONS,
  RespireValidationError,
  isRespireError,
  keySlot,
  parseEntries,
  parseHistory,
  partitionSet,
  text,
  toIntegerInRange,
} from './redis.js';
import { queueResource, type DiscoveryOptions, type QueueConfig } from './resources.js';
import { mapLimited, queueStatus } from './status.js';
import { compareEntryIds, toCount, toEntryId, toOptions, toResourceId } from './validate.js';

/** A partitioned queue the admin knows. Its id is its metadata key (`<keyPrefix>{respire-partitioned:<name>}:partitions`). */
export interface PartitionedQueueResource {
  readonly kind: 'partitioned-queue';
  readonly id: ResourceId;
  /** The name given to `new PartitionedQueue(client, name, { partitions })`. */
  readonly name: string;
  readonly keyPrefix: string;
  /** The string key recording the partition count. */
  readonly metadataKey: string;
  /** Found by the discovery SCAN rather than configured. */
  readonly discovered: boolean;
}

/** Counts added over partitions: the {@link QueueStatus} counts; `ready` is null when any partition's is. */
export interface PartitionTotals {
  readonly length: number;
  readonly ready: number | null;
  readonly inFlight: number;
  readonly due: number;
  readonly deadLetters: number;
}

/** One partition count of a partitioned queue's history (queue README "Growing the partition count"). */
export interface PartitionGeneration {
  readonly count: number;
  /** When it took over, by the server clock of the grow, in ms since the epoch; 0 for the first count. */
  readonly sinceMs: number;
}

/**
 * A partitioned queue in the list: its recorded partition count and the counts of all its
 * partitions together (after a grow, the earlier counts' partitions too: they are still drained).
 */
export interface PartitionedQueueSummary extends PartitionedQueueResource {
  /** The current partition count its metadata key records; null when nothing is recorded yet (or the value is not a partition history). */
  readonly partitions: number | null;
  /** Every count the queue has had, oldest first, the last the current one (one entry until a grow); null as `partitions`. */
  readonly history: readonly PartitionGeneration[] | null;
  /** Whether the queue is grouped (metadata value `g<count>`, queue README "Message groups"); null as `partitions`. */
  readonly grouped: boolean | null;
  /** How many partitions the queue has had over its history (`partitionList`'s length); 0 when nothing is recorded. */
  readonly allPartitions: number;
  /** The metadata key's value as read, when it is not a partition history this admin can read; else null. */
  readonly unreadable: string | null;
  readonly totals: PartitionTotals;
}

/** A partitioned queue the list could not read (the server refused: a key of another type, an ACL), and why. */
export interface UnavailablePartitionedQueue {
  readonly resource: PartitionedQueueResource;
  /** The Respire error code, e.g. `WRONG_TYPE`, `PERMISSION_DENIED`. */
  readonly code: string;
  readonly message: string;
}

/** One partition: an ordinary queue, where its slot lives, and its counts. */
export interface PartitionStatus {
  /**
   * Its permanent partition number, as the queue's `message.partition`, receipts and
   * `partitionNames` use it: the first count's partitions are 0..count-1, each later count's new
   * ones follow (queue README "Partition numbers never change").
   */
  readonly index: number;
  /** True when the current count's layout has it (sends go to it); false for an earlier count's partition, still drained by receives. */
  readonly current: boolean;
  /** The partition's queue name (`<name>:p<index>.<salt>`). */
  readonly queue: string;
  /** Cluster slot of the partition's hash tag. */
  readonly slot: number;
  /** Address (`host:port`) of the master serving that slot, as the Cluster client's slot map has it; null on a standalone client. */
  readonly master: string | null;
  /**
   * Its counts: on an ungrouped queue exactly `RespireAdmin.queueStatus` of the partition's queue
   * (its `resource.id` addresses it there); on a grouped one the grouped queue's counts mapped onto
   * these fields (`length` messages, `inFlight` in flight, `ready` the rest, `due`, `deadLetters`).
   */
  readonly status: QueueStatus;
  /** On a grouped partitioned queue, the partition's grouped counts as `RespireAdmin.groupedQueue` reads them (groups, ready groups, fair); else null. */
  readonly grouped: GroupedQueueSummary | null;
}

/** The partitions one master serves, and their counts added. */
export interface MasterTotals extends PartitionTotals {
  /** `host:port` of the master. */
  readonly master: string;
  /** Numbers of the partitions whose slot it serves. */
  readonly partitions: readonly number[];
}

/** A partitioned queue with every partition's counts and, on a Cluster client, the totals per master. */
export interface PartitionedQueueStatus extends PartitionedQueueSummary {
  /** Server time (TIME of the metadata key's node) in ms since the epoch. */
  readonly serverTimeMs: number;
  readonly partitionList: readonly PartitionStatus[];
  /** Per master serving at least one partition, by address; null when the client is not a Cluster client. */
  readonly masters: readonly MasterTotals[] | null;
}

/** One record of a partitioned queue's dead letters: its partition and the record (the queue's record format). */
export interface PartitionedDeadLetter {
  readonly partition: number;
  /** The partition's queue name. */
  readonly queue: string;
  readonly record: DeadLetterRecord;
}

/** Which page of a partitioned queue's dead letters (newest first). */
export interface PartitionedDeadLetterOptions {
  /** Records per page, 1..1000. @defaultValue 50 */
  readonly count?: number;
  /** A page's `next`: the page after it. */
  readonly cursor?: string;
}

/** Partitions of one queue read at a time. */
const CONCURRENCY = 32;
/** Partitioned queues read at a time by the list (each reading up to {@link CONCURRENCY} partitions at a time). */
const QUEUE_CONCURRENCY = 4;
const CURSOR = /^p(0|[1-9]\d{0,3})~(\d+-\d+)$/;
/** Most partition numbers a queue hands out over its history (16 counts of at most 256). */
const MAX_PARTITION_NUMBERS = MAX_GENERATIONS * MAX_PARTITIONS;
const NO_TOTALS: PartitionTotals = { length: 0, ready: 0, inFlight: 0, due: 0, deadLetters: 0 };

/** The partitioned queues an admin knows: configured ones, then (with discovery) those a bounded SCAN finds. */
export class PartitionedQueues {
  readonly #ctx: AdminContext;
  readonly #configured = new Map<ResourceId, PartitionedQueueResource>();
  readonly #discovery: Required<DiscoveryOptions> | undefined;

  /** @throws {@link RespireValidationError} for a bad name, key prefix, discovery bounds, or a queue configured twice. */
  constructor(ctx: AdminContext, queues: readonly QueueConfig[], discover: unknown) {
    this.#ctx = ctx;
    for (const [i, q] of queues.entries()) {
      const c = toOptions(`partitionedQueues[${i}]`, q, ['name', 'keyPrefix']);
      const key = metadataKey(c.name, c.keyPrefix, `partitionedQueues[${i}]`);
      if (this.#configured.has(key)) throw new RespireValidationError('partitionedQueues', `'${key}' is configured twice`);
      this.#configured.set(key, resource(key, false)!);
    }
    if (discover === true) this.#discovery = { scanCount: 1000, maxPages: 100 };
    else if (discover && typeof discover === 'object') {
      const d = toOptions('discoverPartitionedQueues', discover as DiscoveryOptions, ['scanCount', 'maxPages']);
      this.#discovery = {
        scanCount: toCount('discoverPartitionedQueues.scanCount', d.scanCount, 1000, 1, 10_000),
        maxPages: toCount('discoverPartitionedQueues.maxPages', d.maxPages, 100, 1, 10_000),
      };
    } else if (discover !== undefined && discover !== false) {
      throw new RespireValidationError('discoverPartitionedQueues', 'must be a boolean or { scanCount, maxPages }');
    }
  }

  /** Configured partitioned queues, then those the bounded SCAN finds, each with its partition count and totals. */
  async list(): Promise<{
    readonly partitionedQueues: readonly PartitionedQueueSummary[];
    readonly discoveryTruncated: boolean;
    readonly unavailable: readonly UnavailablePartitionedQueue[];
  }> {
    const resources = [...this.#configured.values()];
    let truncated = false;
    if (this.#discovery) {
      const found = await this.#ctx.resources.scanStreams(METADATA_MATCH, this.#discovery, 'string');
      truncated = found.truncated;
      for (const key of found.keys.sort()) {
        const r = resource(key, true);
        if (r && !this.#configured.has(r.id)) resources.push(r);
      }
    }
    const read = await mapLimited(resources, QUEUE_CONCURRENCY, async (r): Promise<PartitionedQueueSummary | UnavailablePartitionedQueue> => {
      try {
        const { layout, ...recorded } = await this.#recorded(r, 'RespireAdmin partitionedQueues');
        const statuses = await this.#statuses(r, layout.names, recorded.grouped === true);
        return { ...r, ...recorded, allPartitions: layout.names.length, totals: sum(statuses.map((p) => p.status)) };
      } catch (error) {
        // A refusal by the server (a key of another type, an ACL) concerns this queue; a transport failure concerns them all.
        if (!isRespireError(error) || error.code === 'TRANSPORT_FAILED') throw error;
        return { resource: r, code: error.code, message: error.message };
      }
    });
    return {
      partitionedQueues: read.filter((x): x is PartitionedQueueSummary => 'totals' in x),
      discoveryTruncated: truncated,
      unavailable: read.filter((x): x is UnavailablePartitionedQueue => 'code' in x),
    };
  }

  /**
   * The partitioned queue with this id: a configured one, or (with discovery) one whose metadata key exists.
   * @throws {@link RespireNotFoundError} (kind `resource`) naming the nearest known partitioned queues.
   */
  async get(id: ResourceId): Promise<PartitionedQueueResource> {
    const key = toResourceId(id);
    const configured = this.#configured.get(key);
    if (configured) return configured;
    const parsed = this.#discovery ? resource(key, true) : undefined;
    if (parsed && text(await this.#ctx.redis.send(key, ['TYPE', key], 'RespireAdmin partitionedQueue')) === 'string') return parsed;
    const known = (await this.list().catch(() => ({ partitionedQueues: [...this.#configured.values()] }))).partitionedQueues.map((q) => q.id);
    throw new RespireNotFoundError(
      { kind: 'resource', name: key, known: nearest(key, known) },
      `unknown partitioned queue '${key}': neither configured${this.#discovery ? ' nor a discoverable partitioned queue' : ''}`,
    );
  }

  /** Every partition's counts, its slot and master, and the totals per master (Cluster client) and overall. */
  async status(id: ResourceId): Promise<PartitionedQueueStatus> {
    const r = await this.get(id);
    const op = 'RespireAdmin partitionedQueue';
    const [serverTimeMs, { layout, ...recorded }] = await Promise.all([this.#ctx.redis.timeMs(r.metadataKey, op), this.#recorded(r, op)]);
    const statuses = await this.#statuses(r, layout.names, recorded.grouped === true);
    const partitionList = layout.names.map((queue, index): PartitionStatus => {
      const { status, grouped } = statuses[index]!;
      const slot = keySlot(status.resource.keys.stream);
      return { index, current: layout.current.has(index), queue, slot, master: this.#masterOf(slot), status, grouped };
    });
    return {
      ...r,
      ...recorded,
      allPartitions: layout.names.length,
      totals: sum(statuses.map((p) => p.status)),
      serverTimeMs,
      partitionList,
      masters: this.#ctx.redis.isCluster ? byMaster(partitionList) : null,
    };
  }

  /**
   * One page of the dead letters of every partition as one list, newest first by record ID (ties:
   * lower partition first), each row naming its partition. A page reads at most `count` records
   * from each partition (concurrently, 32 at a time): at most partitions × count records.
   * @throws {@link RespireValidationError} for a bad count or cursor, before any I/O.
   */
  async deadLetters(id: ResourceId, options?: PartitionedDeadLetterOptions): Promise<Page<PartitionedDeadLetter>> {
    const o = toOptions('options', options, ['count', 'cursor']);
    const count = toCount('count', o.count, 50);
    const after = o.cursor === undefined ? undefined : toCursor(o.cursor);
    const r = await this.get(id);
    const op = 'RespireAdmin partitionedDeadLetters';
    const names = (await this.#recorded(r, op)).layout.names;
    if (names.length === 0) return { items: [], next: undefined };
    let filled = false;
    const rows = (
      await mapLimited(
        names.map((queue, partition) => ({ queue, partition })),
        CONCURRENCY,
        async ({ queue, partition }) => {
          const dead = queueResource({ name: queue, keyPrefix: r.keyPrefix }, 'partition', false).keys.deadLetter;
          // After the cursor (id, p) in (ID descending, partition ascending) order: a higher partition may hold the same ID.
          const max = after === undefined ? '+' : partition > after.partition ? after.id : `(${after.id}`;
          const entries = parseEntries(await this.#ctx.redis.send(dead, ['XREVRANGE', dead, max, '-', 'COUNT', String(count)], op, true));
          if (entries.length === count) filled = true;
          return entries.map((e): PartitionedDeadLetter => ({ partition, queue, record: queueRecord(e.id, e.fields) }));
        },
      )
    ).flat();
    rows.sort((a, b) => compareEntryIds(b.record.id, a.record.id) || a.partition - b.partition);
    const items = rows.slice(0, count);
    const last = items[items.length - 1];
    return { items, next: last !== undefined && (rows.length > count || filled) ? `p${last.partition}~${last.record.id}` : undefined };
  }

  /**
   * Retries one record of a partition's dead letters onto that partition (the queue's retry: a
   * fresh message, one script); audited as `retry` on the partitioned queue with the partition in its target.
   * @throws {@link RespirePermissionError} for a viewer (before any I/O); {@link RespireValidationError}
   *   for a bad partition or record ID (before any I/O) or a partition the recorded count lacks.
   */
  async retryDeadLetter(actor: Actor, id: ResourceId, partition: number, recordId: string): Promise<RetryResult> {
    const who = this.#ctx.auditor.operator(actor, 'retry', id, { partition: String(partition), recordId: String(recordId) });
    const p = toIntegerInRange('partition', partition, 0, MAX_PARTITION_NUMBERS - 1);
    const rid = toEntryId('recordId', recordId);
    return this.#ctx.auditor.run<RetryResult>(who, 'retry', id, { partition: p, recordId: rid }, async () => {
      const q = await this.#partition(id, p);
      const [outcome] = await retry(this.#ctx, q, [rid]);
      const value = retryResult(outcome!);
      return {
        value,
        result: value.status === 'retried' ? 'ok' : value.status,
        target: value.status === 'retried' ? { partition: p, recordId: rid, newId: value.newId } : undefined,
      };
    });
  }

  /**
   * Deletes one record of a partition's dead letters (XDEL); audited as `delete` on the partitioned
   * queue with the partition in its target. Throws as {@link retryDeadLetter}.
   */
  async deleteDeadLetter(actor: Actor, id: ResourceId, partition: number, recordId: string): Promise<DeleteResult> {
    const who = this.#ctx.auditor.operator(actor, 'delete', id, { partition: String(partition), recordId: String(recordId) });
    const p = toIntegerInRange('partition', partition, 0, MAX_PARTITION_NUMBERS - 1);
    const rid = toEntryId('recordId', recordId);
    return this.#ctx.auditor.run<DeleteResult>(who, 'delete', id, { partition: p, recordId: rid }, async () => {
      const dead = (await this.#partition(id, p)).keys.deadLetter;
      const n = Number(await this.#ctx.redis.send(dead, ['XDEL', dead, rid], 'RespireAdmin deleteDeadLetter'));
      return n === 1 ? { value: { status: 'deleted' } as const, result: 'ok' as const } : { value: { status: 'missing' } as const, result: 'missing' as const };
    });
  }

  /**
   * Partition number `p` of the queue (any partition it has had, earlier counts' included) as an
   * ordinary queue resource.
   * @throws {@link RespireValidationError} when the recorded history has no such partition.
   */
  async #partition(id: ResourceId, p: number): Promise<QueueResource> {
    const r = await this.get(id);
    const { partitions, layout } = await this.#recorded(r, 'RespireAdmin partition');
    if (p >= layout.names.length) {
      const has = partitions === null ? 'no recorded partitions' : `${layout.names.length} partitions (numbers 0..${layout.names.length - 1})`;
      throw new RespireValidationError('partition', `partitioned queue '${r.name}' has ${has}: no partition ${p}`);
    }
    return queueResource({ name: layout.names[p]!, keyPrefix: r.keyPrefix }, 'partition', false);
  }

  /**
   * The partition history the metadata key records (GET; queue README "Growing the partition
   * count"), and every partition it has had by permanent number with those of the current count
   * marked: the same numbering as the queue's (`partitionSet` of core-scripts). Nothing (no
   * partitions) when the key is absent or its value is not a history this admin can read.
   */
  async #recorded(
    r: PartitionedQueueResource,
    op: string,
  ): Promise<{
    partitions: number | null;
    history: PartitionGeneration[] | null;
    grouped: boolean | null;
    unreadable: string | null;
    layout: { readonly names: readonly string[]; readonly current: ReadonlySet<number> };
  }> {
    const none = { partitions: null, history: null, grouped: null, layout: { names: [], current: new Set<number>() } };
    const reply = await this.#ctx.redis.send(r.metadataKey, ['GET', r.metadataKey], op);
    if (reply === null || reply === undefined) return { ...none, unreadable: null };
    const value = text(reply);
    const parsed = parseHistory(value);
    if (parsed === undefined) return { ...none, unreadable: value.slice(0, 200) };
    const set = partitionSet(r.name, parsed);
    return {
      partitions: parsed.generations.at(-1)!.count,
      history: parsed.generations.map(({ count, sinceMs }) => ({ count, sinceMs })),
      grouped: parsed.grouped,
      unreadable: null,
      layout: { names: set.names, current: new Set(set.layouts.at(-1)) },
    };
  }

  /**
   * The counts of every partition named, 32 at a time, in partition order: `queueStatus`, or on a
   * grouped queue the grouped counts (grouped-partition.ts), whose keys hold a grouped partition's messages.
   */
  #statuses(r: PartitionedQueueResource, names: readonly string[], grouped: boolean): Promise<{ status: QueueStatus; grouped: GroupedQueueSummary | null }[]> {
    return mapLimited(names, CONCURRENCY, async (queue) => {
      const q = queueResource({ name: queue, keyPrefix: r.keyPrefix }, 'partition', false);
      return grouped ? groupedPartitionStatus(this.#ctx, q) : { status: await queueStatus(this.#ctx, q), grouped: null };
    });
  }

  /** The master serving `slot` in the Cluster client's slot map; null on a standalone client or when the map has none. */
  #masterOf(slot: number): string | null {
    if (!this.#ctx.redis.isCluster) return null;
    const client = this.#ctx.redis.client as unknown as { getSlotMaster?(slot: number): { address?: string; host?: string; port?: number } | undefined };
    try {
      const node = client.getSlotMaster?.(slot);
      if (node === undefined) return null;
      return node.address ?? (node.host === undefined ? null : `${node.host}:${node.port}`);
    } catch {
      return null;
    }
  }
}

/** The resource of a metadata key; undefined when the key is not one a PartitionedQueue would use. */
function resource(key: string, discovered: boolean): PartitionedQueueResource | undefined {
  const parsed = parseMetadataKey(key);
  if (!parsed) return undefined;
  return { kind: 'partitioned-queue', id: key, name: parsed.name, keyPrefix: parsed.keyPrefix, metadataKey: key, discovered };
}

/** Counts added over partitions. */
export function sum(statuses: readonly QueueStatus[]): PartitionTotals {
  return statuses.reduce<PartitionTotals>(
    (t, s) => ({
      length: t.length + s.length,
      ready: t.ready === null || s.ready === null ? null : t.ready + s.ready,
      inFlight: t.inFlight + s.inFlight,
      due: t.due + s.due,
      deadLetters: t.deadLetters + s.deadLetters,
    }),
    NO_TOTALS,
  );
}

/** Partitions grouped by the master serving their slot, by address; partitions whose master is unknown under `'unknown'`. */
function byMaster(list: readonly PartitionStatus[]): MasterTotals[] {
  const groups = new Map<string, PartitionStatus[]>();
  for (const p of list) {
    const master = p.master ?? 'unknown';
    groups.set(master, [...(groups.get(master) ?? []), p]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([master, ps]) => ({ master, partitions: ps.map((p) => p.index), ...sum(ps.map((p) => p.status)) }));
}

/** A dead-letter page cursor: `p<partition>~<record ID>`. */
function toCursor(value: unknown): { partition: number; id: string } {
  const match = typeof value === 'string' ? CURSOR.exec(value) : null;
  if (!match || Number(match[1]) >= MAX_PARTITION_NUMBERS)
    throw new RespireValidationError('cursor', "must be a page's next cursor (p<partition>~<record ID>)");
  return { partition: Number(match[1]), id: toEntryId('cursor', match[2]) };
}
