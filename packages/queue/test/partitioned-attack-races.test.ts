// PartitionedQueue (README "Scaling past one master") under races and faults: ACKs racing NACKs
// across partitions, a history rewritten rather than grown mid-run, a deleted metadata key restored
// with its grown history, a lost reply on one partition's receive, and a waiting receive whose
// blocking connection keeps dying.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRedisServer } from '@respire/testing';
import { PartitionedQueue, RespirePartitionCountError, isRespireError, utf8Codec, type PartitionedQueueOptions } from '@respire/queue';
import { REFRESH_MS } from '../src/partitions/tracker.js';
import { describeOnTargets, standalone, targets, uniqueName, type Connection } from './support.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describeOnTargets('PartitionedQueue races', targets, (_target, connection) => {
  const queueOf = (partitions: number, name = uniqueName(), options: Partial<PartitionedQueueOptions<string>> = {}): PartitionedQueue<string> =>
    new PartitionedQueue<string>(connection().client, name, { codec: utf8Codec, partitions, ...options });

  it('an ackMany racing a nackMany of the same messages across partitions: each message settles exactly once', async () => {
    const name = uniqueName();
    const a = queueOf(4, name);
    const b = queueOf(4, name);
    await a.sendMany(Array.from({ length: 24 }, (_, i) => ({ payload: `m${i}` })));
    const batch = await a.receive(30_000, { max: 24 });
    expect(batch).toHaveLength(24);
    expect(new Set(batch.map((m) => m.partition)).size).toBe(4);
    const [acked, nacked] = await Promise.all([a.ackMany(batch), b.nackMany([...batch].reverse(), 0)]);
    nacked.reverse();
    for (let i = 0; i < batch.length; i++) expect([acked[i], nacked[i]], batch[i]!.payload).toContain(true);
    for (let i = 0; i < batch.length; i++) expect(acked[i] && nacked[i], batch[i]!.payload).toBe(false);
    // Exactly the NACKed ones come back, once each, and nothing else is left.
    const back = await b.receive(30_000, { max: 50 });
    const expected = batch.filter((_, i) => nacked[i]).map((m) => m.payload);
    expect(back.map((m) => m.payload).sort()).toEqual(expected.sort());
    expect(await b.ackMany(back)).toEqual(back.map(() => true));
    expect(await a.receive(30_000, { max: 50 })).toEqual([]);
  });

  it('a history rewritten (not grown) mid-run, even to one naming the instance’s count, stops the instance', async () => {
    const name = uniqueName();
    const queue = queueOf(3, name);
    await queue.send('one');
    await connection().raw(queue.metadataKey, ['SET', queue.metadataKey, '2,3@1']);
    await sleep(REFRESH_MS + 50);
    const error = await queue.receive(30_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RespirePartitionCountError);
    expect(await queue.send('two').catch((e: unknown) => e)).toBe(error);
  });

  it('a deleted metadata key is restored with the grown history it had, not the instance’s option', async () => {
    const name = uniqueName();
    await PartitionedQueue.grow(connection().client, name, 2);
    await PartitionedQueue.grow(connection().client, name, 4);
    const queue = queueOf(2, name);
    await queue.receive(30_000);
    const key = queue.metadataKey;
    const recorded = String(await connection().raw(key, ['GET', key]));
    expect(recorded).toMatch(/^2,4@\d+$/);
    await connection().raw(key, ['DEL', key]);
    await sleep(REFRESH_MS + 50);
    await queue.receive(30_000);
    expect(String(await connection().raw(key, ['GET', key]))).toBe(recorded);
    // A new instance with the first count still follows the grown one.
    const later = queueOf(2, name);
    await later.receive(30_000);
    expect(later.partitions).toBe(4);
  });
});

describe('PartitionedQueue faults on the fake server', () => {
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
  const queueOf = (partitions: number) => new PartitionedQueue<string>(conn.client, uniqueName(), { codec: utf8Codec, partitions });

  it("a lost reply on one partition's receive throws, and the other partitions' leases are receivable again at once", async () => {
    const queue = queueOf(3);
    await queue.sendMany(Array.from({ length: 3 }, (_, i) => ({ payload: `m${i}` })));
    const fault = fake.faults.inject({ script: 'queue-receive', action: { type: 'lost-reply' } });
    const error = await queue.receive(60_000, { max: 3 }).catch((e: unknown) => e);
    fault.remove();
    expect(isRespireError(error)).toBe(true);
    // The lost reply's message stays leased (its script ran) until its 60 s lease ends; the two others are receivable now.
    const again = await queue.receive(60_000, { max: 3 });
    expect(again).toHaveLength(2);
    // A closed connection may also cut the calls pipelined behind the lost one before they ran
    // (delivery count 1); one that leased was NACKed (delivery count 2). None is held.
    expect(isRespireError(error) && error.code).toBe('TRANSPORT_FAILED');
    expect(again.every((m) => m.deliveryCount <= 2)).toBe(true);
    expect(new Set(again.map((m) => m.partition)).size).toBe(2);
    expect(await queue.ackMany(again)).toEqual([true, true]);
  });

  it('a waiting receive whose blocking connection is dropped twice still wakes on a send; dropped every time, it throws and leases nothing', async () => {
    const queue = queueOf(3);
    await queue.receive(30_000); // records the count
    const twice = fake.faults.inject({ command: 'XREAD', action: { type: 'drop' }, times: 2 });
    const waiting = queue.receive(30_000, { waitMs: 5000 });
    await sleep(300);
    await queue.send('late');
    const got = await waiting;
    twice.remove();
    expect(got.map((m) => m.payload)).toEqual(['late']);
    expect(await queue.ack(got[0]!)).toBe(true);

    const always = fake.faults.inject({ command: 'XREAD', action: { type: 'drop' }, times: 'always' });
    const started = Date.now();
    const error = await queue.receive(30_000, { waitMs: 5000 }).catch((e: unknown) => e);
    always.remove();
    expect(isRespireError(error)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    await queue.send('after');
    const after = await queue.receive(30_000, { max: 5 });
    expect(after.map((m) => m.payload)).toEqual(['after']);
  });
});
