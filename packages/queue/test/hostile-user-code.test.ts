// Codecs and hooks that throw or return anything: the queue contains each.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { errorSummary, hostileValues, spawnTypeScriptChild, type HostileValue } from '@respire/harness';
import { queueKeys } from '@respire/core-scripts/internal';
import { ReliableQueue, utf8Codec, type QueueInstrumentation } from '@respire/queue';
import { standalone, uniqueName, type Connection } from './support.js';

/**
 * Issue 11, kind 4, the queue's share: what a codec or an instrumentation hook throws, rejects with
 * or returns never escapes as anything but the documented error. A codec failure is a
 * RespireCodecError (encode: nothing sent; decode: the batch stays leased), hooks never change an
 * outcome, and describing a bad argument never throws. Hostile values never reach `expect`.
 */
const table = hostileValues().map((v) => [v.label, v] as const);
let conn: Connection;
beforeAll(async () => void (conn = await standalone(inject('redisUrl'))));
afterAll(async () => conn.close());

const summary = (error: unknown) => {
  const s = errorSummary(error);
  return { name: s.name, code: s.code };
};
const CODEC_ERROR = { name: 'RespireCodecError', code: 'CODEC_FAILED' };

describe('kind 4: codec.encode', () => {
  it.each(table)('%s thrown by encode: a RespireCodecError, nothing sent', async (_label, value) => {
    const queue = new ReliableQueue<string>(conn.client, uniqueName(), {
      codec: {
        encode: () => {
          throw value.make();
        },
        decode: (b) => b.toString(),
      },
    });
    const error = await queue.send('x').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect({ ...summary(error), sent: await conn.raw(queue.streamKey, ['EXISTS', queue.streamKey]) }).toEqual({ ...CODEC_ERROR, sent: 0 });
  });

  it.each(table)('%s returned by encode: a RespireCodecError, nothing sent', async (_label, value) => {
    const queue = new ReliableQueue<string>(conn.client, uniqueName(), { codec: { encode: () => value.make() as never, decode: (b) => b.toString() } });
    const error = await queue.send('x', { deduplicationId: 'd' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect({ ...summary(error), sent: await conn.raw(queue.streamKey, ['EXISTS', queue.streamKey]) }).toEqual({ ...CODEC_ERROR, sent: 0 });
  });

  it('a Uint8Array subclass whose buffer getter throws, returned by encode: a RespireCodecError, nothing sent', async () => {
    class Hostile extends Uint8Array {
      override get buffer(): ArrayBuffer {
        throw new Error('hostile buffer');
      }
    }
    const queue = new ReliableQueue<string>(conn.client, uniqueName(), { codec: { encode: () => new Hostile(3), decode: (b) => b.toString() } });
    const error = await queue.send('x').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect({ ...summary(error), sent: await conn.raw(queue.streamKey, ['EXISTS', queue.streamKey]) }).toEqual({ ...CODEC_ERROR, sent: 0 });
  });
});

describe('kind 4: codec.decode', () => {
  it.each(table)('%s thrown by decode: a RespireCodecError, and the batch stays leased', async (_label, value) => {
    const name = uniqueName();
    await new ReliableQueue(conn.client, name, { codec: utf8Codec }).send('x');
    const queue = new ReliableQueue<string>(conn.client, name, {
      codec: {
        encode: (v) => v,
        decode: () => {
          throw value.make();
        },
      },
    });
    const error = await queue.receive(30_000).then(
      () => undefined,
      (e: unknown) => e,
    );
    const keys = queueKeys(name, '');
    expect({ ...summary(error), leased: await conn.raw(keys.deadlines, ['ZCARD', keys.deadlines]) }).toEqual({ ...CODEC_ERROR, leased: 1 });
  });

  it.each(table)('%s returned by decode: delivered as the payload, untouched', async (_label, value) => {
    const name = uniqueName();
    await new ReliableQueue(conn.client, name, { codec: utf8Codec }).send('x');
    const made = value.make();
    const queue = new ReliableQueue<unknown>(conn.client, name, { codec: { encode: () => 'x', decode: () => made } });
    const batch = await queue.receive(30_000);
    expect({ count: batch.length, same: batch[0]?.payload === made, acked: await queue.ack(batch[0]!) }).toEqual({ count: 1, same: true, acked: true });
  });
});

/** Instrumentation misbehaving with `value` in the way `how` says. */
function hostileInstrumentation(value: HostileValue, how: 'start throws' | 'start returns' | 'end throws' | 'getter throws'): QueueInstrumentation {
  const fail = () => {
    throw value.make();
  };
  switch (how) {
    case 'start throws':
      return { startOperation: fail };
    case 'start returns':
      return { startOperation: () => value.make() as never };
    case 'end throws':
      return { startOperation: () => ({ end: fail }) };
    case 'getter throws':
      return Object.defineProperty({}, 'startOperation', { get: fail, enumerable: true }) as QueueInstrumentation;
  }
}

describe.each(['start throws', 'start returns', 'end throws', 'getter throws'] as const)('kind 4: instrumentation (%s)', (how) => {
  it.each(table)('%s: send, receive, nack, ack and a refused call keep their outcomes', async (_label, value) => {
    const queue = new ReliableQueue(conn.client, uniqueName(), { codec: utf8Codec, instrumentation: hostileInstrumentation(value, how) });
    const id = await queue.send('x');
    const [first] = await queue.receive(30_000);
    const nacked = await queue.nack(first!, 0);
    const [second] = await queue.receive(30_000);
    const acked = await queue.ack(second!);
    const refused = await new ReliableQueue(conn.client, uniqueName(), {
      codec: {
        encode: () => {
          throw new Error('plain');
        },
        decode: (b) => b,
      },
      instrumentation: hostileInstrumentation(value, how),
    })
      .send(Buffer.from('x'))
      .then(
        () => undefined,
        (e: unknown) => summary(e),
      );
    expect({ sent: id === first?.id, nacked, redelivered: second?.deliveryCount, acked, refused }).toEqual({
      sent: true,
      nacked: true,
      redelivered: 2,
      acked: true,
      refused: CODEC_ERROR,
    });
  });
});

describe('kind 4: argument and option values (describing a bad value never throws)', () => {
  const calls: [string, (q: ReliableQueue<string>, v: unknown) => unknown][] = [
    ['receive(visibilityTimeoutMs)', (q, v) => q.receive(v as never)],
    ['receive(30000, { max })', (q, v) => q.receive(30_000, { max: v as never })],
    ['nack(message, delayMs)', (q, v) => q.nack({ id: '1-1', receipt: '1.AAAAAAAAAAAAAAAA.1' }, v as never)],
    ['send(payload, { deduplicationWindowMs })', (q, v) => q.send('x', { deduplicationId: 'd', deduplicationWindowMs: v as never })],
    ['send(payload, { deduplicationId })', (q, v) => q.send('x', { deduplicationId: v as never })],
    ['ack(message)', (q, v) => q.ack(v as never)],
    ['new ReliableQueue({ deliveryLimit })', (_q, v) => new ReliableQueue(conn.client, uniqueName(), { codec: utf8Codec, deliveryLimit: v as never })],
    ['new ReliableQueue({ commandTimeoutMs })', (_q, v) => new ReliableQueue(conn.client, uniqueName(), { codec: utf8Codec, commandTimeoutMs: v as never })],
  ];
  describe.each(calls)('%s', (_name, call) => {
    it.each(table)('%s: accepted, or a RespireValidationError', async (_label, value) => {
      const queue = new ReliableQueue(conn.client, uniqueName(), { codec: utf8Codec });
      let outcome: unknown;
      try {
        await call(queue, value.make());
        outcome = 'accepted';
      } catch (error) {
        outcome = errorSummary(error).name;
      }
      expect(outcome).toMatch(/^(accepted|RespireValidationError)$/);
    });
  });
});

describe('kind 4: asynchronous instrumentation that rejects', () => {
  it('no rejection from an async startOperation or end goes unhandled (the process would crash), and no outcome changes', async () => {
    const child = spawnTypeScriptChild(
      `
      import { createClient } from 'redis';
      import { ReliableQueue, utf8Codec } from '@respire/queue';
      const unhandled = [];
      process.on('unhandledRejection', (reason) => unhandled.push(reason instanceof Error ? reason.message : typeof reason));
      const client = createClient({ url: process.env.REDIS_URL });
      client.on('error', () => {});
      await client.connect();
      const results = {};
      const variants = {
        'async startOperation': { startOperation: async () => { throw new Error('async startOperation'); } },
        'async end': { startOperation: () => ({ end: async () => { throw new Error('async end'); } }) },
      };
      for (const [name, instrumentation] of Object.entries(variants)) {
        const queue = new ReliableQueue(client, process.env.QUEUE + '-' + name.replace(' ', '-'), { codec: utf8Codec, instrumentation });
        await queue.send('x');
        const [message] = await queue.receive(30000);
        results[name] = { received: message?.payload, acked: await queue.ack(message) };
      }
      // An unhandled rejection is reported once the microtasks of the turn that made it have run.
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      client.destroy();
      console.log('RESULT ' + JSON.stringify({ unhandled, results }));
      `,
      { cwd: new URL('..', import.meta.url).pathname, env: { REDIS_URL: inject('redisUrl'), QUEUE: uniqueName('async') } },
    );
    const exit = await child.exit(30_000);
    const line = /RESULT (.*)/.exec(exit.output)?.[1];
    expect(line, `the child did not finish; output:\n${exit.output}`).toBeDefined();
    expect(JSON.parse(line!)).toEqual({
      unhandled: [],
      results: { 'async startOperation': { received: 'x', acked: true }, 'async end': { received: 'x', acked: true } },
    });
  }, 45_000);
});
