// A partitioned queue's layout: the partitions' queue names (core-scripts' partition-layout.ts),
// the metadata key recording the partition count, routing by deduplication ID, and its receipts.
import { RespireValidationError } from '@respire/core-scripts';
import { MAX_PARTITIONS, isReceipt, isWellFormedText, toIntegerInRange, toKeyPrefix } from '@respire/core-scripts/internal';

// The partitions' names (the slot-stripe search) are shared with @respire/admin: core-scripts src/partition-layout.ts.
export { MAX_PARTITIONS, partitionNames } from '@respire/core-scripts/internal';

/**
 * Most partition numbers one queue can hand out over its history (16 counts of at most 256
 * partitions each: history.ts): receipts name numbers below it.
 */
export const MAX_PARTITION_NUMBERS = 4096;

/** Checks a partition count: a whole number from 1 to {@link MAX_PARTITIONS}. */
export function toPartitionCount(value: unknown): number {
  if (value === undefined) throw new RespireValidationError('partitions', `is required: a whole number from 1 to ${MAX_PARTITIONS}`);
  return toIntegerInRange('partitions', value as number, 1, MAX_PARTITIONS);
}

/**
 * Checks a partitioned queue's name and key prefix, and returns its metadata key
 * `<prefix>{respire-partitioned:<name>}:partitions` (a string holding the partition count, in a
 * slot of its own). A prefix with a brace is refused: its hash tag would put every partition in one slot.
 * @throws {@link RespireValidationError} for a blank name, one with braces or lone surrogates, or such a prefix.
 */
export function partitionedMetadataKey(name: unknown, keyPrefix: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') throw new RespireValidationError('name', 'a queue name must be a nonblank string');
  if (/[{}]/.test(name)) throw new RespireValidationError('name', `a queue name must not contain '{' or '}', got '${name}'`);
  if (!isWellFormedText(name)) throw new RespireValidationError('name', 'a queue name must be well-formed Unicode (no lone surrogates)');
  const prefix = toKeyPrefix(keyPrefix);
  if (/[{}]/.test(prefix)) {
    throw new RespireValidationError(
      'keyPrefix',
      "must not contain '{' or '}' on a partitioned queue: a hash tag in the prefix would put every partition in one slot",
    );
  }
  return `${prefix}{respire-partitioned:${name}}:partitions`;
}

/**
 * The partition of a deduplication ID: FNV-1a (32 bits) of its UTF-8 bytes, modulo `count`. Every
 * send of one ID goes to one partition, so deduplication holds across the queue.
 */
export function partitionOfId(id: string, count: number): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(id, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % count;
}

/**
 * A partitioned queue's receipt is `p<partition>~<the partition's receipt>`. A plain queue's
 * receipt (`<count>.<token>.<position>`) never has this shape, nor this one a plain receipt's, so
 * each kind is refused by the other before any I/O.
 */
const RECEIPT = /^p(0|[1-9]\d{0,3})~(.*)$/s;

/** The receipt a partitioned queue hands out for a delivery of `partition`. */
export function partitionedReceipt(partition: number, receipt: string): string {
  return `p${partition}~${receipt}`;
}

/** A partitioned receipt read: its partition and the partition's own receipt; undefined when malformed or out of range. */
export function parsePartitionedReceipt(value: unknown, count: number): { readonly partition: number; readonly receipt: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = RECEIPT.exec(value);
  if (match === null) return undefined;
  const partition = Number(match[1]);
  const receipt = match[2]!;
  if (partition >= count || !isReceipt(receipt)) return undefined;
  return { partition, receipt };
}
