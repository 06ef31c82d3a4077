// A partitioned queue's waiting receive: blocks on every partition at once and leases only by nonblocking receives (README "Scaling past one master").
import { isRespireError } from '@respire/core-scripts';
import type { CommandTarget, QueueKeys } from '@respire/core-scripts/internal';
import { Waiter, waitPoint, type BlockAlso, type WaitPoint } from '../wait.js';

/** One blocking connection and the partitions its XREAD watches. */
interface Watch {
  readonly waiter: Waiter;
  readonly partitions: readonly number[];
  /** True while its XREAD BLOCK is unanswered (it may outlive the wait that sent it). */
  inFlight: boolean;
}

/** The wait in progress: what ends it, and the cursors a watch (re)started for it blocks from. */
interface Current {
  readonly points: readonly WaitPoint[];
  readonly keys: readonly Pick<QueueKeys, 'stream'>[];
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
 * A block left unanswered when a wait ends (another partition woke it) stays in flight and counts
 * for the next wait: it was sent from cursors no entry has followed since (else it would have
 * been answered), so it still wakes on the next send or NACK of its partitions. Nothing is leased
 * by a block: only the receive that follows it leases, so no lease is ever taken and dropped.
 */
export class PartitionWaiters {
  readonly #watches: readonly Watch[];
  #current: Current | undefined;
  #closed = false;

  /**
   * @param source - the queue's command target; its client is duplicated for each connection, on first use.
   * @param partitions - the partition count.
   */
  constructor(source: CommandTarget, partitions: number) {
    const all = Array.from({ length: partitions }, (_, partition) => partition);
    const groups = source.isCluster ? all.map((partition) => [partition]) : [all];
    this.#watches = groups.map((group) => ({ waiter: new Waiter(source), partitions: group, inFlight: false }));
  }

  /** How many blocking connections this holds at most: `partitions` on a Cluster client, else 1. */
  get connections(): number {
    return this.#watches.length;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Closes every connection (blocks in progress reject unheard) and ends a wait in progress; later waits end at once. */
  close(): void {
    this.#closed = true;
    for (const watch of this.#watches) watch.waiter.close();
    this.#current?.finish([]);
  }

  /**
   * Waits until a block is answered with an entry (a send or a NACK on some partition after its
   * cursor in `points`), or `blockMs` passes, or {@link close}. A watch whose own block time ends
   * earlier (one left from an earlier, shorter wait) is sent again for what is left.
   * @returns the partitions whose streams the answering block named (none when the time ran out or on close).
   * @throws the first error a block sent for this wait meets (its connection is then closed; the
   *   next block opens a new one). A block left from an earlier wait that fails is sent again instead.
   */
  wait(points: readonly WaitPoint[], keys: readonly Pick<QueueKeys, 'stream'>[], blockMs: number, operation: string): Promise<readonly number[]> {
    if (this.#closed) return Promise.resolve([]);
    return new Promise<readonly number[]>((resolve, reject) => {
      const timer = setTimeout(() => current.finish([]), blockMs);
      const current: Current = {
        points,
        keys,
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
      for (const watch of this.#watches) if (!watch.inFlight) this.#start(watch, current);
    });
  }

  #start(watch: Watch, current: Current): void {
    const blockMs = Math.ceil(current.endsAt - performance.now());
    if (blockMs < 1) return;
    const streams: BlockAlso[] = [];
    const partitionOf = new Map<string, number>();
    for (const partition of watch.partitions) {
      const point = current.points[partition]!;
      streams.push({ stream: current.keys[partition]!.stream, cursor: point.cursor });
      partitionOf.set(current.keys[partition]!.stream, partition);
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
export async function withPartitionWaiters<M>(source: CommandTarget, partitions: number, run: (waiters: PartitionWaiters) => Promise<M[]>): Promise<M[]> {
  const waiters = new PartitionWaiters(source, partitions);
  try {
    return await run(waiters);
  } finally {
    waiters.close();
  }
}

/** What the partitioned waiting receive needs of its queue. */
export interface PartitionedWaitingSource<M> {
  /** The queue's command target (its client), for the wait points. */
  readonly target: CommandTarget;
  /** Each partition's keys, by partition. */
  readonly keys: readonly Pick<QueueKeys, 'stream' | 'deadlines' | 'wake'>[];
  /** One nonblocking receive over the partitions; `first`: partitions a block found new entries on, asked before the others. */
  receiveOnce(first: readonly number[]): Promise<M[]>;
}

/**
 * The waiting receive of a partitioned queue, as {@link receiveWaiting} is a queue's: a
 * nonblocking receive; when empty, every partition's wait point (one read-only script each, all
 * concurrent) and a block on every partition from its cursor until the earliest deadline of any
 * partition or the end of the wait; then receive again. Returns an empty batch at once once
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
    const points = await Promise.all(source.keys.map((keys) => waitPoint(source.target, keys, operation)));
    if (waiters.closed) return batch;
    // A deadline passing wakes nobody: block no later than the earliest (at least 1 ms).
    let untilDueMs = Number.POSITIVE_INFINITY;
    for (const point of points) if (point.untilDueMs !== undefined) untilDueMs = Math.min(untilDueMs, point.untilDueMs);
    const blockMs = Math.max(1, Math.min(remaining, untilDueMs + 1));
    try {
      woken = await waiters.wait(points, source.keys, blockMs, operation);
      failures = 0;
    } catch (error) {
      if (waiters.closed) return batch;
      if (isRespireError(error, 'TRANSPORT_FAILED') && ++failures < 3) continue;
      throw error;
    }
    // Whatever ended the wait, the loop receives once more before it returns.
  }
}
