// PartitionedQueue (README "Scaling past one master"; beyond the contract) on every target:
// the contract's core behaviours across partitions, routing, fair receive, receipts, the recorded count.
import { expect, it } from 'vitest';
import { keySlot } from '@respire/core-scripts/internal';
import { PartitionedQueue, ReliableQueue, isRespireError, utf8Codec, type PartitionedQueueOptions } from '@respire/queue';
import { partitionOfId } from '../src/partitions/layout.js';
import { describeOnTargets, snapshot, targets, uniqueName, untilAllDue, type Connection } from './support.js';

/** A deduplication ID of the form `<stem>-<n>` that routes to `partition` (the routing itself is checked by the sends). */
function idFor(partition: number, count: number, stem: string): string {
  for (let n = 0; ; n++) if (partitionOfId(`${stem}-${n}`, count) === partition) return `${stem}-${n}`;
}

async function length(conn: Connection, stream: string): Promise<number> {
  return Number(await conn.raw(stream, ['XLEN', stream]));
}

async function exists(conn: Connection, key: string): Promise<boolean> {
  return Number(await conn.raw(key, ['EXISTS', key])) === 1;
}

/** Every partition's stored state, to prove that a refused call changed nothing. */
async function state(conn: Connection, queue: PartitionedQueue<string>): Promise<string> {
  const parts = await Promise.all(
    queue.streamKeys.map((stream, index) =>
      snapshot(conn, { stream, deadlines: stream.replace(/:stream$/, ':deadlines'), deadLetter: queue.deadLetterStreamKeys[index]! }),
    ),
  );
  return JSON.stringify([parts, await exists(conn, queue.metadataKey)]);
}

describeOnTargets('PartitionedQueue', targets, (_target, connection) => {
  const queueOf = (partitions: number, options: Partial<PartitionedQueueOptions<string>> = {}, name = uniqueName()): PartitionedQueue<string> =>
    new PartitionedQueue<string>(connection().client, name, { codec: utf8Codec, partitions, ...options });

  it("puts partition i's hash tag in the middle half of the i-th stripe of the slot range, and on a Cluster each of 3 on its own master", async () => {
    const queue = queueOf(3);
    const slots = queue.streamKeys.map((key) => keySlot(key));
    expect(slots[0]).toBeGreaterThanOrEqual(1365);
    expect(slots[0]).toBeLessThan(4096);
    expect(slots[1]).toBeGreaterThanOrEqual(6826);
    expect(slots[1]).toBeLessThan(9557);
    expect(slots[2]).toBeGreaterThanOrEqual(12287);
    expect(slots[2]).toBeLessThan(15019);
    if (connection().cluster) {
      const nodes = await Promise.all(queue.streamKeys.map((key) => connection().raw(key, ['CLUSTER', 'MYID'])));
      expect(new Set(nodes.map(String)).size).toBe(3);
    }
    // Another instance finds the same partitions.
    expect(queueOf(3, {}, queue.name).partitionNames).toEqual(queue.partitionNames);
  });

  it('sends, receives and acknowledges across partitions: sends without an ID go to the partitions in turn', async () => {
    const queue = queueOf(3);
    const sent = await Promise.all(Array.from({ length: 9 }, (_, i) => queue.sendWithResult(`m${i}`)));
    const perPartition = [0, 1, 2].map((p) => sent.filter((r) => r.partition === p).length);
    expect(perPartition).toEqual([3, 3, 3]);
    for (const [p, stream] of queue.streamKeys.entries()) expect(await length(connection(), stream)).toBe(3 + 0 * p);
    const batch = await queue.receive(30_000, { max: 9 });
    expect(batch.map((m) => m.payload).sort()).toEqual(sent.map((_, i) => `m${i}`).sort());
    for (const message of batch) {
      const result = sent[Number(message.payload.slice(1))]!;
      expect(message).toMatchObject({ id: result.id, partition: result.partition, deliveryCount: 1 });
    }
    expect(await queue.ackMany(batch)).toEqual(batch.map(() => true));
    for (const stream of queue.streamKeys) expect(await length(connection(), stream)).toBe(0);
    expect(await queue.ack(batch[0]!)).toBe(false);
    expect(await queue.receive(30_000, { max: 9 })).toEqual([]);
  });

  it('redelivers a nacked message from its partition with a new receipt; the old receipt no longer completes it', async () => {
    const queue = queueOf(4);
    const { id, partition } = await queue.sendWithResult('again');
    const [first] = await queue.receive(30_000);
    expect(first).toMatchObject({ id, partition, deliveryCount: 1 });
    expect(await queue.nack(first!, 0)).toBe(true);
    const [second] = await queue.receive(30_000);
    expect(second).toMatchObject({ id, partition, deliveryCount: 2 });
    expect(second!.receipt).not.toBe(first!.receipt);
    expect(await queue.ack(first!)).toBe(false);
    expect(await queue.extend(second!, 60_000)).toBe(true);
    expect(await queue.ack(second!)).toBe(true);
  });

  it("dead-letters at the delivery limit into the message's own partition's dead-letter stream", async () => {
    const queue = queueOf(3, { deliveryLimit: 2 });
    const dedup = idFor(1, 3, 'poison');
    const { id, partition } = await queue.sendWithResult('poison', { deduplicationId: dedup });
    expect(partition).toBe(1);
    for (let delivery = 1; delivery <= 2; delivery++) {
      const [message] = await queue.receive(30_000);
      expect(message).toMatchObject({ id, deliveryCount: delivery });
      expect(await queue.nack(message!)).toBe(true);
    }
    expect(await queue.receive(30_000, { max: 10 })).toEqual([]);
    const lengths = await Promise.all(queue.deadLetterStreamKeys.map((key) => length(connection(), key)));
    expect(lengths).toEqual([0, 1, 0]);
    const [[, fields]] = (await connection().raw(queue.deadLetterStreamKeys[1]!, ['XRANGE', queue.deadLetterStreamKeys[1]!, '-', '+'])) as [
      [string, unknown[]],
    ];
    const flat = fields.map(String);
    expect(flat[flat.indexOf('source_id') + 1]).toBe(id);
    expect(flat[flat.indexOf('delivery_count') + 1]).toBe('2');
  });

  it('deduplicates across the whole queue: every instance routes one ID to one partition, also within a sendMany', async () => {
    const name = uniqueName();
    const one = queueOf(5, {}, name);
    const two = queueOf(5, {}, name);
    const first = await one.sendWithResult('first', { deduplicationId: 'order-42' });
    const repeats = await Promise.all([
      two.sendWithResult('second', { deduplicationId: 'order-42' }),
      one.sendWithResult('third', { deduplicationId: 'order-42' }),
    ]);
    for (const repeat of repeats) expect(repeat).toEqual({ id: first.id, partition: first.partition, duplicate: true });
    const batch = await two.sendMany([
      { payload: 'x', deduplicationId: 'order-42' },
      { payload: 'y', deduplicationId: 'order-43' },
      { payload: 'z', deduplicationId: 'order-43' },
    ]);
    expect(batch[0]).toEqual({ id: first.id, partition: first.partition, duplicate: true });
    expect(batch[1]!.duplicate).toBe(false);
    expect(batch[2]).toEqual({ ...batch[1], duplicate: true });
    const received = await one.receive(30_000, { max: 10 });
    expect(received.map((m) => m.payload).sort()).toEqual(['first', 'y']);
  });

  it('sendMany groups items by partition and returns one result per item, in order', async () => {
    const queue = queueOf(3);
    const items = Array.from({ length: 10 }, (_, i) => ({ payload: `item ${i}` }));
    const results = await queue.sendMany(items);
    expect(results).toHaveLength(10);
    expect([0, 1, 2].map((p) => results.filter((r) => r.partition === p).length).sort()).toEqual([3, 3, 4]);
    // A share left by one partition may go to another that has nothing more: receive until all are in.
    const batch = [];
    for (let call = 0; batch.length < 10 && call < 10; call++) batch.push(...(await queue.receive(30_000, { max: 10 - batch.length })));
    const byKey = new Map(batch.map((m) => [`${m.partition}/${m.id}`, m.payload]));
    expect(results.map((r) => byKey.get(`${r.partition}/${r.id}`))).toEqual(items.map((item) => item.payload));
  });

  it('a sendMany with one bad item sends nothing to any partition and records nothing', async () => {
    const queue = queueOf(3);
    const before = await state(connection(), queue);
    const items = [{ payload: 'a' }, { payload: 'b' }, { payload: 'c', deduplicationWindowMs: -1 }];
    await expect(queue.sendMany(items)).rejects.toSatisfy(
      (e: unknown) => isRespireError(e, 'INVALID_ARGUMENT') && (e as unknown as { argument: string }).argument === 'items[2].deduplicationWindowMs',
    );
    expect(await state(connection(), queue)).toBe(before);
    expect(await exists(connection(), queue.metadataKey)).toBe(false);
  });

  it('a receive never returns more than max, and repeated receives drain every partition', async () => {
    const queue = queueOf(4);
    await queue.sendMany(Array.from({ length: 41 }, (_, i) => ({ payload: String(i) })));
    const seen = new Set<string>();
    const maxes = [1, 3, 7, 2, 10];
    for (let call = 0; seen.size < 41 && call < 60; call++) {
      const max = maxes[call % maxes.length]!;
      const batch = await queue.receive(30_000, { max });
      expect(batch.length).toBeLessThanOrEqual(max);
      for (const message of batch) seen.add(message.payload);
      await queue.ackMany(batch);
    }
    expect(seen.size).toBe(41);
    for (const stream of queue.streamKeys) expect(await length(connection(), stream)).toBe(0);
  });

  it('no partition starves behind a loaded one: every partition is asked within ceil(partitions / max) receives', async () => {
    const queue = queueOf(4);
    await queue.sendMany(Array.from({ length: 20 }, (_, i) => ({ payload: `loaded ${i}`, deduplicationId: idFor(0, 4, `load${i}`) })));
    const singles = await queue.sendMany([1, 2, 3].map((p) => ({ payload: `single ${p}`, deduplicationId: idFor(p, 4, 'single') })));
    expect(singles.map((r) => r.partition)).toEqual([1, 2, 3]);
    const got: string[] = [];
    for (let call = 0; call < 2; call++) got.push(...(await queue.receive(30_000, { max: 2 })).map((m) => m.payload));
    expect(got).toHaveLength(4);
    expect(got.filter((p) => p.startsWith('single')).sort()).toEqual(['single 1', 'single 2', 'single 3']);
  });

  it('a receive makes at most 2 × min(partitions, max) partition calls; an idle one with partitions ≤ max asks each partition once', async () => {
    const calls: string[] = [];
    const instrumentation = {
      startOperation: (start: { operation: string; queue: string }) => {
        if (start.operation === 'receive') calls.push(start.queue);
        return undefined;
      },
    };
    const six = queueOf(6, { instrumentation });
    expect(await six.receive(30_000, { max: 4 })).toEqual([]);
    expect(calls.length).toBeLessThanOrEqual(8);
    expect(new Set(calls)).toEqual(new Set(six.partitionNames));
    calls.length = 0;
    const three = queueOf(3, { instrumentation });
    expect(await three.receive(30_000, { max: 10 })).toEqual([]);
    expect(calls.sort()).toEqual([...three.partitionNames].sort());
    calls.length = 0;
    await three.sendMany(Array.from({ length: 30 }, (_, i) => ({ payload: String(i) })));
    expect(await three.receive(30_000, { max: 10 })).toHaveLength(10);
    expect(calls.length).toBeLessThanOrEqual(6);
  });

  it('with max 1, consecutive receives sweep the partitions', async () => {
    const queue = queueOf(5);
    await queue.sendMany([0, 1, 2, 3, 4].map((p) => ({ payload: `p${p}`, deduplicationId: idFor(p, 5, 'sweep') })));
    const got: string[] = [];
    for (let call = 0; call < 5; call++) {
      const batch = await queue.receive(30_000, { max: 1 });
      expect(batch).toHaveLength(1);
      got.push(batch[0]!.payload);
    }
    expect(got.sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
  });

  it("refuses before any I/O a plain queue's receipt, a receipt naming a partition it lacks, and a partitioned receipt on a plain queue", async () => {
    const name = uniqueName();
    const plain = new ReliableQueue<string>(connection().client, uniqueName(), { codec: utf8Codec });
    await plain.send('plain');
    const [plainMessage] = await plain.receive(30_000);
    const queue = queueOf(3, {}, name);
    const before = await state(connection(), queue);
    const refused = (e: unknown): boolean => isRespireError(e, 'INVALID_ARGUMENT');
    await expect(queue.ack(plainMessage!)).rejects.toSatisfy(refused);
    await expect(queue.nackMany([plainMessage!])).rejects.toSatisfy(refused);
    await expect(queue.extend({ id: plainMessage!.id, receipt: `p3~${plainMessage!.receipt}` }, 1000)).rejects.toSatisfy(refused);
    await expect(queue.ack({ id: plainMessage!.id, receipt: `p01~${plainMessage!.receipt}` })).rejects.toSatisfy(refused);
    await expect(queue.ack({ id: 'not an id', receipt: `p0~${plainMessage!.receipt}` })).rejects.toSatisfy(refused);
    expect(await state(connection(), queue)).toBe(before);
    await queue.send('partitioned');
    const [message] = await queue.receive(30_000);
    await expect(plain.ack(message!)).rejects.toSatisfy(refused);
    expect(await plain.ack(plainMessage!)).toBe(true);
    expect(await queue.ack(message!)).toBe(true);
  });

  it('a receipt rewritten to name another partition completes nothing there, even where that partition holds the same entry ID', async () => {
    const queue = queueOf(2);
    const a = await queue.sendWithResult('a', { deduplicationId: idFor(0, 2, 'a') });
    const b = await queue.sendWithResult('b', { deduplicationId: idFor(1, 2, 'b') });
    const batch = await queue.receive(30_000, { max: 2 });
    expect(batch).toHaveLength(2);
    const inA = batch.find((m) => m.partition === a.partition)!;
    const inB = batch.find((m) => m.partition === b.partition)!;
    const forged = { id: inB.id, receipt: inA.receipt.replace(/^p0~/, 'p1~') };
    expect(await queue.ack(forged)).toBe(false);
    expect(await queue.ack({ id: inA.id, receipt: inA.receipt.replace(/^p0~/, 'p1~') })).toBe(false);
    expect(await queue.ackMany([inA, inB])).toEqual([true, true]);
  });

  it('ackMany, nackMany and extendMany over several partitions fence each receipt and answer in the order given', async () => {
    const queue = queueOf(3);
    await queue.sendMany([0, 1, 2].map((p) => ({ payload: `p${p}`, deduplicationId: idFor(p, 3, 'fence') })));
    const first = await queue.receive(50, { max: 3 });
    expect(first.map((m) => m.partition).sort()).toEqual([0, 1, 2]);
    for (const name of queue.partitionNames) await untilAllDue(connection(), { name });
    const second = await queue.receive(30_000, { max: 3 });
    expect(second.map((m) => m.deliveryCount)).toEqual([2, 2, 2]);
    const stale = (p: number) => first.find((m) => m.partition === p)!;
    const fresh = (p: number) => second.find((m) => m.partition === p)!;
    // Interleaved so that each partition's group is split across the list.
    const mixed = [stale(0), fresh(1), stale(2), fresh(0), fresh(2), stale(1)];
    expect(await queue.extendMany(mixed, 60_000)).toEqual([false, true, false, true, true, false]);
    expect(await queue.ackMany([stale(1), fresh(1)])).toEqual([false, true]);
    expect(await queue.nackMany(mixed)).toEqual([false, false, false, true, true, false]);
    // The nacked receipts are stale now: nothing completes any more, nothing is extended.
    expect(await queue.ackMany(mixed)).toEqual(mixed.map(() => false));
    expect(await queue.extendMany(mixed, 60_000)).toEqual(mixed.map(() => false));
    const third = await queue.receive(30_000, { max: 3 });
    expect(third.map((m) => `${m.payload}@${m.deliveryCount}`).sort()).toEqual(['p0@3', 'p2@3']);
    expect(await queue.ackMany(third)).toEqual([true, true]);
    for (const stream of queue.streamKeys) expect(await length(connection(), stream)).toBe(0);
  });

  it('records the partition count at first use; an instance with another count gets a typed error and sends nothing', async () => {
    const name = uniqueName();
    const three = queueOf(3, {}, name);
    await three.send('x');
    expect(String(await connection().raw(three.metadataKey, ['GET', three.metadataKey]))).toBe('3');
    const four = queueOf(4, {}, name);
    for (const call of [() => four.send('y'), () => four.receive(1000), () => four.send('z')]) {
      await expect(call()).rejects.toSatisfy(
        (e: unknown) => e instanceof Error && e.name === 'RespirePartitionCountError' && isRespireError(e, 'INVALID_STATE'),
      );
    }
    for (const stream of four.streamKeys.slice(3)) expect(await length(connection(), stream)).toBe(0);
    const total = (await Promise.all(three.streamKeys.map((s) => length(connection(), s)))).reduce((a, b) => a + b, 0);
    expect(total).toBe(1);
  });

  it('a metadata key of another type is a key-type error', async () => {
    const queue = queueOf(2);
    await connection().raw(queue.metadataKey, ['XADD', queue.metadataKey, '*', 'f', 'v']);
    await expect(queue.send('x')).rejects.toSatisfy((e: unknown) => isRespireError(e, 'WRONG_TYPE'));
    for (const stream of queue.streamKeys) expect(await length(connection(), stream)).toBe(0);
  });

  it('refuses bad options before any I/O: partition count, a malformed groups option, a braced prefix, a wait above 20 s', async () => {
    const client = connection().client;
    const refused = (e: unknown): boolean => isRespireError(e, 'INVALID_ARGUMENT');
    for (const partitions of [0, 257, 1.5, undefined]) {
      expect(() => new PartitionedQueue(client, 'q', { codec: utf8Codec, partitions: partitions as number })).toThrow(
        expect.objectContaining({ argument: 'partitions' }),
      );
    }
    expect(() => new PartitionedQueue(client, 'q', { codec: utf8Codec, partitions: 2, groups: 5 } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => new PartitionedQueue(client, 'q', { codec: utf8Codec, partitions: 2, keyPrefix: '{t}:' })).toThrow(
      expect.objectContaining({ argument: 'keyPrefix' }),
    );
    const queue = queueOf(2);
    await expect(queue.receive(1000, { waitMs: 20_001 })).rejects.toSatisfy(refused);
    await expect(queue.receive(1000, { max: 1001 })).rejects.toSatisfy(refused);
    expect(await exists(connection(), queue.metadataKey)).toBe(false);
  });

  it('an expired lease comes back from its partition', async () => {
    const queue = queueOf(3);
    const { id, partition } = await queue.sendWithResult('slow');
    const [first] = await queue.receive(50);
    await untilAllDue(connection(), { name: queue.partitionNames[partition]! });
    const [again] = await queue.receive(30_000);
    expect(again).toMatchObject({ id, partition, deliveryCount: 2 });
    expect(await queue.ack(first!)).toBe(false);
    expect(await queue.ack(again!)).toBe(true);
  });
});
