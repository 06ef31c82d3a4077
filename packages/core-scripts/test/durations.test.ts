import { describe, expect, it } from 'vitest';
import { MAX_DURATION_MS, isRespireError } from '@respire/core-scripts';
import { toDurationMs, toIntegerInRange } from '@respire/core-scripts/internal';

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
