// PartitionedQueue: one queue over N ordinary queues (partitions) whose hash tags spread over a
// Cluster's slots; client-side routing and fan-in (README "Scaling past one master").
import { RespireValidationError, isRespireError, type RedisClientLike } from '@respire/core-scripts';
import { commandTarget, queueKeys, safeGet, toDurationMs, toOptions, isEntryId, type CommandTarget, type QueueKeys } from '@respire/core-scripts/internal';
import { MAX_BATCH, type MessageReceipt } from '../leases/leases.js';
import {
  ReliableQueue,
  queueSendSteps,
  toReceiveArguments,
  type PreparedSend,
  type ReceiveOptions,
  type ReceivedMessage,
  type ReliableQueueOptions,
  type SendManyItem,
  type SendOptions,
  type SendResult,
} from '../queue.js';
import type { ConsumeOptions, QueueConsumer } from '../consumer.js';
import { startPartitionedConsumer, type PartitionedConsumeHandler } from './partitioned-consume.js';
import { PartitionWaiters, receivePartitionedWaiting, withPartitionWaiters } from './partitioned-wait.js';
import { groupedWaitPoint, waitPoint, type WaitPoint } from '../wait.js';
import { groupedQueueKeys, type GroupedQueueKeys } from '../leases/grouped-source.js';
import { MAX_PARTITION_NUMBERS, parsePartitionedReceipt, partitionOfId, partitionedMetadataKey, partitionedReceipt, toPartitionCount } from './layout.js';
import { findEarlierCopies } from './earlier-copies.js';
import { growPartitions, type GrowOptions, type GrowResult } from './grow.js';
import { PartitionTracker } from './tracker.js';
import { DrainedPartitions } from './drained.js';
import { RespirePartialSendError } from './partial-send.js';

export { RespirePartitionCountError } from './tracker.js';

/** Options of a {@link PartitionedQueue}: a queue's options, and the partition count. */
export interface PartitionedQueueOptions<T> extends ReliableQueueOptions<T> {
  /**
   * How many partitions (ordinary queues) the queue spreads over, 1..256. The first use records it
   * in the queue's metadata key and every instance checks it there: an instance must use the
   * recorded count or one the queue had before a grow ({@link PartitionedQueue.grow}); it then
   * follows the current count. Required.
   */
  partitions: number;
  /**
   * Message groups in every partition (README "Message groups"): a send's `groupId` picks its
   * partition (FNV-1a of the ID modulo the count), so a group's messages stay in one partition, in
   * order. A grouped partitioned queue cannot grow. Deduplication holds per group.
   */
  groups?: ReliableQueueOptions<T>['groups'];
}

const OPTIONS = [
  'codec',
  'deliveryLimit',
  'keyPrefix',
  'instrumentation',
  'commandTimeoutMs',
  'durability',
  'partitions',
  'groups',
] as const satisfies readonly (keyof PartitionedQueueOptions<unknown>)[];

/** One delivery of a partitioned queue's message: a {@link ReceivedMessage} with its partition. */
export interface PartitionedMessage<T> extends ReceivedMessage<T> {
  /** The partition (0..partitions-1) holding the message; `id` is unique within it only. */
  readonly partition: number;
}

/** What happened to a send on a partitioned queue: a {@link SendResult} with its partition. */
export interface PartitionedSendResult extends SendResult {
  /** The partition the message went to; `id` is unique within it only. */
  readonly partition: number;
}

/**
 * One queue spread over `partitions` ordinary queues (README "Scaling past one master"), each in
 * its own hash tag, chosen so the partitions spread over the slot range and so over a Cluster's
 * masters; on a standalone server all live on the one server. The API is {@link ReliableQueue}'s
 * (send, sendWithResult, sendMany, receive with or without `waitMs`, ack, ackMany, nack, nackMany,
 * extend, extendMany, consume), with the same options, limits and errors; on a grouped
 * partitioned queue the waiting receive blocks on each partition's grouped wait point.
 *
 * Each message lives in one partition: `id` is its entry ID there, `partition` says which, and the
 * receipt names the partition, so ack, nack and extend go straight to it. Delivery limit and dead
 * letters are per partition (`deadLetterStreamKeys[partition]`).
 *
 * The first call of an instance checks the partition history recorded in the metadata key (one
 * `SET NX GET`, recording the count when absent), and a call reads it again when the last read is
 * over a second old: a count the queue never had throws {@link RespirePartitionCountError}; after
 * {@link PartitionedQueue.grow} the instance follows the new count within that second. Partitions
 * of earlier counts keep their numbers and are still received from, acknowledged and listed.
 */
export class PartitionedQueue<T> {
  /** The queue name. */
  readonly name: string;
  /** The string key recording the partition history. */
  readonly metadataKey: string;
  /** Deliveries before dead-lettering, in every partition. */
  readonly deliveryLimit: number;

  readonly #tracker: PartitionTracker<ReliableQueue<T>>;
  readonly #target: CommandTarget;
  readonly #keyPrefix: string | undefined;
  readonly #grouped: boolean;
  readonly #drained = new DrainedPartitions();
  /** Each partition's keys by partition number, for the waiting receive's wait points (filled as partitions are first waited on). */
  readonly #waitKeys: (QueueKeys | GroupedQueueKeys)[] = [];
  // Where the next receive starts and the next send without deduplication ID goes: random per
  // instance, so instances started together do not all begin with partition 0.
  #receiveCursor: number;
  #sendCursor: number;

  /**
   * @param client - a connected node-redis client or Cluster client, owned by the caller.
   * @param name - nonblank, without `{` or `}`.
   * @throws {@link RespireValidationError} for a partition count that is not a whole number from 1
   *   to 256, a `groups` option, a key prefix with a brace, or anything {@link ReliableQueue}'s
   *   constructor refuses (before any I/O).
   */
  constructor(client: RedisClientLike, name: string, options: PartitionedQueueOptions<T>) {
    if (typeof options !== 'object' || options === null) {
      throw new RespireValidationError('options', 'must be an object with at least a codec and partitions');
    }
    const { partitions, ...queueOptions } = toOptions('options', options, OPTIONS);
    this.metadataKey = partitionedMetadataKey(name, options.keyPrefix);
    const count = toPartitionCount(partitions);
    this.name = name;
    this.#keyPrefix = options.keyPrefix;
    this.#grouped = queueOptions.groups !== undefined;
    const commandTimeoutMs = options.commandTimeoutMs === undefined ? undefined : toDurationMs('commandTimeoutMs', options.commandTimeoutMs, true);
    this.#target = commandTarget(client, 'client', { commandTimeoutMs, durability: options.durability });
    const make = (partitionName: string): ReliableQueue<T> => new ReliableQueue<T>(client, partitionName, queueOptions as ReliableQueueOptions<T>);
    this.#tracker = new PartitionTracker(name, this.metadataKey, count, this.#grouped, this.#target, make);
    this.deliveryLimit = this.#queues[0]!.deliveryLimit;
    this.#receiveCursor = Math.floor(Math.random() * count);
    this.#sendCursor = Math.floor(Math.random() * count);
  }

  /**
   * Grows the partition count of the queue `name` to `partitions` (README "Scaling past one
   * master": "Growing the partition count"): sends then go over the new count's partitions while
   * receives keep draining the earlier counts' ones; receipts, dead letters and deduplication IDs of
   * those stay valid. Idempotent: growing to the current count changes nothing. Instances follow
   * within a second. One GET and one script on the metadata key.
   * @param options - the queue's `keyPrefix`, `commandTimeoutMs` and `durability`, as its instances use them.
   * @throws {@link RespireValidationError} for a bad name, prefix, count (1..256) or option, before any I/O.
   * @throws {@link RespirePartitionGrowthError} for a count below the current one (shrinking), a
   *   grouped queue, or a history of 16 counts already; nothing changed.
   */
  static grow(client: RedisClientLike, name: string, partitions: number, options: GrowOptions = {}): Promise<GrowResult> {
    return growPartitions(client, name, partitions, options);
  }

  /** The current partition count (the instance's `partitions` option until its first call has read the history). */
  get partitions(): number {
    return this.#tracker.current.length;
  }

  /**
   * Every partition's queue name, by partition number: the current count's and, after a grow, the
   * earlier counts' that are not in it (numbers never change). Ordinary queue names, reserved for this queue.
   */
  get partitionNames(): readonly string[] {
    return this.#tracker.set.names;
  }

  /** Each partition's stream, by partition number (as {@link partitionNames}). */
  get streamKeys(): readonly string[] {
    return this.#queues.map((queue) => queue.streamKey);
  }

  /** Each partition's dead-letter stream, by partition number (fields as {@link ReliableQueue.deadLetterStreamKey}'s). */
  get deadLetterStreamKeys(): readonly string[] {
    return this.#queues.map((queue) => queue.deadLetterStreamKey);
  }

  /** The partition numbers sends go to now, by index in the current count's layout. */
  get currentPartitions(): readonly number[] {
    return this.#tracker.current;
  }

  get #queues(): readonly ReliableQueue<T>[] {
    return this.#tracker.queues;
  }

  /**
   * As {@link ReliableQueue.send}: a message with a deduplication ID goes to the partition of the
   * ID's hash (so deduplication holds across the queue), others to the partitions in turn.
   * @throws {@link RespirePartitionCountError} when the recorded partition count differs (nothing sent).
   */
  async send(payload: T, options: SendOptions = {}): Promise<string> {
    return (await this.sendWithResult(payload, options)).id;
  }

  /** As {@link send}, with the partition and whether it was a duplicate. */
  async sendWithResult(payload: T, options: SendOptions = {}): Promise<PartitionedSendResult> {
    const steps = queueSendSteps();
    const prepared = steps.prepare(this.#queues[0]!, payload, options);
    await this.#tracker.ensure();
    const partition = this.#route(prepared);
    const [earlier] = await this.#earlierCopies([prepared], [partition]);
    if (earlier !== undefined) return { id: earlier.id, duplicate: true, partition: earlier.partition };
    const queue = this.#queues[partition]!;
    // A grouped partition sends through its batch script (steps.send is ungrouped only).
    const result = this.#grouped ? (await steps.sendMany(queue, [prepared]))[0]! : await steps.send(queue, prepared);
    return { id: result.id, duplicate: result.duplicate, partition };
  }

  /**
   * As {@link ReliableQueue.sendMany}: every item is checked and encoded before any I/O (one bad item
   * sends nothing), then the items are grouped by partition, in order within each, and each
   * partition touched gets one round trip, all sent concurrently.
   * @returns one {@link PartitionedSendResult} per item, in order.
   * @throws as {@link ReliableQueue.sendMany} when every partition's call failed (the first
   *   failure); {@link RespirePartialSendError} (never `retryable`) when some failed after others
   *   appended their items: its `results` names the items sent, resend only the others.
   */
  async sendMany(items: readonly SendManyItem<T>[]): Promise<PartitionedSendResult[]> {
    const steps = queueSendSteps();
    const prepared = steps.prepareMany(this.#queues[0]!, items);
    if (prepared.length === 0) return [];
    await this.#tracker.ensure();
    const partitionOf = prepared.map((item) => this.#route(item));
    const earlier = await this.#earlierCopies(prepared, partitionOf);
    const results: PartitionedSendResult[] = new Array<PartitionedSendResult>(prepared.length);
    const byPartition = new Map<number, number[]>();
    for (const [index, partition] of partitionOf.entries()) {
      const copy = earlier[index];
      if (copy !== undefined) {
        results[index] = { id: copy.id, duplicate: true, partition: copy.partition };
        continue;
      }
      const indices = byPartition.get(partition);
      if (indices === undefined) byPartition.set(partition, [index]);
      else indices.push(index);
    }
    const calls = [...byPartition];
    const settled = await Promise.allSettled(
      calls.map(async ([partition, indices]) => {
        const sent = await steps.sendMany(
          this.#queues[partition]!,
          indices.map((index) => prepared[index]!),
        );
        for (const [position, index] of indices.entries()) {
          const { id, duplicate } = sent[position]!;
          results[index] = { id, duplicate, partition: partitionOf[index]! };
        }
      }),
    );
    const failures = new Map<number, unknown>();
    for (const [position, outcome] of settled.entries()) if (outcome.status === 'rejected') failures.set(calls[position]![0], outcome.reason);
    if (failures.size === 0) return results;
    // Every call failed: the first failure says all there is (retryable only if nothing ran).
    if (failures.size === calls.length) throw failures.values().next().value;
    throw new RespirePartialSendError(Array.from(results), failures);
  }

  /**
   * As {@link ReliableQueue.receive}. The nonblocking receive draws from the partitions in at most
   * two rounds of concurrent calls, so at most 2 round trips after the metadata check (a third, once
   * a second: the history's refresh), and at most 2 × min(partitions, max) commands, where
   * `partitions` counts every partition the queue has had (after a grow, earlier counts' too),
   * less old ones this instance has seen drained (drained.ts: skipped 60 s at a time):
   * - round 1 asks the next min(partitions, max) partitions from a cursor, `max` split evenly
   *   between them; the cursor then moves past them, so a partition is asked in round 1 at least
   *   once every ceil(partitions / max) receives of an instance (none starves);
   * - when round 1 leased fewer than `max`, round 2 asks partitions not yet asked, then those that
   *   filled their share, for what is left, split evenly.
   * The shares never add up to more than `max`, so neither does the batch. An empty batch means
   * only that the partitions asked had nothing receivable.
   *
   * With `waitMs` (0..20,000 ms, as the queue's) it waits on all partitions (README "Scaling past
   * one master"): nonblocking receives as above, and between them a block on every partition at
   * once, from each partition's cursor (one read-only wait-point script per partition, concurrent),
   * ended by a send or NACK on any partition, the earliest deadline of any partition, or the end of
   * the wait. The receive after a wake asks the partitions the block named first, so a send during
   * the wait is leased by that receive unless it fills `max` with others; only the receives lease,
   * so nothing is leased that the call does not return. Blocking connections, each a
   * duplicate of the client, closed before the call returns on every path: one on a standalone
   * client (one XREAD names every partition's streams), one per partition blocked on on a Cluster
   * client (an XREAD names keys of one slot only; each connects to its partition's master alone).
   * The partitions blocked on are those the receive before the block asked, so the wait follows a
   * grow: one block lasts at most 5 s (`FOLLOW_GROW_MS`), as nothing wakes a block when the queue
   * grows, so a message sent to a new partition is received within about 6 s.
   *
   * On a grouped partitioned queue each partition's block is the grouped queue's (README "Message
   * groups"): on its `…:groups:stream` (a send) and `…:groups:wake` (a NACK, or an ACK or dead
   * letter that moves a group on), and a partition with a ready group ends the block at once.
   *
   * @throws as {@link ReliableQueue.receive}, for the waiting receive too. When a partition's call
   *   fails with a `retryable` error (it did not run: e.g. `TRYAGAIN` while its slot migrates) and
   *   other partitions leased messages, the call returns those and skips the failed partition (its
   *   own instrumentation records the failure). Otherwise a failure is thrown after NACKing (delay
   *   0) what the other partitions leased in this call, so it is receivable again at once (the
   *   deliveries still count toward the delivery limit); if that NACK fails too, those messages are
   *   redelivered after the visibility timeout.
   */
  async receive(visibilityTimeoutMs: number, options: ReceiveOptions = {}): Promise<PartitionedMessage<T>[]> {
    const { timeoutMs, max, waitMs } = toReceiveArguments(visibilityTimeoutMs, options);
    if (waitMs === 0) return this.#receiveOnce(timeoutMs, max);
    return withPartitionWaiters(this.#target, (waiters) => this.#receiveWaiting(timeoutMs, max, waitMs, waiters));
  }

  /**
   * Starts the queue's consumer (as {@link ReliableQueue.consume}; README "Consuming") on every
   * partition: the same options, concurrency bound, lease extension, batched ACKs and NACKs (split
   * by partition, one round trip each) and stop. It waits with the waiting receive on the
   * blocking connections {@link receive} describes, held until `stop()`, and follows a grow as
   * the waiting receive does.
   * On a grouped partitioned queue a group's messages are handled one at a time, in send order,
   * whatever the concurrency (a group lives in one partition, whose receive leases one of it at most).
   * @throws {@link RespireValidationError} for a handler that is not a function or a bad option, before anything starts.
   */
  consume(handler: PartitionedConsumeHandler<T>, options: ConsumeOptions = {}): QueueConsumer {
    return startPartitionedConsumer<T>(
      {
        name: this.name,
        receiveWaiting: (timeoutMs, max, waitMs, waiters, beforeWait) => this.#receiveWaiting(timeoutMs, max, waitMs, waiters, beforeWait),
        newWaiters: () => new PartitionWaiters(this.#target),
        ackMany: (messages) => this.ackMany(messages),
        nackMany: (messages, delayMs) => this.nackMany(messages, delayMs),
        extend: (message, timeoutMs) => this.extend(message, timeoutMs),
      },
      handler,
      options,
    );
  }

  /**
   * The waiting receive (README "Scaling past one master"): nonblocking receives, and a block on
   * every partition between them. The partitions blocked on are read again before each block: the
   * ones the receive before it asked (so, after a grow, the new count's too).
   */
  #receiveWaiting(
    timeoutMs: number,
    max: number,
    waitMs: number,
    waiters: PartitionWaiters,
    beforeWait?: () => Promise<void>,
  ): Promise<PartitionedMessage<T>[]> {
    return receivePartitionedWaiting(
      {
        partitions: () => this.#receivable(),
        keysOf: (partition) => this.#waitKeysOf(partition),
        waitPointOf: (partition, operation) => this.#waitPointOf(partition, operation),
        receiveOnce: (woken) => this.#receiveOnce(timeoutMs, max, woken),
      },
      waitMs,
      waiters,
      'PartitionedQueue.receive (waiting)',
      beforeWait,
    );
  }

  /** The partition numbers a receive asks now: every partition, the earlier counts' too, until seen drained (drained.ts). */
  #receivable(): number[] {
    return this.#drained.receivable(this.#queues.length, this.#tracker.current, performance.now());
  }

  /**
   * Partition `partition`'s wait keys (its queue name is fixed for good: numbers never change): a
   * grouped partition's are its `…:groups:` keys (README "Message groups"), whose stream takes the
   * sends and whose wake stream the NACKs, ACKs and dead letters that move a group on.
   */
  #waitKeysOf(partition: number): QueueKeys | GroupedQueueKeys {
    let keys = this.#waitKeys[partition];
    if (keys === undefined) {
      const plain = queueKeys(this.#tracker.set.names[partition]!, this.#keyPrefix);
      this.#waitKeys[partition] = keys = this.#grouped ? groupedQueueKeys(plain) : plain;
    }
    return keys;
  }

  /** Partition `partition`'s wait point: the grouped one (one read-only script) on a grouped queue, else the queue's. */
  #waitPointOf(partition: number, operation: string): Promise<WaitPoint> {
    const keys = this.#waitKeysOf(partition);
    return 'ready' in keys ? groupedWaitPoint(this.#target, keys, operation) : waitPoint(this.#target, keys, operation);
  }

  /**
   * The nonblocking receive described at {@link receive}; `woken` (the partitions a waiting
   * receive's block found new entries on) go before the cursor's order, which moves on as usual.
   */
  async #receiveOnce(timeoutMs: number, max: number, woken: readonly number[] = []): Promise<PartitionedMessage<T>[]> {
    await this.#tracker.ensure();
    const numbers = this.#receivable();
    const count = numbers.length;
    const first = Math.min(count, max);
    const start = this.#receiveCursor % count;
    this.#receiveCursor = (start + first) % count;
    const rotation = Array.from({ length: count }, (_, offset) => numbers[(start + offset) % count]!);
    const known = woken.filter((partition) => partition < this.#queues.length);
    const order = known.length === 0 ? rotation : [...new Set([...known, ...rotation])];
    const batch: PartitionedMessage<T>[] = [];
    const round1 = order.slice(0, first);
    const filled = await this.#receiveRound(round1, max, timeoutMs, batch);
    const left = max - batch.length;
    if (left === 0) return batch;
    const round2 = [...order.slice(first), ...filled].slice(0, left);
    if (round2.length > 0) await this.#receiveRound(round2, left, timeoutMs, batch);
    return batch;
  }

  /**
   * Asks each of `partitions` concurrently for its share of `max` (split evenly, earlier ones one
   * more), appending what they lease to `batch`; returns the partitions that filled their share.
   */
  async #receiveRound(partitions: readonly number[], max: number, timeoutMs: number, batch: PartitionedMessage<T>[]): Promise<number[]> {
    const base = Math.floor(max / partitions.length);
    const extra = max % partitions.length;
    const shares = partitions.map((_, position) => base + (position < extra ? 1 : 0));
    const settled = await Promise.allSettled(partitions.map((partition, position) => this.#queues[partition]!.receive(timeoutMs, { max: shares[position]! })));
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    const filled: number[] = [];
    for (const [position, outcome] of settled.entries()) {
      if (outcome.status === 'rejected') continue;
      const partition = partitions[position]!;
      for (const message of outcome.value) batch.push({ ...message, receipt: partitionedReceipt(partition, message.receipt), partition });
      if (outcome.value.length === shares[position]) filled.push(partition);
      if (outcome.value.length === 0) this.#noteEmpty(partition);
    }
    if (failed !== undefined) {
      // A partition that cannot answer for now (a migrating slot's TRYAGAIN, a connection not there
      // yet) must not cost the others' messages a delivery: keep what they leased. Anything else,
      // or nothing leased, is the caller's to see.
      const transient = settled.every((outcome) => outcome.status === 'fulfilled' || (isRespireError(outcome.reason) && outcome.reason.retryable));
      if (transient && batch.length > 0) return filled;
      await releaseLeased(this, batch);
      throw failed.reason;
    }
    return filled;
  }

  /** An old partition (of no current layout) leased nothing: maybe read its length, in the background (drained.ts). */
  #noteEmpty(partition: number): void {
    if (this.#tracker.current.includes(partition)) return;
    const stream = this.#queues[partition]!.streamKey;
    const length = async (): Promise<number> =>
      Number(
        await this.#target.send(stream, ['XLEN', stream], {
          operation: 'PartitionedQueue (drained partition check)',
          keyType: { key: stream, type: 'stream' },
        }),
      );
    void this.#drained.noteEmpty(partition, this.#tracker.grownAt, performance.now(), length);
  }

  /**
   * As {@link ReliableQueue.ack}, on the partition the receipt names.
   * @throws {@link RespireValidationError} before any write when `message` is not a message this
   *   queue's receive returned: a plain queue's receipt, or one naming a partition it does not have
   *   (before any I/O, unless the number is beyond the partitions this instance knows: it then
   *   reads the history first, one GET, as the partition may come from a grow it has not seen).
   */
  async ack(message: MessageReceipt): Promise<boolean> {
    return (await this.ackMany([message]))[0]!;
  }

  /** As {@link ReliableQueue.ackMany}: one round trip per partition named, sent concurrently. */
  async ackMany(messages: readonly MessageReceipt[]): Promise<boolean[]> {
    return this.#settle(messages, (queue, group) => queue.ackMany(group));
  }

  /** As {@link ReliableQueue.nack}, on the partition the receipt names. */
  async nack(message: MessageReceipt, delayMs = 0): Promise<boolean> {
    return (await this.nackMany([message], delayMs))[0]!;
  }

  /** As {@link ReliableQueue.nackMany}: one round trip per partition named, sent concurrently. */
  async nackMany(messages: readonly MessageReceipt[], delayMs = 0): Promise<boolean[]> {
    const delay = toDurationMs('delayMs', delayMs, true);
    return this.#settle(messages, (queue, group) => queue.nackMany(group, delay));
  }

  /** As {@link ReliableQueue.extend}, on the partition the receipt names. */
  async extend(message: MessageReceipt, visibilityTimeoutMs: number): Promise<boolean> {
    return (await this.extendMany([message], visibilityTimeoutMs))[0]!;
  }

  /** As {@link ReliableQueue.extendMany}: one round trip per partition named, sent concurrently. */
  async extendMany(messages: readonly MessageReceipt[], visibilityTimeoutMs: number): Promise<boolean[]> {
    const timeoutMs = toDurationMs('visibilityTimeoutMs', visibilityTimeoutMs);
    return this.#settle(messages, (queue, group) => queue.extendMany(group, timeoutMs));
  }

  /** Checks every receipt before any I/O, then settles each partition's group concurrently; one boolean per message, in order. */
  async #settle(messages: readonly MessageReceipt[], run: (queue: ReliableQueue<T>, group: MessageReceipt[]) => Promise<boolean[]>): Promise<boolean[]> {
    let list: readonly unknown[];
    try {
      // A copy read once: a Proxy or an array-like with throwing getters fails here, as bad input.
      if (!Array.isArray(messages)) throw new TypeError('not an array');
      list = Array.from(messages);
    } catch {
      throw new RespireValidationError('messages', 'must be an array of received messages');
    }
    if (list.length > MAX_BATCH) throw new RespireValidationError('messages', `at most ${MAX_BATCH} per call, got ${list.length}`);
    if (list.length === 0) return [];
    const groups = new Map<number, { indices: number[]; receipts: MessageReceipt[] }>();
    const refuse = (index: number): never => {
      throw new RespireValidationError(
        list.length === 1 ? 'message' : `messages[${index}]`,
        `must be a message returned by this partitioned queue's receive (with its id and a receipt naming one of its ${this.#queues.length} partitions)`,
      );
    };
    const parsedList = list.map((message, index) => {
      const id = safeGet(message, 'id');
      const parsed = parsePartitionedReceipt(safeGet(message, 'receipt'), MAX_PARTITION_NUMBERS);
      return isEntryId(id) && parsed !== undefined ? { id, ...parsed } : refuse(index);
    });
    // A receipt may name a partition of a count this instance has not seen yet: read the history
    // (a GET, no write) before refusing it.
    if (parsedList.some(({ partition }) => partition >= this.#queues.length)) await this.#tracker.learn();
    for (const [index, parsed] of parsedList.entries()) {
      if (parsed.partition >= this.#queues.length) refuse(index);
      const id = parsed.id;
      let group = groups.get(parsed.partition);
      if (group === undefined) groups.set(parsed.partition, (group = { indices: [], receipts: [] }));
      group.indices.push(index);
      group.receipts.push({ id, receipt: parsed.receipt });
    }
    await this.#tracker.ensure();
    const results: boolean[] = new Array<boolean>(list.length);
    await Promise.all(
      [...groups].map(async ([partition, { indices, receipts }]) => {
        const outcomes = await run(this.#queues[partition]!, receipts);
        for (const [position, index] of indices.entries()) results[index] = outcomes[position]!;
      }),
    );
    return results;
  }

  /**
   * The partition (number) of a checked send under the current count: by group ID's hash on a
   * grouped queue, else by deduplication ID's hash, else the next in turn.
   */
  #route(prepared: PreparedSend): number {
    const current = this.#tracker.current;
    const groupId = (prepared as PreparedSend & { readonly groupId?: string }).groupId;
    const key = groupId ?? prepared.deduplicationId;
    if (key !== undefined) return current[partitionOfId(key, current.length)]!;
    const index = this.#sendCursor % current.length;
    this.#sendCursor = (index + 1) % current.length;
    return current[index]!;
  }

  /** Live first copies of the sends' deduplication IDs in earlier counts' partitions (none on a grouped queue). */
  #earlierCopies(prepared: readonly PreparedSend[], partitionOf: readonly number[]): ReturnType<typeof findEarlierCopies> {
    const tracker = this.#tracker;
    if (this.#grouped || tracker.history.generations.length < 2) return Promise.resolve(prepared.map(() => undefined));
    return findEarlierCopies(this.#target, this.#keyPrefix, tracker.history, tracker.set, prepared, (index) => partitionOf[index]!);
  }
}

/**
 * NACKs (delay 0) what a failed receive had leased on other partitions, so the caller that will not
 * get it does not hold it until its visibility timeout; a failure here leaves it to the timeout.
 */
async function releaseLeased(
  queue: { nackMany(messages: readonly MessageReceipt[], delayMs: number): Promise<boolean[]> },
  batch: readonly MessageReceipt[],
): Promise<void> {
  if (batch.length === 0) return;
  await queue.nackMany(batch, 0).catch(() => {});
}
