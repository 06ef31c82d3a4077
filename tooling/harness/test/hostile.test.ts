// The hostile values are as hostile as they claim.
import { describe, expect, it } from 'vitest';
import { errorSummary, hostileValues } from '../src/index.js';

describe('hostile values', () => {
  it.each(hostileValues().map((v) => [v.label, v] as const))('%s can be made, and errorSummary reads it without throwing', (_label, value) => {
    let made: unknown;
    expect(() => (made = value.make())).not.toThrow();
    expect(() => errorSummary(made)).not.toThrow();
  });

  it('the hostile ones break naive descriptions (the thenables break awaiting instead)', () => {
    const naive = (v: unknown) => {
      if (v instanceof Error) return `${v.constructor.name}: ${v.message}`;
      return typeof v === 'object' && v !== null ? `${(v as object).constructor.name} ${String(v)}` : String(v);
    };
    const breaking = hostileValues().filter((v) => {
      try {
        naive(v.make());
        return false;
      } catch {
        return true;
      }
    });
    expect(breaking.map((v) => v.label)).toEqual([
      'a revoked Proxy',
      'a revoked Proxy of an Error',
      'a Proxy whose every trap throws',
      'an object whose constructor getter throws',
      'an Error whose constructor getter throws',
      "an object whose constructor's name getter throws",
      'an object whose constructor/name/message/stack/toString/Symbol.toPrimitive getters throw',
      'an Error whose constructor/name/message/stack/toString/Symbol.toPrimitive getters throw',
      'a frozen Error subclass instance with throwing name, message and stack getters',
      'a null-prototype object',
    ]);
  });
});
