// Replies that prove nothing ran (BUSY, LOADING, ...) are retryable errors; others are not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorSummary, startRedisServer } from '@respire/harness';
import { FakeRedisServer, type Fault } from '@respire/testing';
import { ReliableQueue, utf8Codec, type ReceivedMessage } from '@respire/queue';
import { eventually, standalone, uniqueName, type Connection } from './support.js';

/**
 * Issue 11, kind 5, the queue's share: a reply that proves the command did not run (BUSY, LOADING,
 * TRYAGAIN, MASTERDOWN, CLUSTERDOWN) reaches the caller as an error with `retryable === true`, so
 * the caller can repeat the call safely; contract errors (WRONGTYPE, NOPERM) and lost replies (the
 * command may have run) are not retryable. The queue does not retry by itself.
 */
const TRANSIENT_REPLIES: [string, string][] = [
  ['BUSY', 'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT.'],
  ['LOADING', 'LOADING Redis is loading the dataset in memory'],
  ['TRYAGAIN', 'TRYAGAIN Multiple keys request during rehashing of slot'],
  ['MASTERDOWN', "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."],
  ['CLUSTERDOWN', 'CLUSTERDOWN The cluster is down'],
];

let fake: FakeRedisServer;
let conn: Connection;
beforeAll(async () => {
  fake = await FakeRedisServer.start({ version: '7.0' });
  conn = await standalone(fake.url);
});
afterAll(async () => {
  await conn.close();
  await fake.close();
});

/** Each queue call, the command or script it sends, and a check that it did nothing. */
const calls: {
  name: string;
  rule: { command: string } | { script: string };
  prepare(queue: ReliableQueue<string>): Promise<ReceivedMessage<string> | undefined>;
  call(queue: ReliableQueue<string>, message: ReceivedMessage<string> | undefined): Promise<unknown>;
}[] = [
  { name: 'send (XADD)', rule: { command: 'XADD' }, prepare: async () => undefined, call: (q) => q.send('x') },
  {
    name: 'send with a deduplication ID (queue-send)',
    rule: { script: 'queue-send' },
    prepare: async () => undefined,
    call: (q) => q.send('x', { deduplicationId: 'd-1' }),
  },
  { name: 'receive (queue-receive)', rule: { script: 'queue-receive' }, prepare: async (q) => (await q.send('x'), undefined), call: (q) => q.receive(30_000) },
  {
    name: 'ack (queue-ack)',
    rule: { script: 'queue-ack' },
    prepare: async (q) => (await q.send('x'), (await q.receive(30_000))[0]),
    call: (q, m) => q.ack(m!),
  },
  {
    name: 'nack (queue-nack)',
    rule: { script: 'queue-nack' },
    prepare: async (q) => (await q.send('x'), (await q.receive(30_000))[0]),
    call: (q, m) => q.nack(m!, 0),
  },
];

describe.each(calls.map((c) => [c.name, c] as const))('kind 5: %s', (_name, spec) => {
  it.each(TRANSIENT_REPLIES)('a %s reply is an error with retryable === true naming the reply; repeating the call succeeds', async (code, message) => {
    const queue = new ReliableQueue<string>(conn.client, uniqueName(), { codec: utf8Codec });
    const received = await spec.prepare(queue);
    const fault: Fault = fake.faults.inject({ ...spec.rule, action: { type: 'error', message } });
    const error = await spec.call(queue, received).then(
      () => undefined,
      (e: unknown) => e,
    );
    fault.remove();
    const summary = errorSummary(error);
    const repeated = await spec.call(queue, received).then(
      () => 'succeeded',
      (e: unknown) => String(errorSummary(e).message),
    );
    expect({ failed: error !== undefined, retryable: summary.retryable, namesReply: String(summary.message).includes(code), repeated }).toEqual({
      failed: true,
      retryable: true,
      namesReply: true,
      repeated: 'succeeded',
    });
  });
});

describe('kind 5: errors that are not retryable', () => {
  it('WRONGTYPE (a string at the stream key) is not retryable', async () => {
    const queue = new ReliableQueue<string>(conn.client, uniqueName(), { codec: utf8Codec });
    await conn.raw(queue.streamKey, ['SET', queue.streamKey, 'occupied']);
    const summary = errorSummary(
      await queue.receive(30_000).then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect({ code: summary.code, retryable: summary.retryable === true }).toEqual({ code: 'WRONG_TYPE', retryable: false });
  });

  it('NOPERM is not retryable', async () => {
    const queue = new ReliableQueue<string>(conn.client, uniqueName(), { codec: utf8Codec });
    const fault = fake.faults.inject({
      command: 'XADD',
      action: { type: 'error', message: "NOPERM User default has no permissions to run the 'xadd' command" },
    });
    const summary = errorSummary(
      await queue.send('x').then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    fault.remove();
    expect({ code: summary.code, retryable: summary.retryable === true }).toEqual({ code: 'PERMISSION_DENIED', retryable: false });
  });

  it('a lost reply (the command may have run) is not retryable', async () => {
    const queue = new ReliableQueue<string>(conn.client, uniqueName(), { codec: utf8Codec });
    fake.faults.inject({ command: 'XADD', action: { type: 'lost-reply' } });
    const summary = errorSummary(
      await queue.send('x').then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect({ code: summary.code, outcomeUnknown: summary.outcomeUnknown, retryable: summary.retryable === true }).toEqual({
      code: 'TRANSPORT_FAILED',
      outcomeUnknown: true,
      retryable: false,
    });
  });
});

describe("kind 5: a neighbour's slow script on a real server", () => {
  it('a queue busy during a 3 s script under busy-reply-threshold 300: every error it throws is retryable, and it works again after', async () => {
    const server = await startRedisServer();
    const admin = await standalone(server.url);
    const neighbour = await standalone(server.url);
    try {
      await admin.raw('x', ['CONFIG', 'SET', 'busy-reply-threshold', '300']).catch(() => admin.raw('x', ['CONFIG', 'SET', 'lua-time-limit', '300']));
      const queue = new ReliableQueue(admin.client, uniqueName('busy'), { codec: utf8Codec });
      const errors: { code: unknown; retryable: unknown; message: unknown }[] = [];
      let stop = false;
      let scriptOver = false;
      let roundsBefore = 0;
      let roundsAfter = 0;
      const loop = (async () => {
        while (!stop) {
          try {
            await queue.send('m');
            for (const message of await queue.receive(30_000, { max: 10 })) await queue.ack(message);
            if (scriptOver) roundsAfter++;
            else roundsBefore++;
          } catch (error) {
            const s = errorSummary(error);
            errors.push({ code: s.code, retryable: s.retryable, message: s.message });
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      // The queue works before the script starts.
      await eventually(() => roundsBefore > 0);
      const script =
        "local t0 = redis.call('TIME') local start = t0[1] * 1000000 + t0[2] while true do local t = redis.call('TIME') if t[1] * 1000000 + t[2] - start > 3000000 then break end end return 1";
      await neighbour.raw('x', ['EVAL', script, '0']);
      scriptOver = true;
      await eventually(() => roundsAfter >= 3, 5000).catch(() => undefined); // asserted below
      stop = true;
      await loop;
      expect({
        sawBusy: errors.some((e) => String(e.message).includes('BUSY')),
        notRetryable: errors.filter((e) => e.retryable !== true),
        worksAfter: roundsAfter >= 3,
      }).toEqual({ sawBusy: true, notRetryable: [], worksAfter: true });
    } finally {
      await neighbour.close();
      await admin.close();
      await server.close();
    }
  }, 30_000);
});
