// Unit tests of how a delivery decides its completion from what the handler returned or threw, with no server and no sleep.
import { describe, expect, it } from 'vitest';
import { isRespireError } from '@respire/core-scripts';
import type { RawEntry } from '@respire/core-scripts/internal';
import { Delivery, deliver, type DeliveryContext } from '../src/delivery.js';
import type { DeliveryStart } from '../src/index.js';
import { resolveOptions, type StreamWorkerOptions } from '../src/options.js';
import { recordingLogger } from './support.js';

/** Enough of a node-redis client for the options to resolve; nothing is ever sent. */
const client = { isOpen: true, sendCommand: () => Promise.reject(new Error('no I/O in these tests')), duplicate: () => client };

function context(options: Partial<StreamWorkerOptions<unknown>> & { hardAborted?: boolean }) {
  const logger = recordingLogger();
  const { hardAborted = false, ...rest } = options;
  const resolved = resolveOptions({ client, stream: '{o}:events', group: 'g', logger, handler: () => 'ack', ...rest } as StreamWorkerOptions<unknown>);
  const ctx: DeliveryContext = { options: resolved, hardAborted };
  return { ctx, logger };
}

const raw = (deliveryCount = 1, fields: string[] = ['k', 'v']): RawEntry => ({
  id: '1700000000000-0',
  deliveryCount,
  fields: fields.map((f) => Buffer.from(f)),
});

const finishing = { finished: () => {} };
const signal = new AbortController().signal;

/** The decision as one value: what completion (if any) the delivery asks for. */
const decision = (d: Delivery) => ({ action: d.action, reason: d.reason, exceptionType: d.exceptionType, fault: d.fault });

/** Runs one delivery synchronously: its handler must return directly. */
function decideNow(ctx: DeliveryContext, entry = raw()): Delivery {
  const d = deliver(ctx, entry, 'reader-0', signal, finishing);
  expect(d).toBeInstanceOf(Delivery); // a handler that returns directly allocates no promise
  return d as Delivery;
}

class OrderRejected extends Error {}

describe('a handler that returns directly', () => {
  it.each([
    ['ack', { action: 'ack' }],
    ['nack', { action: 'release' }],
    ['dead-letter', { action: 'dead-letter', reason: 'explicit' }],
  ] as const)("'%s' asks for %j", (result, expected) => {
    const { ctx } = context({ handler: () => result, deadLetterStream: '{o}:dead' });
    expect(decision(decideNow(ctx))).toEqual({ reason: undefined, exceptionType: undefined, fault: undefined, ...expected });
  });

  it('an unknown result is a handler failure: released, with a warning that names what it was and what is allowed', () => {
    const { ctx, logger } = context({ handler: () => 'done' });
    expect(decision(decideNow(ctx))).toMatchObject({ action: 'release', exceptionType: undefined });
    expect(logger.entries).toEqual([
      {
        level: 'warn',
        message: `handler returned an unknown result ("done"); expected 'ack', 'nack' or 'dead-letter' (StreamWorkerResult); counted as a handler failure: the entry stays pending for recovery`,
        context: { entryId: '1700000000000-0', consumer: 'reader-0' },
      },
    ]);
  });

  it('dead-letter without a deadLetterStream is a handler failure', () => {
    const { ctx, logger } = context({ handler: () => 'dead-letter' });
    expect(decision(decideNow(ctx))).toMatchObject({ action: 'release', reason: undefined });
    expect(logger.entries[0]!.message).toMatch(/^handler returned dead-letter but no deadLetterStream is set/);
  });

  it('a throw is a handler failure: released, and the thrown type (never its message) is kept and logged', () => {
    const { ctx, logger } = context({
      handler: () => {
        throw new OrderRejected('card 4111-1111 declined');
      },
    });
    expect(decision(decideNow(ctx))).toEqual({ action: 'release', reason: undefined, exceptionType: 'OrderRejected', fault: undefined });
    expect(logger.entries[0]).toMatchObject({ level: 'warn', context: { exceptionType: 'OrderRejected' } });
    expect(JSON.stringify(logger.entries)).not.toContain('4111');
  });

  it('a deserializer that throws is a handler failure too', () => {
    const { ctx } = context({
      deserialize: () => {
        throw new SyntaxError('bad JSON');
      },
    });
    expect(decision(decideNow(ctx))).toMatchObject({ action: 'release', exceptionType: 'SyntaxError' });
  });

  it('a `then` getter that throws is the handler’s failure', () => {
    const { ctx } = context({
      handler: () =>
        ({
          get then(): never {
            throw new RangeError('hostile');
          },
        }) as never,
    });
    expect(decision(decideNow(ctx))).toMatchObject({ action: 'release', exceptionType: 'RangeError' });
  });
});

describe('the final attempt (deliveryLimit)', () => {
  const limited = { deadLetterStream: '{o}:dead', deliveryLimit: 3 };

  const throws = (): string => {
    throw new OrderRejected();
  };
  it.each([
    ['nack', (): unknown => 'nack', { reason: 'nack', exceptionType: undefined }, []],
    ['a throw', throws, { reason: 'processing-failed', exceptionType: 'OrderRejected' }, ['stream handler failed']],
    ['an unknown result', (): unknown => 42, { reason: 'processing-failed', exceptionType: undefined }, ['handler returned an unknown result (42)']],
  ] as const)('%s on attempt 3 of 3 is dead-lettered', (_, handler, expected, warned) => {
    const { ctx, logger } = context({ ...limited, handler: handler as () => string });
    expect(decision(decideNow(ctx, raw(3)))).toEqual({ action: 'dead-letter', fault: undefined, ...expected });
    // A warning, where there is one, says where the entry went.
    expect(logger.entries.map((e) => e.message.slice(0, warned[0]?.length))).toEqual(warned);
    for (const e of logger.entries) expect(e.message).toMatch(/its final attempt \(deliveryLimit 3\): the entry is dead-lettered$/);
  });

  it('before the final attempt a failure is released', () => {
    const { ctx } = context({ ...limited, handler: () => 'nack' });
    expect(decideNow(ctx, raw(2)).action).toBe('release');
  });

  it('an ack on the final attempt is an ack', () => {
    const { ctx } = context({ ...limited, handler: () => 'ack' });
    expect(decideNow(ctx, raw(3)).action).toBe('ack');
  });

  it('an attempt past the limit (the final one was abandoned) is dead-lettered without calling the handler', () => {
    let calls = 0;
    const { ctx } = context({ ...limited, handler: () => (calls++, 'ack') });
    expect(decision(decideNow(ctx, raw(4)))).toEqual({ action: 'dead-letter', reason: 'delivery-limit', exceptionType: undefined, fault: undefined });
    expect(calls).toBe(0);
  });
});

describe('no completion', () => {
  it('with deadLetterStream, an entry of more than 1,024 field/value pairs faults before the handler, and no attempt is reported', () => {
    let calls = 0;
    const starts: DeliveryStart[] = [];
    const { ctx } = context({ deadLetterStream: '{o}:dead', handler: () => (calls++, 'ack'), instrumentation: { startDelivery: (s) => void starts.push(s) } });
    const d = decideNow(
      ctx,
      raw(
        1,
        Array.from({ length: 2 * 1025 }, (_, i) => `f${i}`),
      ),
    );
    expect(d.action).toBeUndefined();
    expect(isRespireError(d.fault, 'TOO_MANY_FIELDS')).toBe(true);
    expect(calls).toBe(0);
    expect(starts).toEqual([]);
    expect(d.telemetry).toBeUndefined();
  });

  it('after the shutdown timeout no handler starts and nothing is completed (canceled)', () => {
    let calls = 0;
    const { ctx } = context({ handler: () => (calls++, 'ack'), hardAborted: true });
    expect(decision(decideNow(ctx))).toEqual({ action: undefined, reason: undefined, exceptionType: undefined, fault: undefined });
    expect(calls).toBe(0);
  });

  it('a result that arrives after the shutdown timeout is not completed, and the warning says so', async () => {
    const shared = context({ handler: async () => 'ack' });
    const ctx = { options: shared.ctx.options, hardAborted: false };
    const pending = deliver(ctx, raw(), 'reader-0', signal, finishing);
    expect(pending).toBeInstanceOf(Promise);
    ctx.hardAborted = true; // the timeout expires while the handler's promise settles
    expect(decision(await pending)).toEqual({ action: undefined, reason: undefined, exceptionType: undefined, fault: undefined });
    expect(shared.logger.entries.map((e) => e.message)).toEqual(['handler finished after the shutdown timeout; its result is not acknowledged']);
  });

  it('a scope factory that throws is a RespireScopeError fault; the handler never runs', async () => {
    const { ctx } = context({
      handler: undefined,
      createScope: () => {
        throw new TypeError('container disposed');
      },
    });
    const d = await deliver(ctx, raw(), 'reader-0', signal, finishing);
    expect(d.action).toBeUndefined();
    expect(d.fault).toMatchObject({ name: 'RespireScopeError', message: 'StreamWorker: scope creation failed (TypeError)' });
  });
});

describe('handlers that wait', () => {
  it('an async handler gives a promise of the delivery, decided when the handler settles', async () => {
    const { ctx } = context({ handler: async () => 'nack' });
    const pending = deliver(ctx, raw(), 'reader-0', signal, finishing);
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending).action).toBe('release');
  });

  it('a rejection is a handler failure with the rejected value’s type', async () => {
    const { ctx } = context({ handler: () => Promise.reject(new OrderRejected()) });
    expect(decision(await deliver(ctx, raw(), 'reader-0', signal, finishing))).toMatchObject({ action: 'release', exceptionType: 'OrderRejected' });
  });

  it('a scope’s handler runs in its scope, which the delivery keeps for disposal after completion', async () => {
    let disposed = 0;
    const scope = { handler: () => 'ack' as const, dispose: () => void disposed++ };
    const { ctx } = context({ handler: undefined, createScope: () => scope });
    const d = await deliver(ctx, raw(), 'reader-0', signal, finishing);
    expect(d.action).toBe('ack');
    expect(d.scope).toBe(scope);
    expect(disposed).toBe(0);
  });
});

describe('telemetry start', () => {
  it('starts the attempt with the entry’s trace context; a parent written twice is not trusted', () => {
    const starts: DeliveryStart[] = [];
    const { ctx } = context({ keyPrefix: 'tenant:', instrumentation: { startDelivery: (s) => void starts.push(s) } });
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    decideNow(ctx, raw(2, ['payload', 'x', 'traceparent', parent, 'tracestate', 'a=1']));
    decideNow(ctx, raw(1, ['traceparent', parent, 'traceparent', parent, 'tracestate', 'a=1']));
    expect(starts).toEqual([
      {
        telemetryName: 'default',
        stream: 'tenant:{o}:events',
        destination: '{o}:events',
        group: 'g',
        entryId: '1700000000000-0',
        deliveryCount: 2,
        traceParent: parent,
        traceState: 'a=1',
      },
      expect.objectContaining({ deliveryCount: 1, traceParent: undefined, traceState: 'a=1' }),
    ]);
  });
});
