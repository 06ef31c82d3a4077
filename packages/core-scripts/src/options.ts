// The one validator of options and arguments: option objects, durations, whole numbers in a range.
import { describeValue } from './describe.js';
import { RespireValidationError } from './errors.js';

/** The largest whole number the Int32 options take (delivery limits): 2^31-1. */
export const MAX_INT32 = 2_147_483_647;

/**
 * The largest duration Respire accepts: 2^31-1 ms (about 24.8 days), the largest 32-bit signed
 * integer; also the longest delay a Node.js timer takes.
 */
export const MAX_DURATION_MS = MAX_INT32;

/**
 * Validates a duration in milliseconds and rounds fractions up to whole milliseconds: every
 * duration Respire takes is rounded up to whole milliseconds and at most 2^31-1 ms (the queue
 * README's contract).
 *
 * @param name - the option or argument name, used in the error message.
 * @param allowZero - true where the contract allows 0 (NACK delay).
 * @throws {@link RespireValidationError} when `value` is not a number, NaN, infinite, negative,
 *   zero (unless allowed) or more than 2^31-1 ms after rounding up.
 */
export function toDurationMs(name: string, value: unknown, allowZero = false): number {
  if (typeof value !== 'number' || Number.isNaN(value) || !Number.isFinite(value)) {
    throw new RespireValidationError(name, `must be a finite number of milliseconds, got ${describeValue(value)}`);
  }
  const ms = Math.ceil(value);
  const min = allowZero ? 0 : 1;
  if (value < 0 || ms < min || ms > MAX_DURATION_MS) {
    throw new RespireValidationError(name, `must be ${allowZero ? 'at least 0' : 'positive'} and at most ${MAX_DURATION_MS} ms, got ${describeValue(value)}`);
  }
  return ms;
}

/**
 * Validates a whole number in `min..max`.
 * @throws {@link RespireValidationError} when `value` is not an integer in range.
 */
export function toIntegerInRange(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RespireValidationError(name, `must be a whole number from ${min} to ${max}, got ${describeValue(value)}`);
  }
  return value;
}

/**
 * Validates an options argument: undefined reads as `{}`; anything but a plain object is refused,
 * and so is an option name that is not known, so a typo (`dedupeId`, `deliverylimit`) fails loudly
 * instead of silently falling back to a default.
 * @throws {@link RespireValidationError} naming `argument`: not an object, its keys cannot be read,
 *   or an unknown option (named, with the known ones).
 */
export function toOptions<O extends object>(argument: string, options: O | undefined, known: readonly string[]): Partial<O> {
  if (options === undefined) return {};
  let keys: string[];
  try {
    if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new TypeError('not an object');
    keys = Object.keys(options);
  } catch {
    throw new RespireValidationError(argument, `must be an object, got ${describeValue(options)}`);
  }
  for (const key of keys) {
    if (!known.includes(key)) {
      throw new RespireValidationError(argument, `unknown option '${key}'; known options: ${known.join(', ')}`);
    }
  }
  return options as Partial<O>;
}
