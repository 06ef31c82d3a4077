// Delayed send (README "Delayed send"; beyond the contract) on every target, and to the millisecond on a virtual clock.
import { createClient } from 'redis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queueKeys } from '@respire/core-scripts/internal';
import { FakeRedisServer } from '@respire/testing';
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { describeOnTargets, queueFixture, serverTimeMs, targets, type Connection } from './support.js';

/** The `due` field of the entry `id` (ms), or undefined. */
async function dueOf(conn: Connection, stream: string, id: string): Promise<number | undefined> {
  const [entry] = (await conn.raw(stream, ['XRANGE', stream, id, id])) as [string, string[] | Record<string, string>][];
  const fields = entry![1];
  const flat = Array.isArray(fields) ? fields : Object.entries(fields).flat();
  const at = flat.indexOf('due');
  return at < 0 ? undefined : Number(flat[at + 1]);
}

describeOnTargets('ReliableQueue delayed send', targets, (_target, connection) => {
  const queueOf = queueFixture(connection);

  it('is never received before server time at the send + the delay, and is received with delivery count 1 once due', async () => {
    const queue = queueOf();
    const { stream } = queueKeys(queue.name, '');
    const before = await serverTimeMs(connection(), stream);
    const id = await queue.send('later', { delayMs: 250 });
    const after = await serverTimeMs(connection(), stream);
    const due = (await dueOf(connection(), stream, id))!;
    expect(due).toBeGreaterThanOrEqual(Math.ceil(before) + 250);
    expect(due).toBeLessThanOrEqual(Math.ceil(after) + 250);
    // Each receive is bracketed by the server clock: one that returns the message ran at or after
    // the due time (so the reading after it is too); one that returns nothing ran before it.
    for (;;) {
      const start = await serverTimeMs(connection(), stream);
      const batch = await queue.receive(30_000);
      const end = await serverTimeMs(connection(), stream);
      if (batch.length === 0) {
        expect(start).toBeLessThan(due);
        continue;
      }
      expect(end).toBeGreaterThanOrEqual(due);
      expect(batch).toHaveLength(1);
      expect(batch[0]).toMatchObject({ id, payload: 'later', deliveryCount: 1 });
      expect(await queue.ack(batch[0]!)).toBe(true);
      break;
    }
  });

  it('parks a message that is not yet due in the deadlines index with delivery count 0, taking no batch slot', async () => {
    const queue = queueOf();
    const { deadlines } = queueKeys(queue.name, '');
    const delayed = await queue.send('delayed', { delayMs: 600_000 });
    const ready = await queue.send('ready');
    const batch = await queue.receive(30_000, { max: 1 });
    expect(batch.map((m) => m.id)).toEqual([ready]);
    const score = await connection().raw(deadlines, ['ZSCORE', deadlines, `${delayed}:0`]);
    expect(Number(score)).toBe(await dueOf(connection(), queue.streamKey, delayed));
    expect(await queue.receive(30_000)).toEqual([]);
  });

  it('fills the batch past many parked messages', async () => {
    const queue = queueOf();
    for (let i = 0; i < 25; i++) await queue.send(`delayed ${i}`, { delayMs: 600_000 });
    const ready = [await queue.send('a'), await queue.send('b')];
    expect((await queue.receive(30_000, { max: 2 })).map((m) => m.id)).toEqual(ready);
  });

  it('a delay of 0 is a plain send', async () => {
    const queue = queueOf();
    const id = await queue.send('now', { delayMs: 0 });
    expect(await dueOf(connection(), queue.streamKey, id)).toBeUndefined();
    expect((await queue.receive(30_000)).map((m) => m.id)).toEqual([id]);
  });

  it('deduplicates delayed sends as any send: the window starts at the send', async () => {
    const queue = queueOf();
    const first = await queue.sendWithResult('first', { deduplicationId: 'd', delayMs: 600_000 });
    const again = await queue.sendWithResult('second', { deduplicationId: 'd', delayMs: 1 });
    const plain = await queue.sendWithResult('third', { deduplicationId: 'd' });
    expect(first.duplicate).toBe(false);
    expect(again).toEqual({ id: first.id, duplicate: true });
    expect(plain).toEqual({ id: first.id, duplicate: true });
    expect(await connection().raw(queue.streamKey, ['XLEN', queue.streamKey])).toBe(1);
  });

  it('counts deliveries from the first one after the delay: a NACK then redelivers it with count 2', async () => {
    const queue = queueOf({ deliveryLimit: 2 });
    const id = await queue.send('x', { delayMs: 30 });
    const { stream } = queueKeys(queue.name, '');
    const due = (await dueOf(connection(), stream, id))!;
    expect(await queue.receive(30_000)).toEqual([]);
    while ((await serverTimeMs(connection(), stream)) < due);
    const [first] = await queue.receive(30_000);
    expect(first).toMatchObject({ id, deliveryCount: 1 });
    expect(await queue.nack(first!, 0)).toBe(true);
    const [second] = await queue.receive(30_000);
    expect(second).toMatchObject({ id, deliveryCount: 2 });
  });

  it('ignores the client clock: a client clock an hour ahead does not make a delayed message due', async () => {
    const queue = queueOf();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3_600_000 });
    try {
      await queue.send('x', { delayMs: 60_000 });
      expect(await queue.receive(30_000)).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
    expect(await queue.receive(30_000)).toEqual([]);
  });

  it('a waiting receive takes a delayed message at its due time by the server clock, whatever steps the client clock takes meanwhile', async () => {
    const queue = queueOf();
    const keys = queueKeys(queue.name, '');
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const id = await queue.send('x', { delayMs: 600 });
      const waiting = queue.receive(30_000, { waitMs: 5000 });
      vi.setSystemTime(Date.now() + 3_600_000); // an hour ahead: the message is not due by it
      await new Promise((resolve) => setTimeout(resolve, 100));
      vi.setSystemTime(Date.now() - 7_200_000); // then an hour behind: the wait is not stretched
      const batch = await waiting;
      expect(batch.map((m) => [m.id, m.deliveryCount])).toEqual([[id, 1]]);
      // Leased at server time (its lease deadline − the visibility timeout) at or after its due time, not 1 ms before.
      const due = await dueOf(connection(), keys.stream, id);
      const deadlines = (await connection().raw(keys.deadlines, ['ZRANGE', keys.deadlines, '0', '-1', 'WITHSCORES'])) as unknown[];
      const flat = deadlines.flat() as string[];
      expect(flat).toHaveLength(2);
      expect(Number(flat[1]) - 30_000).toBeGreaterThanOrEqual(due!);
      // And not much after it: the block ended at the due time (server clock), not at waitMs.
      expect(Number(flat[1]) - 30_000 - due!).toBeLessThan(2000);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('delayed send on a virtual server clock', () => {
  const opened: { server: FakeRedisServer; client: { destroy(): void } }[] = [];
  afterEach(async () => {
    for (const { server, client } of opened.splice(0)) {
      client.destroy();
      await server.close();
    }
  });

  async function fakeQueue() {
    const server = await FakeRedisServer.start({ clock: { mode: 'virtual', startMs: 1_700_000_000_000 } });
    const client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
    opened.push({ server, client });
    return { server, queue: new ReliableQueue(client, 'orders', { codec: utf8Codec }) };
  }

  it('is not received one millisecond early, and is received at the due time itself', async () => {
    const { server, queue } = await fakeQueue();
    const id = await queue.send('x', { delayMs: 5_000 });
    expect(await queue.receive(1_000)).toEqual([]);
    server.clock.advance(4_999);
    expect(await queue.receive(1_000)).toEqual([]);
    server.clock.advance(1);
    expect(await queue.receive(1_000)).toMatchObject([{ id, deliveryCount: 1 }]);
  });

  it('waits for its due time also when the server clock steps backwards, before or after it was parked', async () => {
    const { server, queue } = await fakeQueue();
    const start = server.clock.nowMs();
    const parked = await queue.send('parked', { delayMs: 1_000 });
    expect(await queue.receive(1_000)).toEqual([]);
    const waiting = await queue.send('waiting', { delayMs: 1_000 });
    server.clock.set(start - 60_000);
    expect(await queue.receive(1_000)).toEqual([]);
    server.clock.set(start + 999);
    expect(await queue.receive(1_000)).toEqual([]);
    server.clock.set(start + 1_000);
    expect((await queue.receive(1_000, { max: 10 })).map((m) => m.id).sort()).toEqual([parked, waiting].sort());
  });

  it('finds a ready message behind parked ones, and delivers every parked one once due', async () => {
    const { server, queue } = await fakeQueue();
    for (let i = 0; i < 10; i++) await queue.send(`d${i}`, { delayMs: 10_000 });
    const ready = await queue.send('ready');
    expect((await queue.receive(600_000, { max: 1 })).map((m) => m.id)).toEqual([ready]);
    server.clock.advance(10_000);
    expect(await queue.receive(1_000, { max: 100 })).toHaveLength(10);
  });
});
