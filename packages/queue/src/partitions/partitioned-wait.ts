// A partitioned queue's waiting receive: blocks on every partition at once and leases only by nonblocking receives (README "Scaling past one master").
import { isRespireError } from '@respire/core-scripts';
import type { CommandTarget, QueueKeys } from '@respire/core-scripts/internal';
import { Waiter, type BlockAlso, type WaitPoint } from '../wait.js';

/** One blocking connection and the partitions its XREAD watches. */
interface Watch {
  readonly waiter: Waiter;
  readonly partitions: readonly number[];
  /** True while its XREAD BLOCK is unanswered (it may outlive the wait that sent it). */
  inFlight: boolean;
}

/** The wait in progress: what ends it, and the cursors a watch (re)started for it blocks from. */
interface Current {
  /** Each partition's wait point and stream, by partition number. */
  readonly points: ReadonlyMap<number, WaitPoint>;
  readonly keys: ReadonlyMap<number, Pick<QueueKeys, 'stream'>>;
  readonly endsAt: number;
  readonly operation: string;
  /** Ends the wait: with the partitions a block found new entries on, or with an error. */
  finish(woken: readonly number[], error?: unknown): void;
}

/**
 * The blocking connections of a partitioned queue's waiting receive, or of its consumer for its
 * lifetime. An XREAD on a Cluster may only name keys of one hash slot, and every partition is in
 * its own slot, so on a Cluster client there is one connection per partition (each a duplicate
 * of the caller's Cluster client that connects only to its partition's master); on a standalone
 * client one connection whose single XREAD names every partition's stream and wake stream.
 *
 * The partitions are those of each wait, so they follow a grow (README "Scaling past one master":
 * "Growing the partition count"): on a Cluster a partition first waited on gets its own connection
 * and one no longer waited on (drained) has its connection closed; on a standalone client a wait
 * on other partitions than the connection's block in flight replaces that connection.
 *
 * A block left unanswered when a wait ends (another partition woke it) stays in flight and counts
 * for the next wait: it was sent from cursors no entry has followed since (else it would have
 * been answered), so it still wakes on the next send or NACK of its partitions. Nothing is leased
 * by a block: only the receive that follows it leases, so no lease is ever taken and dropped.
 */
export class PartitionWaiters {
  readonly #source: CommandTarget;
  /** On a Cluster client one watch per partition number; on a standalone client one, under key -1. */
  readonly #watches = new Map<number, Watch>();
  #current: Current | undefined;
  #closed = false;

  /** @param source - the queue's command target; its client is duplicated for each connection, on first use. */
  constructor(source: CommandTarget) {
    this.#source = source;
  }

  /** How many blocking connections this holds at most now: one per partition of the last wait on a Cluster client, else 1 (0 before any wait). */
  get connections(): number {
    return this.#watches.size;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Closes every connection (blocks in progress reject unheard) and ends a wait in progress; later waits end at once. */
  close(): void {
    this.#closed = true;
    for (const watch of this.#watches.values()) watch.waiter.close();
    this.#current?.finish([]);
  }

  /**
   * Waits until a block is answered with an entry (a send or a NACK on some partition after its
   * cursor in `points`; on a grouped partition also an ACK or dead letter that moves a group on), or `blockMs` passes, or {@link close}. `partitions` are the partition
   * numbers to block on; `points` and `keys` are aligned with them. A watch whose own block time
   * ends earlier (one left from an earlier, shorter wait) is sent again for what is left.
   * @returns the partitions whose streams the answering block named (none when the time ran out or on close).
   * @throws the first error a block sent for this wait meets (its connection is then closed; the
   *   next block opens a new one). A block left from an earlier wait that fails is sent again instead.
   */
  wait(
    partitions: readonly number[],
    points: readonly WaitPoint[],
    keys: readonly Pick<QueueKeys, 'stream'>[],
    blockMs: number,
    operation: string,
  ): Promise<readonly number[]> {
    if (this.#closed) return Promise.resolve([]);
    this.#watchOnly(partitions);
    return new Promise<readonly number[]>((resolve, reject) => {
      const timer = setTimeout(() => current.finish([]), blockMs);
      const current: Current = {
        points: new Map(partitions.map((partition, index) => [partition, points[index]!])),
        keys: new Map(partitions.map((partition, index) => [partition, keys[index]!])),
        endsAt: performance.now() + blockMs,
        operation,
        finish: (woken, error?: unknown) => {
          if (this.#current !== current) return;
          this.#current = undefined;
          clearTimeout(timer);
          if (error === undefined) resolve(woken);
          else reject(error);
        },
      };
      this.#current = current;
      for (const watch of this.#watches.values()) if (!watch.inFlight) this.#start(watch, current);
    });
  }

  /**
   * Makes the watches cover exactly `partitions`: on a Cluster client opens (lazily) a watch for
   * each new one and closes those of partitions no longer waited on; on a standalone client
   * replaces the one watch when its partitions differ (a block in flight names only its own).
   */
  #watchOnly(partitions: readonly number[]): void {
    if (this.#source.isCluster) {
      const wanted = new Set(partitions);
      for (const [partition, watch] of this.#watches) {
        if (wanted.has(partition)) continue;
        watch.waiter.close();
        this.#watches.delete(partition);
      }
      for (const partition of partitions) {
        if (!this.#watches.has(partition)) this.#watches.set(partition, { waiter: new Waiter(this.#source), partitions: [partition], inFlight: false });
      }
      return;
    }
    const watch = this.#watches.get(-1);
    const same =
      watch !== undefined && watch.partitions.length === partitions.length && watch.partitions.every((partition, index) => partition === partitions[index]);
    if (same) return;
    watch?.waiter.close();
    this.#watches.set(-1, { waiter: new Waiter(this.#source), partitions: [...partitions], inFlight: false });
  }

  #start(watch: Watch, current: Current): void {
    const blockMs = Math.ceil(current.endsAt - performance.now());
    if (blockMs < 1) return;
    const streams: BlockAlso[] = [];
    const partitionOf = new Map<string, number>();
    for (const partition of watch.partitions) {
      const point = current.points.get(partition)!;
      const stream = current.keys.get(partition)!.stream;
      streams.push({ stream, cursor: point.cursor });
      partitionOf.set(stream, partition);
      if (point.also !== undefined) {
        streams.push(point.also);
        partitionOf.set(point.also.stream, partition);
      }
    }
    const [first, ...also] = streams as [BlockAlso, ...BlockAlso[]];
    watch.inFlight = true;
    watch.waiter.blockFor(first.stream, first.cursor, blockMs, current.operation, also).then(
      (named) => {
        watch.inFlight = false;
        const now = this.#current;
        if (now === undefined) return;
        const woken = [...new Set(named.map((stream) => partitionOf.get(stream)).filter((partition) => partition !== undefined))];
        if (named.length > 0) now.finish(woken);
        // Its own block time ended before this wait's: watch again, from this wait's cursors.
        else if (!watch.waiter.closed) this.#start(watch, now);
      },
      (error: unknown) => {
        watch.inFlight = false;
        const now = this.#current;
        // Between waits nobody hears it: its connection is closed and the next wait opens another.
        if (now === undefined) return;
        // A block of this wait ends it with its error (counted by the caller). One left from an
        // earlier wait is watched again on a new connection: connections killed together (a
        // network blip) count as one failure, not one per partition.
        if (now === current) now.finish([], error);
        else if (!watch.waiter.closed) this.#start(watch, now);
      },
    );
  }
}

/** Runs one waiting receive on blocking connections of its own, closed on every path. */
export async function withPartitionWaiters<M>(source: CommandTarget, run: (waiters: PartitionWaiters) => Promise<M[]>): Promise<M[]> {
  const waiters = new PartitionWaiters(source);
  try {
    return await run(waiters);
  } finally {
    waiters.close();
  }
}

/**
 * Longest one block of a partitioned waiting receive, in ms. A grow writes only the metadata key,
 * which no XREAD can watch, so a wait (or a consumer) started before a grow blocks on the new
 * partitions at most this long after it (plus the history's one-second refresh): a message sent
 * to a new partition is received within about 6 s. Costs an idle waiting receive one nonblocking
 * receive and its wait points every 5 s.
 */
export const FOLLOW_GROW_MS = 5000;

/** What the partitioned waiting receive needs of its queue. */
export interface PartitionedWaitingSource<M> {
  /** The partition numbers to block on now: read again before every block, so a wait follows a grow. */
  partitions(): readonly number[];
  /** The stream whose appends (sends) wake a block on partition `partition`: a grouped partition's is its `…:groups:stream`. */
  keysOf(partition: number): Pick<QueueKeys, 'stream'>;
  /**
   * Partition `partition`'s wait point: `waitPoint` for an ungrouped partition, `groupedWaitPoint`
   * for a grouped one (its wake stream also takes the ACKs and dead letters that move a group on).
   */
  waitPointOf(partition: number, operation: string): Promise<WaitPoint>;
  /** One nonblocking receive over the partitions; `first`: partitions a block found new entries on, asked before the others. */
  receiveOnce(first: readonly number[]): Promise<M[]>;
}

/**
 * The waiting receive of a partitioned queue, as {@link receiveWaiting} is a queue's: a
 * nonblocking receive; when empty, every partition's wait point (one read-only script each, all
 * concurrent) and a block on every partition from its cursor until the earliest deadline of any
 * partition or the end of the wait; then receive again. The partitions blocked on are
 * `source.partitions()` as it is after each receive (which reads the history when it is over a
 * second old), so a wait started before a grow blocks on the new partitions too, at most
 * {@link FOLLOW_GROW_MS} after it. Returns an empty batch at once once
 * `waiters` is closed. `beforeWait` runs before the wait points are read.
 * @throws what the receive throws; a killed, reset or frozen blocking connection is replaced
 *   twice, then the third failure in a row is thrown (`RespireTransportError`).
 */
export async function receivePartitionedWaiting<M>(
  source: PartitionedWaitingSource<M>,
  waitMs: number,
  waiters: PartitionWaiters,
  operation: string,
  beforeWait?: () => Promise<void>,
): Promise<M[]> {
  const started = performance.now();
  let failures = 0;
  let woken: readonly number[] = [];
  for (;;) {
    if (waiters.closed) return [];
    const batch = await source.receiveOnce(woken);
    woken = [];
    if (batch.length > 0 || waiters.closed) return batch;
    const remaining = Math.ceil(waitMs - (performance.now() - started));
    if (remaining < 1) return batch;
    if (beforeWait) await beforeWait();
    if (waiters.closed) return batch;
    const partitions = source.partitions();
    const keys = partitions.map((partition) => source.keysOf(partition));
    const points = await Promise.all(partitions.map((partition) => source.waitPointOf(partition, operation)));
    if (waiters.closed) return batch;
    // A deadline passing wakes nobody: block no later than the earliest (at least 1 ms).
    let untilDueMs = Number.POSITIVE_INFINITY;
    for (const point of points) if (point.untilDueMs !== undefined) untilDueMs = Math.min(untilDueMs, point.untilDueMs);
    // Nothing wakes a block when the queue grows: end it by FOLLOW_GROW_MS so the next receive reads the history.
    const blockMs = Math.max(1, Math.min(remaining, untilDueMs + 1, FOLLOW_GROW_MS));
    try {
      woken = await waiters.wait(partitions, points, keys, blockMs, operation);
      failures = 0;
    } catch (error) {
      if (waiters.closed) return batch;
      if (isRespireError(error, 'TRANSPORT_FAILED') && ++failures < 3) continue;
      throw error;
    }
    // Whatever ended the wait, the loop receives once more before it returns.
  }
}
