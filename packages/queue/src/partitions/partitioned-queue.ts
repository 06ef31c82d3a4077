// PartitionedQueue: one queue over N ordinary queues (partitions) whose hash tags spread over a
// Cluster's slots; client-side routing and fan-in (README "Scaling past one master").
import { RespireStateError, RespireValidationError, type RedisClientLike } from '@respire/core-scripts';
import {
  commandTarget,
  queueKeys,
  replyString,
  safeGet,
  toDurationMs,
  toOptions,
  isEntryId,
  type CommandTarget,
  type QueueKeys,
} from '@respire/core-scripts/internal';
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
import { parsePartitionedReceipt, partitionNames, partitionOfId, partitionedMetadataKey, partitionedReceipt, toPartitionCount } from './layout.js';

/** Options of a {@link PartitionedQueue}: a queue's options without `groups`, and the partition count. */
export interface PartitionedQueueOptions<T> extends Omit<ReliableQueueOptions<T>, 'groups'> {
  /**
   * How many partitions (ordinary queues) the queue spreads over, 1..256. Every instance of a name
   * must use the same: the first use records it in the queue's metadata key and every instance
   * checks it there. Required.
   */
  partitions: number;
}

const OPTIONS = [
  'codec',
  'deliveryLimit',
  'keyPrefix',
  'instrumentation',
  'commandTimeoutMs',
  'durability',
  'partitions',
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
 * The partition count recorded for a partitioned queue differs from the instance's `partitions`
 * option: nothing was sent or received. Code `INVALID_STATE`.
 */
export class RespirePartitionCountError extends RespireStateError {
  override name = 'RespirePartitionCountError';
  /** The instance's `partitions` option. */
  readonly expected: number;
  /** What the metadata key holds. */
  readonly recorded: string;

  constructor(queue: string, expected: number, recorded: string) {
    super(
      `PartitionedQueue '${queue}' was created with ${expected} partitions, but its metadata key records ${recorded}: ` +
        'every instance must use the recorded count (README "Scaling past one master"); nothing was done',
    );
    this.expected = expected;
    this.recorded = recorded;
  }
}

/**
 * One queue spread over `partitions` ordinary queues (README "Scaling past one master"), each in
 * its own hash tag, chosen so the partitions spread over the slot range and so over a Cluster's
 * masters; on a standalone server all live on the one server. The API is {@link ReliableQueue}'s
 * (send, sendWithResult, sendMany, receive with or without `waitMs`, ack, ackMany, nack, nackMany,
 * extend, extendMany, consume), with the same options, limits and errors, except: no message groups.
 *
 * Each message lives in one partition: `id` is its entry ID there, `partition` says which, and the
 * receipt names the partition, so ack, nack and extend go straight to it. Delivery limit and dead
 * letters are per partition (`deadLetterStreamKeys[partition]`).
 *
 * The first call of an instance checks the partition count recorded in the metadata key (one
 * `SET NX GET`, recording it when absent); a different count throws {@link RespirePartitionCountError}.
 */
export class PartitionedQueue<T> {
  /** The queue name. */
  readonly name: string;
  /** The number of partitions. */
  readonly partitions: number;
  /** Each partition's queue name, by partition: ordinary queue names, reserved for this queue. */
  readonly partitionNames: readonly string[];
  /** Each partition's stream, by partition. */
  readonly streamKeys: readonly string[];
  /** Each partition's dead-letter stream, by partition (fields as {@link ReliableQueue.deadLetterStreamKey}'s). */
  readonly deadLetterStreamKeys: readonly string[];
  /** The string key recording the partition count. */
  readonly metadataKey: string;
  /** Deliveries before dead-lettering, in every partition. */
  readonly deliveryLimit: number;

  readonly #queues: readonly ReliableQueue<T>[];
  readonly #target: CommandTarget;
  #checked: Promise<void> | undefined;
  /** Each partition's keys, for the waiting receive's wait points. */
  readonly #waitKeys: readonly QueueKeys[];
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
    this.partitions = toPartitionCount(partitions);
    this.name = name;
    this.partitionNames = partitionNames(name, this.partitions);
    this.#queues = this.partitionNames.map((partitionName) => new ReliableQueue<T>(client, partitionName, queueOptions as ReliableQueueOptions<T>));
    const commandTimeoutMs = options.commandTimeoutMs === undefined ? undefined : toDurationMs('commandTimeoutMs', options.commandTimeoutMs, true);
    this.#target = commandTarget(client, 'client', { commandTimeoutMs, durability: options.durability });
    this.streamKeys = this.#queues.map((queue) => queue.streamKey);
    this.deadLetterStreamKeys = this.#queues.map((queue) => queue.deadLetterStreamKey);
    this.deliveryLimit = this.#queues[0]!.deliveryLimit;
    this.#waitKeys = this.partitionNames.map((partitionName) => queueKeys(partitionName, options.keyPrefix));
    this.#receiveCursor = Math.floor(Math.random() * this.partitions);
    this.#sendCursor = Math.floor(Math.random() * this.partitions);
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
    const partition = this.#route(prepared);
    await this.#checkPartitionCount();
    const result = await steps.send(this.#queues[partition]!, prepared);
    return { id: result.id, duplicate: result.duplicate, partition };
  }

  /**
   * As {@link ReliableQueue.sendMany}: every item is checked and encoded before any I/O (one bad item
   * sends nothing), then the items are grouped by partition, in order within each, and each
   * partition touched gets one round trip, all sent concurrently. A failure of one partition's
   * call rejects the whole call although other partitions may have appended theirs: retry with
   * deduplication IDs, as after a lost reply.
   * @returns one {@link PartitionedSendResult} per item, in order.
   */
  async sendMany(items: readonly SendManyItem<T>[]): Promise<PartitionedSendResult[]> {
    const steps = queueSendSteps();
    const prepared = steps.prepareMany(this.#queues[0]!, items);
    if (prepared.length === 0) return [];
    const byPartition = new Map<number, number[]>();
    const partitionOf = prepared.map((item, index) => {
      const partition = this.#route(item);
      const indices = byPartition.get(partition);
      if (indices === undefined) byPartition.set(partition, [index]);
      else indices.push(index);
      return partition;
    });
    await this.#checkPartitionCount();
    const results: PartitionedSendResult[] = new Array<PartitionedSendResult>(prepared.length);
    await Promise.all(
      [...byPartition].map(async ([partition, indices]) => {
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
    return results;
  }

  /**
   * As {@link ReliableQueue.receive}. The nonblocking receive draws from the partitions in at most two
   * rounds of concurrent calls, so at most 2 round trips after the first call's metadata check, and
   * at most 2 × min(partitions, max) commands:
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
   * client (one XREAD names every partition's streams), `partitions` on a Cluster client (an XREAD
   * names keys of one slot only; each connects to its partition's master alone).
   *
   * @throws as {@link ReliableQueue.receive}, for the waiting receive too. When one partition's call
   *   fails, the call throws its error after NACKing (delay 0) what the other partitions leased in
   *   this call, so it is receivable again at once (the deliveries still count toward the delivery
   *   limit); if that NACK fails too, those messages are redelivered after the visibility timeout.
   */
  async receive(visibilityTimeoutMs: number, options: ReceiveOptions = {}): Promise<PartitionedMessage<T>[]> {
    const { timeoutMs, max, waitMs } = toReceiveArguments(visibilityTimeoutMs, options);
    if (waitMs === 0) return this.#receiveOnce(timeoutMs, max);
    return withPartitionWaiters(this.#target, this.partitions, (waiters) => this.#receiveWaiting(timeoutMs, max, waitMs, waiters));
  }

  /**
   * Starts the queue's consumer (as {@link ReliableQueue.consume}; README "Consuming") on every
   * partition: the same options, concurrency bound, lease extension, batched ACKs and NACKs (split
   * by partition, one round trip each) and stop. It waits with the waiting receive on the
   * blocking connections {@link receive} describes, held until `stop()`.
   * @throws {@link RespireValidationError} for a handler that is not a function or a bad option (before anything starts).
   */
  consume(handler: PartitionedConsumeHandler<T>, options: ConsumeOptions = {}): QueueConsumer {
    return startPartitionedConsumer<T>(
      {
        name: this.name,
        receiveWaiting: (timeoutMs, max, waitMs, waiters, beforeWait) => this.#receiveWaiting(timeoutMs, max, waitMs, waiters, beforeWait),
        newWaiters: () => new PartitionWaiters(this.#target, this.partitions),
        ackMany: (messages) => this.ackMany(messages),
        nackMany: (messages, delayMs) => this.nackMany(messages, delayMs),
        extend: (message, timeoutMs) => this.extend(message, timeoutMs),
      },
      handler,
      options,
    );
  }

  /** The waiting receive (README "Scaling past one master"): nonblocking receives, and a block on every partition between them. */
  #receiveWaiting(
    timeoutMs: number,
    max: number,
    waitMs: number,
    waiters: PartitionWaiters,
    beforeWait?: () => Promise<void>,
  ): Promise<PartitionedMessage<T>[]> {
    return receivePartitionedWaiting(
      { target: this.#target, keys: this.#waitKeys, receiveOnce: (woken) => this.#receiveOnce(timeoutMs, max, woken) },
      waitMs,
      waiters,
      'PartitionedQueue.receive (waiting)',
      beforeWait,
    );
  }

  /**
   * The nonblocking receive described at {@link receive}; `woken` (the partitions a waiting
   * receive's block found new entries on) go before the cursor's order, which moves on as usual.
   */
  async #receiveOnce(timeoutMs: number, max: number, woken: readonly number[] = []): Promise<PartitionedMessage<T>[]> {
    await this.#checkPartitionCount();
    const count = this.partitions;
    const first = Math.min(count, max);
    const start = this.#receiveCursor;
    this.#receiveCursor = (start + first) % count;
    const rotation = Array.from({ length: count }, (_, offset) => (start + offset) % count);
    const order = woken.length === 0 ? rotation : [...new Set([...woken, ...rotation])];
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
    }
    if (failed !== undefined) {
      await releaseLeased(this, batch);
      throw failed.reason;
    }
    return filled;
  }

  /**
   * As {@link ReliableQueue.ack}, on the partition the receipt names.
   * @throws {@link RespireValidationError} before any I/O when `message` is not a message this
   *   queue's receive returned: a plain queue's receipt, or one naming a partition it does not have.
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
    for (const [index, message] of list.entries()) {
      const id = safeGet(message, 'id');
      const parsed = parsePartitionedReceipt(safeGet(message, 'receipt'), this.partitions);
      if (!isEntryId(id) || parsed === undefined) {
        throw new RespireValidationError(
          list.length === 1 ? 'message' : `messages[${index}]`,
          `must be a message returned by this partitioned queue's receive (with its id and a receipt naming one of its ${this.partitions} partitions)`,
        );
      }
      let group = groups.get(parsed.partition);
      if (group === undefined) groups.set(parsed.partition, (group = { indices: [], receipts: [] }));
      group.indices.push(index);
      group.receipts.push({ id, receipt: parsed.receipt });
    }
    await this.#checkPartitionCount();
    const results: boolean[] = new Array<boolean>(list.length);
    await Promise.all(
      [...groups].map(async ([partition, { indices, receipts }]) => {
        const outcomes = await run(this.#queues[partition]!, receipts);
        for (const [position, index] of indices.entries()) results[index] = outcomes[position]!;
      }),
    );
    return results;
  }

  /** The partition of a checked send: by deduplication ID's hash, else the next in turn. */
  #route(prepared: PreparedSend): number {
    if (prepared.deduplicationId !== undefined) return partitionOfId(prepared.deduplicationId, this.partitions);
    const partition = this.#sendCursor;
    this.#sendCursor = (partition + 1) % this.partitions;
    return partition;
  }

  /**
   * Records the partition count in the metadata key when absent and checks it (`SET NX GET`: one
   * round trip, once per instance). A failed check is repeated by the next call; a mismatch is
   * kept: every later call throws it too.
   */
  #checkPartitionCount(): Promise<void> {
    if (this.#checked === undefined) {
      const check = this.#readPartitionCount();
      this.#checked = check;
      check.catch((error: unknown) => {
        if (!(error instanceof RespirePartitionCountError) && this.#checked === check) this.#checked = undefined;
      });
    }
    return this.#checked;
  }

  async #readPartitionCount(): Promise<void> {
    const key = this.metadataKey;
    const recorded = await this.#target.send(key, ['SET', key, String(this.partitions), 'NX', 'GET'], {
      operation: 'PartitionedQueue (partition count check)',
      keyType: { key, type: 'string' },
    });
    if (recorded === null || recorded === undefined) return;
    const text = replyString(recorded);
    if (text !== String(this.partitions)) throw new RespirePartitionCountError(this.name, this.partitions, text);
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
