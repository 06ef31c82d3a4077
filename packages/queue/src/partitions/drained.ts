// Partitions a grow left behind (in no layout of the current count), skipped by an instance's
// receives once seen empty and asked again every RECHECK_MS (README "Scaling past one master":
// "Growing the partition count"): the cost of a grow fades once its old partitions are drained.
import { REFRESH_MS } from './tracker.js';

/**
 * How long after an instance learns of a grow it keeps asking every old partition, in ms: the
 * time other instances take to follow (REFRESH_MS) and more, so their last sends by the earlier
 * count are not left waiting for a recheck.
 */
export const DRAIN_GRACE_MS = 2 * REFRESH_MS;

/**
 * How long an old partition seen empty is skipped, in ms: a message that still reaches it (from
 * an instance paused since before the grow, or a send retried late) waits at most this long.
 */
export const RECHECK_MS = 60_000;

/** One instance's record of old partitions seen empty (times by `performance.now()`, in ms). */
export class DrainedPartitions {
  readonly #emptyAt = new Map<number, number>();
  readonly #checking = new Set<number>();

  /**
   * The partition numbers a receive asks, in number order: every one of `count`, except old ones
   * (not in `current`) seen empty less than {@link RECHECK_MS} before `now`.
   */
  receivable(count: number, current: readonly number[], now: number): number[] {
    const keep = new Set(current);
    const numbers: number[] = [];
    for (let number = 0; number < count; number++) {
      const emptyAt = this.#emptyAt.get(number);
      if (keep.has(number) || emptyAt === undefined || now - emptyAt >= RECHECK_MS) numbers.push(number);
    }
    return numbers;
  }

  /**
   * A receive asked the old partition `number` and it leased nothing: once the grow is older than
   * {@link DRAIN_GRACE_MS} (`learnedAt`, when this instance learned of it), reads its stream's
   * length with `length` (XLEN: a leased, delayed or waiting message is an entry there) and
   * records it empty at 0. Not awaited by the receive; a failed read records nothing.
   */
  noteEmpty(number: number, learnedAt: number, now: number, length: () => Promise<number>): Promise<void> | undefined {
    if (now - learnedAt < DRAIN_GRACE_MS || this.#checking.has(number)) return undefined;
    const emptyAt = this.#emptyAt.get(number);
    if (emptyAt !== undefined && now - emptyAt < RECHECK_MS) return undefined;
    this.#checking.add(number);
    return length()
      .then(
        (entries) => {
          if (entries === 0) this.#emptyAt.set(number, now);
          else this.#emptyAt.delete(number);
        },
        () => undefined,
      )
      .finally(() => this.#checking.delete(number));
  }
}
