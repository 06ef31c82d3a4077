// Argument checks of the admin API: entry IDs, counts, names, options and actors, before any I/O.
import type { Actor } from './api.js';
import { RespirePermissionError, RespireValidationError, describeValue, isWellFormedText, toIntegerInRange } from './redis.js';

// Entry IDs and option objects: core-scripts' one reader and validator (re-exported through redis.ts).
export { nextEntryId, previousEntryId, toEntryId, toOptions } from './redis.js';

/** -1, 0 or 1 as entry ID `a` (canonical) is below, equal to or above `b` (canonical). */
export function compareEntryIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  if (am !== bm) return am < bm ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
}

/** @throws {@link RespireValidationError} unless `value` is a whole number in `min..max` (or undefined → `fallback`). */
export function toCount(argument: string, value: unknown, fallback: number, min = 1, max = 1000): number {
  return value === undefined ? fallback : toIntegerInRange(argument, value, min, max);
}

/** @throws {@link RespireValidationError} unless `value` is a nonempty, well-formed string of at most `max` characters. */
export function toName(argument: string, value: unknown, max = 1024): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || !isWellFormedText(value)) {
    throw new RespireValidationError(argument, `must be a nonempty string of at most ${max} characters without lone surrogates, got ${show(value)}`);
  }
  return value;
}

/** @throws {@link RespireValidationError} (`resource`) unless `value` is a resource id: a nonempty, well-formed key. */
export function toResourceId(value: unknown): string {
  return toName('resource', value, 65_536);
}

/**
 * A consumer name: Redis allows any string, the empty one included (and Redis 8.8 shows an entry
 * released with XNACK as pending to `''`).
 * @throws {@link RespireValidationError} unless `value` is a well-formed string of at most 65,536 characters.
 */
export function toConsumer(argument: string, value: unknown): string {
  if (typeof value !== 'string' || value.length > 65_536 || !isWellFormedText(value)) {
    throw new RespireValidationError(argument, `must be a string (possibly empty) of at most 65536 characters without lone surrogates, got ${show(value)}`);
  }
  return value;
}

/** @throws {@link RespireValidationError} unless `value` is an array (or undefined → `[]`). */
export function toList<T>(argument: string, value: readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new RespireValidationError(argument, 'must be an array');
  return value;
}

/**
 * Checks the actor of an action: a valid shape, and the `operator` role (a `viewer` may only
 * read). Runs before any I/O.
 * @throws {@link RespireValidationError} for a malformed actor.
 * @throws {@link RespirePermissionError} for a viewer.
 */
export function requireOperator(actor: unknown, action: string): Actor {
  let name: unknown;
  let role: unknown;
  try {
    ({ name, role } = actor as Partial<Actor>);
  } catch {
    // null, undefined, or a value whose properties cannot be read
  }
  if (typeof actor !== 'object' || actor === null || (role !== 'viewer' && role !== 'operator')) {
    throw new RespireValidationError('actor', "must be { name: nonempty string, role: 'viewer' | 'operator' }");
  }
  // The name goes into every audit record: no control characters (a forged log line), at most 256.
  // eslint-disable-next-line no-control-regex
  if (typeof name !== 'string' || /[\u0000-\u001f\u007f-\u009f]/.test(name)) {
    throw new RespireValidationError('actor.name', `must be text without control characters, got ${show(name)}`);
  }
  toName('actor.name', name, 256);
  if (role !== 'operator') {
    throw new RespirePermissionError(`${action}: '${name}' has the role '${role}'; only an operator may ${action}`);
  }
  return actor as Actor;
}

/** A bad argument for a message, never throwing on a hostile value. */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return describeValue(value);
}
