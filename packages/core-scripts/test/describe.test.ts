// Describing user values never throws, and is bounded.
import { describe, expect, it } from 'vitest';
import { describeThrown, exceptionType } from '@respire/core-scripts/internal';
import { MAX_DESCRIPTION_CHARS, MAX_EXCEPTION_TYPE_CHARS } from '../src/describe.js';

class PaymentDeclinedError extends Error {}

/** A value that throws from every operation a describer might try on it. */
const hostileProxy = new Proxy(
  {},
  {
    get() {
      throw new Error('get trap');
    },
    getPrototypeOf() {
      throw new Error('getPrototypeOf trap');
    },
    has() {
      throw new Error('has trap');
    },
    ownKeys() {
      throw new Error('ownKeys trap');
    },
    getOwnPropertyDescriptor() {
      throw new Error('getOwnPropertyDescriptor trap');
    },
  },
);

function errorWithThrowingGetters(): Error {
  const error = new TypeError('unused');
  Object.defineProperty(error, 'message', {
    get: () => {
      throw new Error('message getter');
    },
  });
  Object.defineProperty(error, 'constructor', {
    get: () => {
      throw new Error('constructor getter');
    },
  });
  return error;
}

describe('describing thrown values (never throws)', () => {
  it.each([
    ['a TypeError', new TypeError('Unexpected token } in JSON'), 'TypeError', 'TypeError: Unexpected token } in JSON'],
    ['a subclass', new PaymentDeclinedError('card declined'), 'PaymentDeclinedError', 'PaymentDeclinedError: card declined'],
    ['an Error without a message', new RangeError(), 'RangeError', 'RangeError'],
    ['a string', 'bad input', 'string', '"bad input"'],
    ['a number', 42, 'number', 'number 42'],
    ['a bigint', 7n, 'bigint', 'bigint 7'],
    ['a boolean', false, 'boolean', 'boolean false'],
    ['a symbol', Symbol('s'), 'symbol', 'symbol Symbol(s)'],
    ['undefined', undefined, 'undefined', 'undefined'],
    ['null', null, 'null', 'null'],
    ['a plain object', { code: 42 }, 'Object', 'Object'],
    ['an object with a message', { message: 'from a plain object' }, 'Object', 'Object: from a plain object'],
    ['a null-prototype object', Object.create(null) as object, 'Object', 'Object'],
    [
      'an Error with a null prototype constructor',
      Object.assign(Object.create(Error.prototype) as Error, { constructor: undefined, name: 'Custom', message: 'm' }),
      'Custom',
      'Custom: m',
    ],
  ])('%s', (_label, value, type, description) => {
    expect(exceptionType(value)).toBe(type);
    expect(describeThrown(value)).toBe(description);
  });

  it('survives a Proxy whose every trap throws and getters that throw', () => {
    expect(exceptionType(hostileProxy)).toBe('Object');
    expect(describeThrown(hostileProxy)).toBe('Object');
    const error = errorWithThrowingGetters();
    expect(() => exceptionType(error)).not.toThrow();
    expect(exceptionType(error)).toBe('TypeError');
    expect(describeThrown(error)).toBe('TypeError');
  });

  it('survives a class whose name is not a string', () => {
    class Weird extends Error {}
    Object.defineProperty(Weird, 'name', {
      get: () => {
        throw new Error('name getter');
      },
    });
    expect(exceptionType(new Weird('x'))).toBe('Error');
    expect(describeThrown(new Weird('x'))).toBe('Error: x');
  });

  it('cuts long types and messages', () => {
    const long = new Error('m'.repeat(10_000));
    expect(describeThrown(long)).toHaveLength(MAX_DESCRIPTION_CHARS);
    expect(describeThrown(long).endsWith('…')).toBe(true);
    const named = Object.assign(Object.create(Error.prototype) as Error, { constructor: undefined, name: 'N'.repeat(1000) });
    expect(exceptionType(named)).toHaveLength(MAX_EXCEPTION_TYPE_CHARS);
    expect(describeThrown('s'.repeat(10_000))).toHaveLength(MAX_DESCRIPTION_CHARS);
  });
});
