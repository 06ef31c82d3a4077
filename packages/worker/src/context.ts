// What a run shares with its readers and deliveries, and which delivery of a prefetched entry is the newest.
import type { ResolvedOptions } from './options.js';
import type { Connections } from './connections.js';

/**
 * What the reader loop, the delivery pipeline and group administration share of one run (one
 * `start()` .. `stop()`). They depend on this, not on each other or on the run itself.
 */
export interface RunContext {
  readonly options: ResolvedOptions;
  /** Every connection the run opens, closed when it stops. */
  readonly connections: Connections;
  /** True from the moment `stop()` is called (or a fault stops the run). */
  readonly stopping: boolean;
  /** Aborts when `stopping` becomes true: ends backoff waits of reads, recovery and reconnects. */
  readonly stopSignal: AbortSignal;
  /** True once the shutdown timeout expired: handler results are no longer completed. */
  readonly hardAborted: boolean;
  /** The abort controllers of running handlers, aborted when the shutdown timeout expires. */
  readonly inflight: Set<AbortController>;
  /** Which delivery of each prefetched entry is the newest in this run (see {@link NewestDeliveries}). */
  readonly newest: NewestDeliveries;
  /** Records the first fault (a `RespireError`) and stops the run. */
  fault(error: unknown): void;
}

/**
 * Entry ID → the newest delivery count any reader of this run received, and how many readers
 * still hold a delivery of it, so the map stays bounded by the prefetch. A prefetched entry that
 * a sibling reader recovered meanwhile is superseded and must not run its handler again.
 */
export class NewestDeliveries {
  readonly #seen = new Map<string, { count: number; holders: number }>();
  /** With one reader no delivery can be superseded within the run: nothing to record. */
  readonly #siblings: boolean;

  constructor(readers: number) {
    this.#siblings = readers > 1;
  }

  /** Records that a reader now holds delivery `count` of entry `id`. */
  hold(id: string, count: number): void {
    if (!this.#siblings) return;
    const seen = this.#seen.get(id) ?? { count: 0, holders: 0 };
    seen.count = Math.max(seen.count, count);
    seen.holders++;
    this.#seen.set(id, seen);
  }

  /** True when a newer delivery of `id` than `count` was received by this run. */
  superseded(id: string, count: number): boolean {
    if (!this.#siblings) return false;
    return (this.#seen.get(id)?.count ?? 0) > count;
  }

  /** Forgets one reader's hold once its delivery is handled or skipped. */
  release(id: string): void {
    if (!this.#siblings) return;
    const seen = this.#seen.get(id);
    if (seen && --seen.holders <= 0) this.#seen.delete(id);
  }
}
