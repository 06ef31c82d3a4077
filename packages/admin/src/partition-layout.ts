// A partitioned queue's layout as the queue package writes it: partition names and the metadata key.
import { RespireValidationError, keySlot, toKeyPrefix } from './redis.js';

/** Most partitions of one partitioned queue (the queue package's `MAX_PARTITIONS`). */
export const MAX_PARTITIONS = 256;

const SLOTS = 16384;
const RECENT_LAYOUTS = 64;
const recentLayouts = new Map<string, readonly string[]>();

/**
 * The queue name of each partition of `name` (queue README "Scaling past one master"): partition
 * `i` is the ordinary queue `<name>:p<i>.<salt>`, the smallest salt from 0 whose hash tag's slot
 * lies in the middle half of the i-th of `count` equal stripes of the slot range. The same search
 * as `@respire/queue`'s (test/partitioned.test.ts checks they agree); the last 64 layouts are kept.
 */
export function partitionNames(name: string, count: number): readonly string[] {
  const key = `${count}:${name}`;
  let names = recentLayouts.get(key);
  if (names === undefined) {
    const found: string[] = [];
    for (let index = 0; index < count; index++) {
      const start = Math.floor((index * SLOTS) / count);
      const end = Math.floor(((index + 1) * SLOTS) / count);
      const margin = Math.floor((end - start) / 4);
      for (let salt = 0; ; salt++) {
        const candidate = `${name}:p${index}.${salt}`;
        const slot = keySlot(`{respire-queue:${candidate}}`);
        if (slot >= start + margin && slot < end - margin) {
          found.push(candidate);
          break;
        }
      }
    }
    names = Object.freeze(found);
    if (recentLayouts.size >= RECENT_LAYOUTS) recentLayouts.delete(recentLayouts.keys().next().value!);
    recentLayouts.set(key, names);
  }
  return names;
}

/** The SCAN pattern of every partitioned queue's metadata key. */
export const METADATA_MATCH = '*{respire-partitioned:*}:partitions';
const METADATA_KEY = /^(.*)\{respire-partitioned:([^{}]+)\}:partitions$/s;

/**
 * A partitioned queue's metadata key, `<prefix>{respire-partitioned:<name>}:partitions` (a string
 * holding the partition count).
 * @throws {@link RespireValidationError} for a blank name, one with braces, or a prefix with a brace.
 */
export function metadataKey(name: unknown, keyPrefix: unknown, argument: string): string {
  if (typeof name !== 'string' || name.trim() === '') throw new RespireValidationError(`${argument}.name`, 'a queue name must be a nonblank string');
  if (/[{}]/.test(name)) throw new RespireValidationError(`${argument}.name`, `a queue name must not contain '{' or '}', got '${name}'`);
  const prefix = toKeyPrefix(keyPrefix);
  if (/[{}]/.test(prefix)) throw new RespireValidationError(`${argument}.keyPrefix`, "must not contain '{' or '}' on a partitioned queue");
  return `${prefix}{respire-partitioned:${name}}:partitions`;
}

/** A metadata key → the queue's name and key prefix; undefined for any other key. */
export function parseMetadataKey(key: string): { readonly name: string; readonly keyPrefix: string } | undefined {
  const match = METADATA_KEY.exec(key);
  if (!match || /[{}]/.test(match[1]!) || match[2]!.trim() === '') return undefined;
  return { name: match[2]!, keyPrefix: match[1]! };
}

/**
 * The partition count a metadata key's value records: a whole number from 1 to
 * {@link MAX_PARTITIONS}; undefined for anything else (a value this admin cannot read).
 */
export function recordedCount(value: string): number | undefined {
  if (!/^[1-9]\d{0,2}$/.test(value)) return undefined;
  const n = Number(value);
  return n <= MAX_PARTITIONS ? n : undefined;
}
