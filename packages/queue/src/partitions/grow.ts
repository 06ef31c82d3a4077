// Growing a partitioned queue's partition count: PartitionedQueue.grow (README "Scaling past one
// master": "Growing the partition count"). One compare-and-set script on the metadata key.
import { RespireStateError, type RedisClientLike } from '@respire/core-scripts';
import { commandTarget, replyString, scriptCalls, toDurationMs, toOptions, type CommandTarget } from '@respire/core-scripts/internal';
import type { Durability } from '@respire/core-scripts/internal';
import { MAX_GENERATIONS, currentCount, parseHistory } from './history.js';
import { partitionedMetadataKey, toPartitionCount } from './layout.js';

/** Options of {@link growPartitions}: where the queue's keys are and how commands are sent. */
export interface GrowOptions {
  /** The queue's key prefix, as given to its instances. @defaultValue '' */
  keyPrefix?: string;
  /** As the queue's `commandTimeoutMs`, in ms. */
  commandTimeoutMs?: number;
  /** As the queue's `durability`. */
  durability?: Durability;
}

/** What {@link growPartitions} found and did. */
export interface GrowResult {
  /** The count recorded before the call; 0 when none was recorded. */
  readonly previous: number;
  /** The count recorded after the call: the requested one. */
  readonly partitions: number;
  /** False when the requested count was already the current one (nothing changed). */
  readonly grown: boolean;
}

/**
 * A grow that cannot be made: fewer partitions than recorded (shrinking), a grouped queue, a
 * history with {@link MAX_GENERATIONS} counts, or a metadata value this version cannot read.
 * Nothing changed. Code `INVALID_STATE`.
 */
export class RespirePartitionGrowthError extends RespireStateError {
  override name = 'RespirePartitionGrowthError';
  /** The partition history the metadata key holds (its raw value). */
  readonly recorded: string;

  constructor(queue: string, recorded: string, reason: string) {
    super(`PartitionedQueue '${queue}' cannot grow: ${reason} (README "Scaling past one master"); nothing changed`);
    this.recorded = recorded;
  }
}

const GROW_OPTIONS = ['keyPrefix', 'commandTimeoutMs', 'durability'] as const satisfies readonly (keyof GrowOptions)[];

/** Concurrent grows of one queue retry the compare-and-set at most this many times each. */
const ATTEMPTS = 8;

/**
 * Records `partitions` as the queue's new partition count, keeping the earlier counts in its
 * history so their partitions keep being drained (README "Scaling past one master"). Idempotent:
 * growing to the current count changes nothing. On a queue with no recorded count it records
 * `partitions` as its first. Instances follow within a second (their refresh interval).
 * @throws {@link RespireValidationError} for a bad name, key prefix, count (1..256) or option, before any I/O.
 * @throws {@link RespirePartitionGrowthError} for a count below the current one, a grouped queue,
 *   or a history that is full or unreadable; nothing changed.
 * @throws {@link RespireKeyTypeError} when the metadata key holds another type; as any command otherwise.
 */
export async function growPartitions(client: RedisClientLike, name: string, partitions: number, options: GrowOptions = {}): Promise<GrowResult> {
  const checked = toOptions('options', options, GROW_OPTIONS);
  const key = partitionedMetadataKey(name, checked.keyPrefix);
  const count = toPartitionCount(partitions);
  const commandTimeoutMs = checked.commandTimeoutMs === undefined ? undefined : toDurationMs('commandTimeoutMs', checked.commandTimeoutMs, true);
  const target: CommandTarget = commandTarget(client, 'client', { commandTimeoutMs, durability: checked.durability });
  const operation = 'PartitionedQueue.grow';
  for (let attempt = 1; ; attempt++) {
    const reply = await target.send(key, ['GET', key], { operation, keyType: { key, type: 'string' } });
    const recorded = reply === null || reply === undefined ? '' : replyString(reply);
    let previous = 0;
    if (recorded !== '') {
      const history = parseHistory(recorded);
      if (history === undefined) throw new RespirePartitionGrowthError(name, recorded, `its metadata key holds '${recorded}', not a partition history`);
      if (history.grouped) {
        throw new RespirePartitionGrowthError(name, recorded, 'it is grouped, and moving groups to other partitions would break their order');
      }
      previous = currentCount(history);
      if (count === previous) return { previous, partitions: count, grown: false };
      if (count < previous) throw new RespirePartitionGrowthError(name, recorded, `it has ${previous} partitions and shrinking is not supported`);
      if (history.generations.length >= MAX_GENERATIONS) {
        throw new RespirePartitionGrowthError(name, recorded, `its history already holds ${MAX_GENERATIONS} counts`);
      }
    }
    const result = await scriptCalls.partitionedGrow(target, { metadata: key, recorded, count: String(count) }, { operation });
    if (result.applied) return { previous, partitions: count, grown: true };
    if (attempt >= ATTEMPTS) {
      throw new RespireStateError(`${operation} '${name}': the partition history changed under ${ATTEMPTS} attempts in a row; nothing changed by this call`);
    }
  }
}
