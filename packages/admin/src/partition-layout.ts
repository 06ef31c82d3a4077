// A partitioned queue's metadata key as the queue package writes it. Its partition names and history
// (the slot-stripe search, the counts, the permanent numbers) are core-scripts' (redis.ts re-exports them).
import { RespireValidationError, toKeyPrefix } from './redis.js';

/** The SCAN pattern of every partitioned queue's metadata key. */
export const METADATA_MATCH = '*{respire-partitioned:*}:partitions';
const METADATA_KEY = /^(.*)\{respire-partitioned:([^{}]+)\}:partitions$/s;

/**
 * A partitioned queue's metadata key, `<prefix>{respire-partitioned:<name>}:partitions` (a string
 * holding the partition history: `3`, `3,6@<ms>` after a grow, `g3` grouped).
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
