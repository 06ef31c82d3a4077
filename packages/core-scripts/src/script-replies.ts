// The primitives the generated reply decoders (src/generated/replies.ts) are built from.
import { describeValue } from './describe.js';
import { RespireServerError } from './errors.js';

/**
 * A script replied something its header's `Reply` line does not allow: a script and its decoder
 * disagree, so the call fails loudly rather than guess.
 * @throws {@link RespireServerError} always.
 */
export function unexpected(operation: string, expected: string, value: unknown): never {
  throw new RespireServerError(`${operation}: unexpected script reply: expected ${expected}, got ${describeValue(value)}`);
}

/** A Lua table: an array (RESP2 and RESP3 alike). */
export function array(value: unknown, operation: string): unknown[] {
  return Array.isArray(value) ? value : unexpected(operation, 'an array', value);
}

/** A Lua table read by position: an array of at least `size` elements. */
export function table(value: unknown, size: number, operation: string): unknown[] {
  return Array.isArray(value) && value.length >= size ? value : unexpected(operation, `an array of at least ${size} elements`, value);
}

/** An integer: a Lua number (a RESP integer), or its decimal text. */
export function int(value: unknown, operation: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' || Buffer.isBuffer(value) ? Number(value.toString()) : NaN;
  return Number.isInteger(n) ? n : unexpected(operation, 'an integer', value);
}

/** 1 or 0, as a boolean. */
export function flag(value: unknown, operation: string): boolean {
  const n = int(value, operation);
  return n === 1 ? true : n === 0 ? false : unexpected(operation, '1 or 0', value);
}

/** Text: a bulk string (a Buffer in binary mode), decoded as UTF-8. */
export function string(value: unknown, operation: string): string {
  return typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : unexpected(operation, 'a string', value);
}

/** Bytes: a bulk string as a Buffer (scripts whose replies hold bytes are always run in binary mode). */
export function bytes(value: unknown, operation: string): Buffer {
  return Buffer.isBuffer(value) ? value : typeof value === 'string' ? Buffer.from(value, 'utf8') : unexpected(operation, 'bytes', value);
}
