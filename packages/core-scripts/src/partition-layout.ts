// A partitioned queue's layout and partition history, shared by @respire/queue and @respire/admin
// (queue README "Scaling past one master": "Growing the partition count"): the partitions' queue
// names, the metadata key's history of counts, and every partition a history has had by number.
import { keySlot } from './slots.js';

/** Most partitions of one partitioned queue. */
export const MAX_PARTITIONS = 256;

const SLOTS = 16384;

/**
 * The queue name of each partition of `name`: partition `i` is the ordinary queue
 * `<name>:p<i>.<salt>`, the smallest salt from 0 whose hash tag's slot lies in the middle half of
 * the i-th of `count` equal stripes of the slot range. A Cluster whose masters each serve a run of
 * slots (as `redis-cli --cluster create` assigns them) so gets the partitions spread evenly over its
 * masters; the names depend only on `name` and `count`, so every instance finds the same ones.
 */
export function partitionNames(name: string, count: number): readonly string[] {
  // The search costs about 2 × count² CRC16s (~90 ms for 256 partitions): remember recent layouts.
  const key = `${count}:${name}`;
  let names = recentLayouts.get(key);
  if (names === undefined) {
    names = searchPartitionNames(name, count);
    if (recentLayouts.size >= RECENT_LAYOUTS) recentLayouts.delete(recentLayouts.keys().next().value!);
    recentLayouts.set(key, names);
  }
  return names;
}

const RECENT_LAYOUTS = 64;
const recentLayouts = new Map<string, readonly string[]>();

function searchPartitionNames(name: string, count: number): readonly string[] {
  const names: string[] = [];
  for (let index = 0; index < count; index++) {
    const start = Math.floor((index * SLOTS) / count);
    const end = Math.floor(((index + 1) * SLOTS) / count);
    const margin = Math.floor((end - start) / 4);
    for (let salt = 0; ; salt++) {
      const candidate = `${name}:p${index}.${salt}`;
      // The hash tag queueKeys gives the queue `candidate` (queue test/partitioned.test.ts checks the slots).
      const slot = keySlot(`{respire-queue:${candidate}}`);
      if (slot >= start + margin && slot < end - margin) {
        names.push(candidate);
        break;
      }
    }
  }
  return Object.freeze(names);
}

/** One partition count of a queue's history. */
export interface Generation {
  /** The partition count. */
  readonly count: number;
  /** When it took over, by the server clock of the grow (ms since the epoch); 0 for the first. */
  readonly sinceMs: number;
}

/** A parsed metadata value: the counts in the order they were recorded, and whether the queue is grouped. */
export interface PartitionHistory {
  readonly grouped: boolean;
  /** Oldest first; the last is the current count. Counts only grow. */
  readonly generations: readonly Generation[];
}

/** Most counts one history may hold: every grow adds one. */
export const MAX_GENERATIONS = 16;

const COUNT = String.raw`(?:[1-9]\d{0,2})`;
const VALUE = new RegExp(String.raw`^(g?)(${COUNT})((?:,${COUNT}@\d{1,15})*)$`);

/**
 * Reads a metadata value: `<count>` for a queue created with that count, then `,<count>@<ms>` per
 * grow, all prefixed with `g` on a grouped queue (only ever one count). Undefined when the value is
 * malformed, a count is out of range, or counts do not grow.
 */
export function parseHistory(value: string): PartitionHistory | undefined {
  const match = VALUE.exec(value);
  if (match === null) return undefined;
  const generations: Generation[] = [{ count: Number(match[2]), sinceMs: 0 }];
  for (const part of match[3]!.split(',').slice(1)) {
    const [count, since] = part.split('@') as [string, string];
    generations.push({ count: Number(count), sinceMs: Number(since) });
  }
  if (generations.length > MAX_GENERATIONS) return undefined;
  for (const [index, { count }] of generations.entries()) {
    if (count > MAX_PARTITIONS || (index > 0 && count <= generations[index - 1]!.count)) return undefined;
  }
  return { grouped: match[1] === 'g', generations };
}

/** The metadata value a history is written as ({@link parseHistory} reads it back). */
export function formatHistory(history: PartitionHistory): string {
  const [first, ...later] = history.generations;
  return `${history.grouped ? 'g' : ''}${first!.count}${later.map(({ count, sinceMs }) => `,${count}@${sinceMs}`).join('')}`;
}

/** The current (last recorded) partition count. */
export function currentCount(history: PartitionHistory): number {
  return history.generations.at(-1)!.count;
}

/** True when `longer` is `shorter` with zero or more counts appended. */
export function extendsHistory(longer: PartitionHistory, shorter: PartitionHistory): boolean {
  if (longer.grouped !== shorter.grouped || longer.generations.length < shorter.generations.length) return false;
  return shorter.generations.every((g, i) => g.count === longer.generations[i]!.count && g.sinceMs === longer.generations[i]!.sinceMs);
}

/**
 * Every partition a history has had, as one list that only grows: the first count's partitions
 * in order, then each later count's partitions that are new (a partition name depends only on the
 * queue name, the count and the index, so a later layout may keep some of an earlier one's).
 * A partition's place in this list is its number: in receipts, `message.partition` and the key
 * lists, so numbers handed out before a grow stay valid after it.
 */
export interface PartitionSet {
  /** Every partition's queue name, by number. */
  readonly names: readonly string[];
  /** For each layout of the history (oldest first), the number of its partition `i` at `[i]`. */
  readonly layouts: readonly (readonly number[])[];
}

/** The {@link PartitionSet} of `name` with `history`'s counts. */
export function partitionSet(name: string, history: PartitionHistory): PartitionSet {
  const names: string[] = [];
  const numbers = new Map<string, number>();
  const layouts = history.generations.map(({ count }) =>
    partitionNames(name, count).map((partitionName) => {
      let number = numbers.get(partitionName);
      if (number === undefined) {
        number = names.length;
        names.push(partitionName);
        numbers.set(partitionName, number);
      }
      return number;
    }),
  );
  return { names, layouts };
}
