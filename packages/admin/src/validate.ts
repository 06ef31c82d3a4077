import type { Actor } from './api.js';
import { RespirePermissionError, RespireValidationError, describeValue, isWellFormedText } from './redis.js';

/** A stream entry ID as Redis prints it: `<ms>-<seq>`, both unsigned 64-bit. */
const ENTRY_ID = /^\d{1,20}-\d{1,20}$/;

/** @throws {RespireValidationError} unless `value` is an entry ID `<ms>-<seq>`. */
export function toEntryId(argument: string, value: unknown): string {
  if (typeof value !== 'string' || !ENTRY_ID.test(value)) {
    throw new RespireValidationError(argument, `must be a stream entry ID such as 1700000000000-0, got ${show(value)}`);
  }
  return value;
}

/** @throws {RespireValidationError} unless `value` is a whole number in `min..max` (or undefined → `fallback`). */
export function toCount(argument: string, value: unknown, fallback: number, min = 1, max = 1000): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RespireValidationError(argument, `must be a whole number from ${min} to ${max}, got ${show(value)}`);
  }
  return value;
}

/** @throws {RespireValidationError} unless `value` is a nonempty, well-formed string of at most `max` characters. */
export function toName(argument: string, value: unknown, max = 1024): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || !isWellFormedText(value)) {
    throw new RespireValidationError(argument, `must be a nonempty string of at most ${max} characters without lone surrogates, got ${show(value)}`);
  }
  return value;
}

/** @throws {RespireValidationError} for an options argument that is not a plain object or has unknown keys. */
export function toOptions<T extends object>(argument: string, value: T | undefined, known: readonly string[]): Partial<T> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RespireValidationError(argument, 'must be an object');
  }
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new RespireValidationError(argument, `unknown option '${key}'; known options: ${known.join(', ')}`);
  }
  return value;
}

/**
 * Checks the actor of an action: a valid shape, and the `operator` role (a `viewer` may only
 * read). Runs before any I/O.
 * @throws {RespireValidationError} for a malformed actor.
 * @throws {RespirePermissionError} for a viewer.
 */
export function requireOperator(actor: unknown, action: string): Actor {
  let name: unknown;
  let role: unknown;
  try {
    ({ name, role } = actor as Partial<Actor>);
  } catch {
    // null, undefined, or a value whose properties cannot be read
  }
  if (typeof actor !== 'object' || actor === null || typeof name !== 'string' || name.length === 0 || (role !== 'viewer' && role !== 'operator')) {
    throw new RespireValidationError('actor', "must be { name: nonempty string, role: 'viewer' | 'operator' }");
  }
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
