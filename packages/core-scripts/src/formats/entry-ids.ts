// Stream entry IDs ("<ms>-<seq>"): the one reader, validator and comparer in TypeScript
// (lua/includes/entry-ids.lua is the one in Lua; test/formats.test.ts checks that they agree).
import { describeValue } from '../describe.js';
import { RespireValidationError } from '../errors.js';

const ENTRY_ID = /^(\d+)-(\d+)$/;
/** An entry ID as Redis writes it, each part at most 20 digits: the usual case, checked without allocating. */
const WRITTEN = /^(?:0|[1-9]\d{0,19})-(?:0|[1-9]\d{0,19})$/;
/** The greatest part of an entry ID, 2^64-1, as Redis writes it. */
const MAX_PART = '18446744073709551615';
const MAX_PART_BIGINT = 2n ** 64n - 1n;

/** A part without leading zeros, or undefined past 2^64-1. */
function part(digits: string): string | undefined {
  const stripped = digits.replace(/^0+(?=\d)/, '');
  return stripped.length > 20 || (stripped.length === 20 && stripped > MAX_PART) ? undefined : stripped;
}

/**
 * The two parts of an entry ID as Redis writes them (no leading zeros), or undefined when `value`
 * is not an entry ID: two decimal whole numbers joined by `-`, each below 2^64. Leading zeros are
 * read as Redis reads them (`01-1` is `1-1`).
 */
export function entryIdParts(value: unknown): readonly [ms: string, seq: string] | undefined {
  if (typeof value !== 'string') return undefined;
  const match = ENTRY_ID.exec(value);
  if (match === null) return undefined;
  const ms = part(match[1]!);
  const seq = part(match[2]!);
  return ms === undefined || seq === undefined ? undefined : [ms, seq];
}

/** True when `value` is an entry ID (see {@link entryIdParts}). */
export function isEntryId(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  if (!WRITTEN.test(value)) return entryIdParts(value) !== undefined; // leading zeros, or not one
  const dash = value.indexOf('-');
  return (dash < 20 || value.slice(0, dash) <= MAX_PART) && (value.length - dash - 1 < 20 || value.slice(dash + 1) <= MAX_PART);
}

/**
 * Validates an entry ID given by a caller.
 * @returns the ID as Redis writes it (no leading zeros), so that an ID names one entry.
 * @throws {@link RespireValidationError} naming `argument` unless `value` is an entry ID.
 */
export function toEntryId(argument: string, value: unknown): string {
  const parts = entryIdParts(value);
  if (parts === undefined) {
    const shown = typeof value === 'string' && value.length > 80 ? `${JSON.stringify(value.slice(0, 80))}…` : describeValue(value);
    throw new RespireValidationError(argument, `must be a stream entry ID such as 1700000000000-0 (two whole numbers below 2^64), got ${shown}`);
  }
  return `${parts[0]}-${parts[1]}`;
}

/**
 * Orders two entry IDs as Redis writes them (no leading zeros): -1, 0 or 1, exact past 2^53. A
 * longer part is larger; parts of the same length compare by their digits.
 */
export function compareEntryIds(a: string, b: string): number {
  const ia = a.indexOf('-');
  const ib = b.indexOf('-');
  if (ia !== ib) return ia < ib ? -1 : 1;
  // The same shape (the usual case): the text orders them.
  if (a.length === b.length) return a < b ? -1 : a > b ? 1 : 0;
  const msA = a.slice(0, ia);
  const msB = b.slice(0, ib);
  if (msA !== msB) return msA < msB ? -1 : 1;
  return a.length < b.length ? -1 : 1; // the same milliseconds: the longer sequence number is larger
}

/** The entry ID right after `id` (as Redis writes it), or undefined after the greatest. */
export function nextEntryId(id: string): string | undefined {
  const [ms, seq] = id.split('-').map(BigInt) as [bigint, bigint];
  if (seq < MAX_PART_BIGINT) return `${ms}-${seq + 1n}`;
  return ms < MAX_PART_BIGINT ? `${ms + 1n}-0` : undefined;
}

/** The entry ID right before `id` (as Redis writes it), or undefined before `0-0`. */
export function previousEntryId(id: string): string | undefined {
  const [ms, seq] = id.split('-').map(BigInt) as [bigint, bigint];
  if (seq > 0n) return `${ms}-${seq - 1n}`;
  return ms > 0n ? `${ms - 1n}-${MAX_PART_BIGINT}` : undefined;
}
