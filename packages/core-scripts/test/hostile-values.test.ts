// The error helpers and the validator on values built to break naive code.
import { describe, expect, it } from 'vitest';
import { errorSummary, hostileValues } from '@respire/harness';
import { isRespireError } from '@respire/core-scripts';
import {
  describeValue,
  isConnectionFailure,
  isErrorReply,
  isNotSent,
  isTransient,
  toDurationMs,
  toIntegerInRange,
  toRespireError,
} from '@respire/core-scripts/internal';

/**
 * Issue 11, kind 4, the shared error and validation helpers: whatever value they are handed
 * (something user code threw, or a bad option), they answer without throwing. The worker, the
 * producer and the queue map failures through these, so one that throws turns a contained failure
 * into a fault. Hostile values never reach `expect`.
 */
const table = hostileValues().map((v) => [v.label, v] as const);

/** What calling `fn` did: its result, or the name of what it threw. */
function attempt<R>(fn: () => R): { returned: R } | { threw: unknown } {
  try {
    return { returned: fn() };
  } catch (error) {
    return { threw: errorSummary(error).name };
  }
}

describe('kind 4: the error helpers never throw on a hostile value', () => {
  it.each(table)('%s: isRespireError and isErrorReply answer false', (_label, value) => {
    const made = value.make();
    expect({ respire: attempt(() => isRespireError(made)), reply: attempt(() => isErrorReply(made)) }).toEqual({
      respire: { returned: false },
      reply: { returned: false },
    });
  });

  it.each(table)('%s: toRespireError returns a RespireError naming the operation', (_label, value) => {
    const made = value.make();
    const result = attempt(() => toRespireError(made, 'Op.call'));
    expect('returned' in result).toBe(true);
    const error = (result as { returned: unknown }).returned;
    expect({ isRespire: isRespireError(error), namesOperation: String(errorSummary(error).message).startsWith('Op.call') }).toEqual({
      isRespire: true,
      namesOperation: true,
    });
  });

  it.each(table)('%s: isNotSent, isTransient and isConnectionFailure answer false', (_label, value) => {
    const made = value.make();
    expect({
      notSent: attempt(() => isNotSent(made)),
      transient: attempt(() => isTransient(made)),
      connection: attempt(() => isConnectionFailure(made)),
    }).toEqual({
      notSent: { returned: false },
      transient: { returned: false },
      connection: { returned: false },
    });
  });

  it.each(table)('%s: describeValue returns a string', (_label, value) => {
    const made = value.make();
    const result = attempt(() => describeValue(made));
    expect('returned' in result && typeof result.returned === 'string').toBe(true);
  });
});

describe('kind 4: validation of a hostile option value throws a RespireValidationError, nothing else', () => {
  it.each(table)('%s as a duration or a whole number', (_label, value) => {
    const made = value.make();
    expect({
      duration: attempt(() => toDurationMs('timeoutMs', made)),
      integer: attempt(() => toIntegerInRange('max', made, 1, 1000)),
    }).toEqual({ duration: { threw: 'RespireValidationError' }, integer: { threw: 'RespireValidationError' } });
  });
});
