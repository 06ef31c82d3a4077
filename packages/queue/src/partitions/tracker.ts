// What one PartitionedQueue instance knows of its queue's partition history: checked at its first
// call, refreshed at most every REFRESH_MS, and the partition queues of every count it has had.
import { replyString, type CommandTarget } from '@respire/core-scripts/internal';
import { RespireStateError } from '@respire/core-scripts';
import { currentCount, extendsHistory, formatHistory, parseHistory, partitionSet, type PartitionHistory, type PartitionSet } from './history.js';

/** How old an instance's view of the history may get before a call reads it again, in ms. */
export const REFRESH_MS = 1000;

/**
 * The partition count recorded for a partitioned queue does not admit the instance's `partitions`
 * option (neither the current count nor an earlier one), or its grouping differs, or the history
 * was rewritten instead of grown: nothing was sent or received. Code `INVALID_STATE`.
 */
export class RespirePartitionCountError extends RespireStateError {
  override name = 'RespirePartitionCountError';
  /** The instance's `partitions` option. */
  readonly expected: number;
  /** What the metadata key holds. */
  readonly recorded: string;

  constructor(queue: string, expected: number, recorded: string, advice = 'every instance must use a count the queue has had') {
    super(
      `PartitionedQueue '${queue}' was created with ${expected} partitions, but its metadata key records ${recorded}: ` +
        `${advice} (README "Scaling past one master"); nothing was done`,
    );
    this.expected = expected;
    this.recorded = recorded;
  }
}

/** One instance's view: its history, its partitions by number, and the queue of each. */
export class PartitionTracker<Q> {
  #history: PartitionHistory;
  #set: PartitionSet;
  #queues: Q[];
  #inFlight: Promise<void> | undefined;
  #checkedAt = -Infinity;
  #failed: RespirePartitionCountError | undefined;
  // False until a recorded history is read: the view is then the option's alone, a guess.
  #adopted = false;
  #grownAt = -Infinity;
  readonly #byName = new Map<string, Q>();

  readonly queue: string;
  readonly metadataKey: string;
  /** The instance's `partitions` option. */
  readonly option: number;
  readonly target: CommandTarget;
  readonly make: (partitionName: string) => Q;

  constructor(queue: string, metadataKey: string, option: number, grouped: boolean, target: CommandTarget, make: (partitionName: string) => Q) {
    this.queue = queue;
    this.metadataKey = metadataKey;
    this.option = option;
    this.target = target;
    this.make = make;
    this.#history = { grouped, generations: [{ count: option, sinceMs: 0 }] };
    this.#set = partitionSet(queue, this.#history);
    this.#queues = this.#queuesOf(this.#set);
  }

  get history(): PartitionHistory {
    return this.#history;
  }

  get set(): PartitionSet {
    return this.#set;
  }

  /** The queue of every partition, by number. */
  get queues(): readonly Q[] {
    return this.#queues;
  }

  /** When this view last took in a grow (`performance.now()`, ms); -Infinity before any. */
  get grownAt(): number {
    return this.#grownAt;
  }

  /** The numbers of the current layout's partitions, by index. */
  get current(): readonly number[] {
    return this.#set.layouts.at(-1)!;
  }

  /**
   * Makes sure the view is checked and at most {@link REFRESH_MS} old: `SET key <value> NX GET`,
   * recording the instance's option (or, later, the history it knows) when the key is missing.
   * Concurrent calls share one read. A failed first read throws and is repeated by the next call;
   * a failed refresh (transport, server, key type) keeps the view it had, which loses nothing
   * (earlier partitions keep being drained), and is tried again {@link REFRESH_MS} later. A
   * mismatch is kept: every later call throws it.
   */
  ensure(): Promise<void> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    if (this.#inFlight !== undefined) return this.#inFlight;
    const started = performance.now();
    if (started - this.#checkedAt <= REFRESH_MS) return Promise.resolve();
    const first = this.#checkedAt === -Infinity;
    const check = this.#read(true)
      .then(
        () => {
          this.#checkedAt = started;
        },
        (error: unknown) => {
          if (first || error instanceof RespirePartitionCountError) throw error;
          this.#checkedAt = started;
        },
      )
      .finally(() => {
        this.#inFlight = undefined;
      });
    this.#inFlight = check;
    return check;
  }

  /** Reads the history without recording anything (GET): for receipts naming a partition this view lacks. */
  async learn(): Promise<void> {
    if (this.#failed !== undefined) throw this.#failed;
    await this.#read(false);
  }

  async #read(record: boolean): Promise<void> {
    const key = this.metadataKey;
    const mine = formatHistory(this.#history);
    const command = record ? ['SET', key, mine, 'NX', 'GET'] : ['GET', key];
    const reply = await this.target.send(key, command, {
      operation: 'PartitionedQueue (partition count check)',
      keyType: { key, type: 'string' },
    });
    if (reply === null || reply === undefined) {
      if (record) this.#adopted = true;
      return;
    }
    const text = replyString(reply);
    if (text === mine) {
      this.#adopted = true;
      return;
    }
    const fail = (advice?: string): never => {
      this.#failed = new RespirePartitionCountError(this.queue, this.option, text, advice);
      throw this.#failed;
    };
    const history = parseHistory(text);
    if (history === undefined) return fail('it is not a partition history this version can read');
    if (history.grouped !== this.#history.grouped) return fail(history.grouped ? 'the queue is grouped (the `groups` option)' : 'the queue is not grouped');
    if (!history.generations.some(({ count }) => count === this.option)) {
      return fail(
        this.option > currentCount(history)
          ? `to grow it, call PartitionedQueue.grow(client, name, ${this.option}) first`
          : 'every instance must use a count the queue has had (the current one, or an earlier one it then follows)',
      );
    }
    // A read answered after a newer one (a retried command): the view already holds more.
    if (this.#adopted && extendsHistory(this.#history, history)) return;
    if (this.#adopted && !extendsHistory(history, this.#history)) return fail('the history was rewritten, not grown');
    this.#adopt(history);
  }

  #adopt(history: PartitionHistory): void {
    // Once adopted, a history only grows, so numbers already handed out keep their partitions.
    if (history.generations.length > 1 && (!this.#adopted || history.generations.length > this.#history.generations.length)) {
      this.#grownAt = performance.now();
    }
    this.#set = partitionSet(this.queue, history);
    this.#queues = this.#queuesOf(this.#set);
    this.#history = history;
    this.#adopted = true;
  }

  #queuesOf(set: PartitionSet): Q[] {
    return set.names.map((name) => {
      let queue = this.#byName.get(name);
      if (queue === undefined) this.#byName.set(name, (queue = this.make(name)));
      return queue;
    });
  }
}
