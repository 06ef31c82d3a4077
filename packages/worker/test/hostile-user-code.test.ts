// Whatever user code throws, returns or rejects with (handlers, deserializers, scopes, loggers, hooks) is contained.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { errorSummary, hostileValues, spawnTypeScriptChild, type HostileValue } from '@respire/harness';
import { StreamProducer, StreamWorker, StreamWorkerHost, type StreamEntry, type StreamWorkerInstrumentation } from '../src/index.js';
import { connectClient, pending, recordingLogger, waitFor, within, type TestClient } from './fault-support.js';
import type {} from '@respire/harness/global-setup';

/**
 * Issue 11, kind 4: nothing user code throws, rejects with or returns can fault the worker in a
 * way the contract does not prescribe, and describing such a value never throws.
 *
 * - handler, deserializer (and the handler's result): a handler failure. The entry stays
 *   pending and the worker keeps reading (README "Results").
 * - logger methods and instrumentation hooks: never change an outcome.
 * - scope creation and disposal: a fault (README "Faults, shutdown and failover"), reported as what it is, a
 *   RespireScopeError "scope creation/disposal failed", not as a transport failure with an
 *   unknown outcome, and always reported (never a reader that silently stops).
 * - StreamProducer's serializer: a RespireCodecError; nothing is sent.
 *
 * The hostile values are never handed to `expect`: only strings read from them with guards.
 */
const values = hostileValues();
const table = values.map((v) => [v.label, v] as const);

let conn: TestClient;
const running: StreamWorker[] = [];
beforeAll(async () => void (conn = await connectClient(inject('redisUrl'))));
afterAll(() => conn.destroy());
afterEach(async () => {
  await Promise.allSettled(running.splice(0).map((w) => w.stop(500)));
});

const keys = () => {
  const tag = `hostile-${randomBytes(5).toString('hex')}`;
  return { stream: `{${tag}}:events`, dead: `{${tag}}:dead` };
};

/** Two entries: `hostile` (the one user code misbehaves on) and `follower` (handled normally after it). */
async function twoEntries(stream: string): Promise<{ hostileId: string; followerId: string }> {
  const hostileId = String(await conn.sendCommand(['XADD', stream, '*', 'k', 'hostile']));
  const followerId = String(await conn.sendCommand(['XADD', stream, '*', 'k', 'follower']));
  return { hostileId, followerId };
}

const isHostile = (entry: StreamEntry) => entry.getString('k') === 'hostile';

function worker(options: Record<string, unknown>): StreamWorker {
  const w = new StreamWorker({ client: conn as never, group: 'g', readWaitMs: 50, logger: recordingLogger(), ...options } as never);
  running.push(w);
  return w;
}

/** The first entry's failure was contained: it is pending at delivery 1, the follower was acknowledged, the worker runs. */
async function expectContained(w: StreamWorker, stream: string, ids: { hostileId: string; followerId: string }, acked: string[]): Promise<void> {
  let settled = false;
  w.done.then(
    () => (settled = true),
    () => (settled = true),
  );
  await waitFor(
    async () => settled || (acked.includes(ids.followerId) && (await pending(conn, stream, 'g')).length === 1),
    5000,
    'follower acknowledged',
  ).catch(() => {});
  const early = await within(w.done, 0);
  expect({
    state: w.state,
    faulted: early.settled ? (errorSummary('error' in early ? early.error : undefined).message ?? 'stopped') : false,
    pending: (await pending(conn, stream, 'g')).map((p) => ({ id: p.id, count: p.count })),
    followerHandled: acked.includes(ids.followerId),
  }).toEqual({ state: 'running', faulted: false, pending: [{ id: ids.hostileId, count: 1 }], followerHandled: true });
}

/**
 * Every exception type the worker logged is a string: describing the value did not throw. A
 * failure that threw must have been logged with one; an unknown result is logged without.
 */
function expectDescribedTypes(logger: ReturnType<typeof recordingLogger>, threw: boolean): void {
  const types = logger.entries.filter((e) => e.context && 'exceptionType' in e.context).map((e) => typeof e.context!.exceptionType);
  if (threw) expect(types.length).toBeGreaterThan(0);
  expect(types.every((t) => t === 'string')).toBe(true);
}

type Seam = (value: HostileValue, acked: string[]) => Record<string, unknown>;

/** Seams whose misbehaviour is a handler failure: the entry stays pending and the worker reads on. */
const handlerSeams: [string, boolean, Seam][] = [
  [
    'the handler throws it',
    true,
    (v, acked) => ({
      handler: (e: StreamEntry) => {
        if (isHostile(e)) throw v.make();
        acked.push(e.id);
        return 'ack';
      },
    }),
  ],
  [
    'the handler rejects with it',
    true,
    (v, acked) => ({
      handler: async (e: StreamEntry) => {
        if (isHostile(e)) return Promise.reject(v.make());
        acked.push(e.id);
        return 'ack';
      },
    }),
  ],
  [
    'the handler returns it as its result',
    false,
    (v, acked) => ({
      handler: (e: StreamEntry) => {
        if (isHostile(e)) return v.make() as never;
        acked.push(e.id);
        return 'ack';
      },
    }),
  ],
  [
    'the deserializer throws it',
    true,
    (v, acked) => ({
      deserialize: (e: StreamEntry) => {
        if (isHostile(e)) throw v.make();
        return e;
      },
      handler: (e: StreamEntry) => (acked.push(e.id), 'ack'),
    }),
  ],
];

describe.each(handlerSeams)('kind 4: %s', (_seam, threw, seam) => {
  it.each(table)('%s: a handler failure; the entry stays pending, the worker keeps reading, the type is logged as a string', async (_label, value) => {
    const { stream } = keys();
    const ids = await twoEntries(stream);
    const acked: string[] = [];
    const logger = recordingLogger();
    const w = worker({ stream, logger, ...seam(value, acked) });
    await w.start();
    await expectContained(w, stream, ids, acked);
    expectDescribedTypes(logger, threw);
  });
});

describe('kind 4: the final attempt fails with a hostile value', () => {
  it.each(table)('%s: dead-lettered as processing-failed with a string exception type of at most 256 bytes', async (_label, value) => {
    const { stream, dead } = keys();
    const ids = await twoEntries(stream);
    const acked: string[] = [];
    const w = worker({
      stream,
      deadLetterStream: dead,
      deliveryLimit: 1,
      handler: (e: StreamEntry) => {
        if (isHostile(e)) throw value.make();
        acked.push(e.id);
        return 'ack';
      },
    });
    await w.start();
    await waitFor(async () => acked.includes(ids.followerId) && Number(await conn.sendCommand(['XLEN', dead])) === 1, 5000, 'dead-lettered').catch(() => {});
    const records = (await conn.sendCommand(['XRANGE', dead, '-', '+'])) as unknown[][];
    const fields = (records[0]?.[1] as unknown[] | undefined)?.map(String) ?? [];
    expect({
      state: w.state,
      records: records.length,
      source: fields[1],
      reason: fields[7],
      typeIsShort: fields[8] === '_respire.exception_type' && Buffer.byteLength(fields[9] ?? '') <= 256,
      pending: (await pending(conn, stream, 'g')).length,
    }).toEqual({ state: 'running', records: 1, source: ids.hostileId, reason: 'processing-failed', typeIsShort: true, pending: 0 });
  });
});

describe('kind 4: logger methods', () => {
  it.each(table)('%s thrown by every logger method changes no outcome', async (_label, value) => {
    const { stream } = keys();
    const ids = await twoEntries(stream);
    const acked: string[] = [];
    const throwing = () => {
      throw value.make();
    };
    const logger = { debug: throwing, info: throwing, warn: throwing, error: throwing };
    const w = worker({
      stream,
      logger,
      handler: (e: StreamEntry) => {
        if (isHostile(e)) throw new Error('plain failure, logged as a warning');
        acked.push(e.id);
        return 'ack';
      },
    });
    await w.start();
    await expectContained(w, stream, ids, acked);
  });
});

/** Instrumentation whose every hook misbehaves with `value` in the way `how` says. */
function hostileHooks(value: HostileValue, how: 'throw' | 'getter' | 'scope'): StreamWorkerInstrumentation {
  const fail = () => {
    throw value.make();
  };
  if (how === 'throw') return { startDelivery: () => ({ end: fail }), deadLettered: fail, workerStarted: fail, workerStopped: fail };
  if (how === 'scope') return { startDelivery: () => value.make() as never, deadLettered: () => {}, workerStarted: () => {}, workerStopped: () => {} };
  const hooks = {};
  for (const name of ['startDelivery', 'deadLettered', 'workerStarted', 'workerStopped']) Object.defineProperty(hooks, name, { get: fail, enumerable: true });
  return hooks as StreamWorkerInstrumentation;
}

describe.each([
  ['every instrumentation hook throws it (startDelivery returns a scope whose end throws)', 'throw'],
  ['every instrumentation hook getter throws it', 'getter'],
  ['startDelivery returns it as the delivery scope', 'scope'],
] as const)('kind 4: %s', (_seam, how) => {
  it.each(table)('%s: no outcome changes; dead-letter and ack complete; stop() resolves', async (_label, value) => {
    const { stream, dead } = keys();
    const ids = await twoEntries(stream);
    const acked: string[] = [];
    const w = worker({
      stream,
      deadLetterStream: dead,
      instrumentation: hostileHooks(value, how),
      handler: (e: StreamEntry) => (isHostile(e) ? 'dead-letter' : (acked.push(e.id), 'ack')),
    });
    const started = await within(w.start(), 5000);
    await waitFor(async () => acked.includes(ids.followerId) && (await pending(conn, stream, 'g')).length === 0, 5000, 'both completed').catch(() => {});
    const stateBeforeStop = w.state;
    const stopped = await within(w.stop(500), 3000);
    const done = await within(w.done, 1000);
    expect({
      started: started.settled && !('error' in started && started.error !== undefined),
      stateBeforeStop,
      deadLetters: Number(await conn.sendCommand(['XLEN', dead])),
      pending: (await pending(conn, stream, 'g')).length,
      followerHandled: acked.includes(ids.followerId),
      stopped: stopped.settled,
      doneResolved: done.settled && !('error' in done && done.error !== undefined),
    }).toEqual({ started: true, stateBeforeStop: 'running', deadLetters: 1, pending: 0, followerHandled: true, stopped: true, doneResolved: true });
  });
});

/** Seams whose misbehaviour is a fault (README "Faults, shutdown and failover"): `done` rejects, naming which seam failed. */
const faultSeams: [string, RegExp, (value: HostileValue) => Record<string, unknown>][] = [
  [
    'createScope throws it',
    /scope creation failed/,
    (v) => ({
      createScope: (e: StreamEntry) => {
        if (isHostile(e)) throw v.make();
        return { handler: () => 'ack' };
      },
    }),
  ],
  [
    'createScope rejects with it',
    /scope creation failed/,
    (v) => ({
      createScope: async (e: StreamEntry) => {
        if (isHostile(e)) return Promise.reject(v.make());
        return { handler: () => 'ack' };
      },
    }),
  ],
  [
    'createScope returns it as the scope',
    /scope creation failed/,
    (v) => ({ createScope: (e: StreamEntry) => (isHostile(e) ? v.make() : { handler: () => 'ack' }) }),
  ],
  [
    'scope.dispose throws it',
    /scope disposal failed/,
    (v) => ({
      createScope: (e: StreamEntry) => ({
        handler: () => 'ack',
        dispose: () => {
          if (isHostile(e)) throw v.make();
        },
      }),
    }),
  ],
  [
    'scope.dispose rejects with it',
    /scope disposal failed/,
    (v) => ({
      createScope: (e: StreamEntry) => ({
        handler: () => 'ack',
        dispose: async () => {
          if (isHostile(e)) return Promise.reject(v.make());
        },
      }),
    }),
  ],
  [
    "the scope's dispose getter throws it",
    /scope disposal failed/,
    (v) => ({
      createScope: (e: StreamEntry) => {
        const scope = { handler: () => 'ack' };
        if (isHostile(e))
          Object.defineProperty(scope, 'dispose', {
            get: () => {
              throw v.make();
            },
          });
        return scope;
      },
    }),
  ],
];

describe.each(faultSeams)('kind 4: %s', (_seam, reason, seam) => {
  it.each(table)('%s: the worker faults with a RespireScopeError naming the seam, never silently and never as an unknown outcome', async (_label, value) => {
    const { stream } = keys();
    await twoEntries(stream);
    const w = worker({ stream, ...seam(value) });
    await w.start();
    const outcome = await within(w.done, 3000);
    expect(outcome.settled, 'done did not settle within 3 s: the worker stopped reading without a fault').toBe(true);
    const summary = errorSummary('error' in outcome ? outcome.error : undefined);
    expect({ name: summary.name, code: summary.code, names: reason.test(String(summary.message)), state: w.state }).toEqual({
      name: 'RespireScopeError',
      code: 'SCOPE_FAILED',
      names: true,
      state: 'stopped',
    });
  });
});

describe('kind 4: option values (describing a bad value never throws)', () => {
  const options: [string, (v: unknown) => Record<string, unknown>][] = [
    ['readWaitMs', (v) => ({ readWaitMs: v })],
    ['consumerCount', (v) => ({ consumerCount: v })],
    ['createGroup', (v) => ({ createGroup: v })],
    ['telemetryName', (v) => ({ telemetryName: v })],
    ['groupStart', (v) => ({ groupStart: v })],
    ['logger', (v) => ({ logger: v })],
    ['instrumentation', (v) => ({ instrumentation: v })],
  ];
  describe.each(options)('%s', (_name, option) => {
    it.each(table)('%s: the constructor accepts it or throws a RespireValidationError', (_label, value) => {
      let thrown: unknown;
      try {
        new StreamWorker({ client: conn as never, stream: 's', group: 'g', handler: () => 'ack', ...option(value.make()) } as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown === undefined ? 'accepted' : errorSummary(thrown).name).toMatch(/^(accepted|RespireValidationError)$/);
    });
  });

  it.each(table)('%s as stop(timeoutMs) or a host faultPolicy: accepted or a RespireValidationError', async (_label, value) => {
    const w = new StreamWorker({ client: conn as never, stream: 's', group: 'g', handler: () => 'ack' });
    const stop = await w.stop(value.make() as never).then(
      () => 'accepted',
      (e: unknown) => errorSummary(e).name,
    );
    let host: unknown = 'accepted';
    try {
      new StreamWorkerHost({ faultPolicy: value.make() as never, handleSignals: false });
    } catch (error) {
      host = errorSummary(error).name;
    }
    expect({ stop, host }).toEqual({
      stop: expect.stringMatching(/^(accepted|RespireValidationError)$/),
      host: expect.stringMatching(/^(accepted|RespireValidationError)$/),
    });
  });
});

describe('kind 4: StreamProducer serializer', () => {
  it.each(table)('%s thrown by serialize: a RespireCodecError, nothing sent', async (_label, value) => {
    const { stream } = keys();
    const producer = new StreamProducer<string>({
      client: conn as never,
      stream,
      serialize: () => {
        throw value.make();
      },
    });
    const error = await producer.add('x').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect({ name: errorSummary(error).name, code: errorSummary(error).code, sent: Number(await conn.sendCommand(['EXISTS', stream])) }).toEqual({
      name: 'RespireCodecError',
      code: 'CODEC_FAILED',
      sent: 0,
    });
  });

  it.each(table)('%s returned by serialize: a RespireCodecError, nothing sent', async (_label, value) => {
    const { stream } = keys();
    const producer = new StreamProducer<string>({ client: conn as never, stream, serialize: () => value.make() as never });
    const error = await producer.add('x').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect({ name: errorSummary(error).name, code: errorSummary(error).code, sent: Number(await conn.sendCommand(['EXISTS', stream])) }).toEqual({
      name: 'RespireCodecError',
      code: 'CODEC_FAILED',
      sent: 0,
    });
  });
});

describe('kind 4: asynchronous logger methods and hooks that reject', () => {
  it('no rejection from an async logger or async instrumentation hook goes unhandled (the process would crash), and no outcome changes', async () => {
    const child = spawnTypeScriptChild(
      `
      import { createClient } from 'redis';
      import { StreamWorker } from '@respire/worker';
      const unhandled = [];
      process.on('unhandledRejection', (reason) => unhandled.push(reason instanceof Error ? reason.message : typeof reason));
      const client = createClient({ url: process.env.REDIS_URL });
      client.on('error', () => {});
      await client.connect();
      const tag = process.env.TAG, dead = '{' + tag + '}:dead';
      const reject = async (what) => { throw new Error('async ' + what); };
      const logger = { debug: () => reject('debug'), info: () => reject('info'), warn: () => reject('warn'), error: () => reject('error') };
      const instrumentation = {
        startDelivery: async () => { throw new Error('async startDelivery'); },
        deadLettered: () => reject('deadLettered'),
        workerStarted: () => reject('workerStarted'),
        workerStopped: () => reject('workerStopped'),
      };
      const ended = { startDelivery: () => ({ end: () => reject('end') }) };
      const results = {};
      for (const [name, hooks] of [['hooks', instrumentation], ['scope end', { ...instrumentation, ...ended }]]) {
        const key = '{' + tag + '}:events:' + name;
        await client.sendCommand(['XADD', key, '*', 'k', 'fail']);
        await client.sendCommand(['XADD', key, '*', 'k', 'dead']);
        await client.sendCommand(['XADD', key, '*', 'k', 'ack']);
        const acked = [];
        const worker = new StreamWorker({
          client, stream: key, group: 'g', readWaitMs: 50, deadLetterStream: dead, logger, instrumentation: hooks,
          handler: (e) => {
            const k = e.getString('k');
            if (k === 'fail') throw new Error('handler failure');
            if (k === 'dead') return 'dead-letter';
            acked.push(k);
            return 'ack';
          },
        });
        await worker.start();
        for (let i = 0; i < 200 && acked.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
        await new Promise((r) => setTimeout(r, 200));
        const state = worker.state;
        await worker.stop(500);
        const pendingCount = Number((await client.sendCommand(['XPENDING', key, 'g']))[0]);
        results[name] = { state, acked: acked.length, pending: pendingCount };
      }
      await new Promise((r) => setTimeout(r, 200));
      client.destroy();
      console.log('RESULT ' + JSON.stringify({ unhandled, results }));
      `,
      { cwd: new URL('..', import.meta.url).pathname, env: { REDIS_URL: inject('redisUrl'), TAG: `async-${randomBytes(5).toString('hex')}` } },
    );
    const exit = await child.exit(40_000);
    const line = /RESULT (.*)/.exec(exit.output)?.[1];
    expect(line, `the child did not finish; output:\n${exit.output}`).toBeDefined();
    const result = JSON.parse(line!) as { unhandled: string[]; results: Record<string, unknown> };
    expect(result).toEqual({
      unhandled: [],
      results: { hooks: { state: 'running', acked: 1, pending: 1 }, 'scope end': { state: 'running', acked: 1, pending: 1 } },
    });
  }, 60_000);
});
