// Deduplication across a grow (README "Scaling past one master": "Growing the partition count"):
// a deduplication ID routes by its hash modulo the count, so after a grow a repeat may route to
// another partition than its first copy. Within the repeat's window after the grow, the partitions
// the ID had under earlier counts are read for its deduplication key before sending.
import { queueKeys, replyString, type CommandTarget } from '@respire/core-scripts/internal';
import type { PartitionHistory, PartitionSet } from './history.js';
import { partitionOfId } from './layout.js';

/**
 * How long past a send's window an earlier layout is still read, in ms: covers an instance that
 * sent by the earlier count until it refreshed (1 s) and clock skew between the hosts and the
 * server that stamped the grow.
 */
export const EARLIER_MARGIN_MS = 60_000;

/** A send's deduplication ID and window (ms), as checked by the send. */
export interface DeduplicatedSend {
  readonly deduplicationId: string | undefined;
  readonly windowMs: number;
}

/** A live first copy found in an earlier layout's partition: its partition number and entry ID. */
export interface EarlierCopy {
  readonly partition: number;
  readonly id: string;
}

/**
 * The partitions (numbers) to read for `id` besides `current`: for each earlier count whose
 * successor took over less than `windowMs` ago by `nowMs`, the partition the ID had then, newest
 * first, without repeats or `current`. "Less than `windowMs` ago" allows {@link EARLIER_MARGIN_MS} more.
 */
export function earlierPartitions(history: PartitionHistory, set: PartitionSet, id: string, windowMs: number, nowMs: number, current: number): number[] {
  const found: number[] = [];
  const { generations } = history;
  for (let index = generations.length - 2; index >= 0; index--) {
    if (nowMs - generations[index + 1]!.sinceMs >= windowMs + EARLIER_MARGIN_MS) break;
    const number = set.layouts[index]![partitionOfId(id, generations[index]!.count)]!;
    if (number !== current && !found.includes(number)) found.push(number);
  }
  return found;
}

/**
 * For each send (by position), the live first copy of its deduplication ID in an earlier layout's
 * partition, if any: one GET per partition to read, all concurrently; undefined for sends without
 * an ID, outside the window, or with no live copy. `currentOf(i)` is send i's partition now.
 * @throws as the GET (a key of another type is a `RespireKeyTypeError`).
 */
export async function findEarlierCopies(
  target: CommandTarget,
  keyPrefix: string | undefined,
  history: PartitionHistory,
  set: PartitionSet,
  sends: readonly DeduplicatedSend[],
  currentOf: (index: number) => number,
  nowMs = Date.now(),
): Promise<(EarlierCopy | undefined)[]> {
  const found: (EarlierCopy | undefined)[] = sends.map(() => undefined);
  if (history.generations.length < 2) return found;
  const reads: Promise<void>[] = [];
  for (const [index, { deduplicationId, windowMs }] of sends.entries()) {
    if (deduplicationId === undefined) continue;
    const partitions = earlierPartitions(history, set, deduplicationId, windowMs, nowMs, currentOf(index));
    if (partitions.length === 0) continue;
    reads.push(
      (async () => {
        const ids = await Promise.all(
          partitions.map(async (partition) => {
            const key = queueKeys(set.names[partition]!, keyPrefix).deduplicationPrefix + deduplicationId;
            const reply = await target.send(key, ['GET', key], {
              operation: 'PartitionedQueue (deduplication across a grow)',
              keyType: { key, type: 'string' },
            });
            return reply === null || reply === undefined ? undefined : replyString(reply);
          }),
        );
        const at = ids.findIndex((id) => id !== undefined);
        if (at >= 0) found[index] = { partition: partitions[at]!, id: ids[at]! };
      })(),
    );
  }
  await Promise.all(reads);
  return found;
}
