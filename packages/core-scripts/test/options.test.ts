// The one option validator: durations, whole numbers in a range, option objects.
import { describe, expect, it } from 'vitest';
import { MAX_DURATION_MS, isRespireError } from '@respire/core-scripts';
import { toDurationMs, toIntegerInRange, toOptions } from '@respire/core-scripts/internal';

describe('durations in milliseconds', () => {
  it('rounds fractions up and accepts the bounds', () => {
    expect(toDurationMs('t', 1)).toBe(1);
    expect(toDurationMs('t', 0.001)).toBe(1);
    expect(toDurationMs('t', 1.2)).toBe(2);
    expect(toDurationMs('t', MAX_DURATION_MS)).toBe(2_147_483_647);
    expect(toDurationMs('t', 0, true)).toBe(0);
    expect(toDurationMs('t', 0.5, true)).toBe(1);
  });

  it.each([[0], [-1], [-0.5], [Number.NaN], [Number.POSITIVE_INFINITY], [2 ** 31], [MAX_DURATION_MS + 0.5], ['5'], [null], [undefined], [5n]])(
    'rejects %s where zero is not allowed',
    (value) => {
      let error: unknown;
      try {
        toDurationMs('visibilityTimeoutMs', value);
      } catch (e) {
        error = e;
      }
      expect(isRespireError(error, 'INVALID_ARGUMENT')).toBe(true);
      expect((error as Error).message).toContain('visibilityTimeoutMs');
    },
  );

  it('rejects negatives even where zero is allowed', () => {
    expect(() => toDurationMs('delayMs', -1, true)).toThrow(/delayMs/);
    expect(() => toDurationMs('delayMs', -0.1, true)).toThrow(/delayMs/);
  });

  it('checks whole numbers in a range', () => {
    expect(toIntegerInRange('max', 1000, 1, 1000)).toBe(1000);
    expect(() => toIntegerInRange('max', 1001, 1, 1000)).toThrow(/max/);
    expect(() => toIntegerInRange('max', 1.5, 1, 1000)).toThrow(/max/);
  });
});

describe('option objects', () => {
  const refusal = (run: () => unknown): string => {
    try {
      run();
    } catch (error) {
      expect(isRespireError(error, 'INVALID_ARGUMENT'), String(error)).toBe(true);
      expect((error as { argument: string }).argument).toBe('options');
      return (error as Error).message;
    }
    throw new Error('not refused');
  };

  it('reads undefined as no options and returns an object of known options as it is', () => {
    expect(toOptions('options', undefined, ['a'])).toEqual({});
    const options = { a: 1 };
    expect(toOptions('options', options, ['a', 'b'])).toBe(options);
  });

  it('refuses anything but an object, and an unknown option, naming the known ones', () => {
    for (const bad of [null, 5, 'x', ['a'], () => ({})])
      expect(refusal(() => toOptions('options', bad as never, ['a']))).toMatch(/^options: must be an object, got /);
    expect(refusal(() => toOptions('options', { a: 1, dedupeId: 'x' } as object, ['a', 'deduplicationId']))).toBe(
      "options: unknown option 'dedupeId'; known options: a, deduplicationId",
    );
  });

  it('refuses an object whose keys cannot be read (a revoked Proxy) as not an object', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(refusal(() => toOptions('options', proxy, ['a']))).toMatch(/must be an object/);
  });
});
