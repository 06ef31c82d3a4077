// PartitionedQueue (README "Scaling past one master") under hostile input, races and faults on
// every target: odd receipts and options refused before any I/O, a receipt of a partition from a
// grow the instance never saw, concurrent grows, a rewritten or deleted metadata key, a partition
// key of the wrong type, and `max` and fairness with uneven backlogs.
import { expect, it } from 'vitest';
import { PartitionedQueue, ReliableQueue, RespirePartitionCountError, isRespireError, utf8Codec, type PartitionedQueueOptions } from '@respire/queue';
import { partitionOfId } from '../src/partitions/layout.js';
import { REFRESH_MS } from '../src/partitions/tracker.js';
import { describeOnTargets, snapshot, targets, uniqueName, type Connection } from './support.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A deduplication ID `<stem>-<n>` that routes to index `index` of a layout of `count`. */
function idFor(index: number, count: number, stem: string): string {
  for (let n = 0; ; n++) if (partitionOfId(`${stem}-${n}`, count) === index) return `${stem}-${n}`;
}

async function state(conn: Connection, queue: PartitionedQueue<string>): Promise<string> {
  const parts = await Promise.all(
    queue.streamKeys.map((stream, index) =>
      snapshot(conn, { stream, deadlines: stream.replace(/:stream$/, ':deadlines'), deadLetter: queue.deadLetterStreamKeys[index]! }),
    ),
  );
  const meta = await conn.raw(queue.metadataKey, ['GET', queue.metadataKey]);
  return JSON.stringify([parts, meta === null ? null : String(meta)]);
}

async function rejection(promise: Promise<unknown>, label = ''): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error(`expected a rejection ${label}`);
    },
    (error: unknown) => error,
  );
}

describeOnTargets('PartitionedQueue under attack', targets, (_target, connection) => {
  const queueOf = (partitions: number, name = uniqueName(), options: Partial<PartitionedQueueOptions<string>> = {}): PartitionedQueue<string> =>
    new PartitionedQueue<string>(connection().client, name, { codec: utf8Codec, partitions, ...options });

  it('refuses odd receive options and receipts with a validation error, changing nothing stored', async () => {
    const queue = queueOf(3);
    await queue.sendMany([{ payload: 'a' }, { payload: 'b' }, { payload: 'c' }]);
    const [message] = await queue.receive(30_000, { max: 1 });
    const before = await state(connection(), queue);
    const plain = new ReliableQueue<string>(connection().client, uniqueName(), { codec: utf8Codec });
    await plain.send('x');
    const [plainMessage] = await plain.receive(30_000);
    const inner = message!.receipt.slice(message!.receipt.indexOf('~') + 1);
    const odd: unknown[] = [
      null,
      'p0~x',
      { id: message!.id },
      { id: message!.id, receipt: '' },
      { id: message!.id, receipt: inner }, // a partition's own receipt, without its partition
      { id: message!.id, receipt: `p00~${inner}` },
      { id: message!.id, receipt: `p-1~${inner}` },
      { id: message!.id, receipt: `p3~${inner}` }, // a partition the queue does not have
      { id: message!.id, receipt: `p4096~${inner}` },
      { id: message!.id, receipt: `p99999~${inner}` },
      { id: message!.id, receipt: ` p0~${inner}` },
      { id: 'not-an-id', receipt: message!.receipt },
      { id: message!.id, receipt: 42 },
      plainMessage,
    ];
    for (const bad of odd) {
      for (const call of [
        () => queue.ack(bad as never),
        () => queue.nack(bad as never),
        () => queue.extend(bad as never, 30_000),
        () => queue.ackMany([message!, bad as never]),
      ]) {
        const error = await rejection(call(), JSON.stringify(bad));
        expect(isRespireError(error) && error.code, `${JSON.stringify(bad)}`).toBe('INVALID_ARGUMENT');
      }
    }
    // A partitioned receipt handed to a plain queue.
    expect(isRespireError(await rejection(plain.ack(message!)))).toBe(true);
    for (const options of [
      { max: 0 },
      { max: -1 },
      { max: Number.NaN },
      { max: Number.POSITIVE_INFINITY },
      { max: 1.5 },
      { max: 1e9 },
      { waitMs: -1 },
      { waitMs: Number.NaN },
      { waitMs: 1e9 },
    ]) {
      const error = await rejection(queue.receive(30_000, options), JSON.stringify(options));
      expect(isRespireError(error) && error.code, JSON.stringify(options)).toBe('INVALID_ARGUMENT');
    }
    for (const timeout of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e12]) {
      const error = await rejection(queue.receive(timeout), String(timeout));
      expect(isRespireError(error) && error.code, String(timeout)).toBe('INVALID_ARGUMENT');
    }
    for (const delay of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(isRespireError(await rejection(queue.nack(message!, delay)))).toBe(true);
    }
    expect(await state(connection(), queue)).toBe(before);
    expect(await queue.ack(message!)).toBe(true);
  });

  it('refuses bad partition counts before any I/O', () => {
    for (const partitions of [0, -1, 257, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '3', undefined, null]) {
      let error: unknown;
      try {
        queueOf(partitions as number);
      } catch (caught) {
        error = caught;
      }
      expect(isRespireError(error) && error.code, String(partitions)).toBe('INVALID_ARGUMENT');
    }
  });

  it('a receipt rewritten to name another partition completes nothing, there or in its own partition', async () => {
    const queue = queueOf(2);
    await queue.sendMany([
      { payload: 'a', deduplicationId: idFor(0, 2, 'r') },
      { payload: 'b', deduplicationId: idFor(1, 2, 'r') },
    ]);
    const batch = await queue.receive(30_000, { max: 2 });
    expect(batch.map((m) => m.partition).sort()).toEqual([0, 1]);
    const [a, b] = batch;
    const swapped = (m: typeof a, to: number) => ({ id: m!.id, receipt: m!.receipt.replace(/^p\d+~/, `p${to}~`) });
    expect(await queue.ackMany([swapped(a, b!.partition), swapped(b, a!.partition)])).toEqual([false, false]);
    expect(await queue.ackMany(batch)).toEqual([true, true]);
  });

  it('acknowledges a receipt of a partition added by a grow this instance never saw', async () => {
    const name = uniqueName();
    const old = queueOf(2, name);
    expect(await old.receive(30_000)).toEqual([]); // records 2 and reads the history
    await PartitionedQueue.grow(connection().client, name, 5);
    const fresh = queueOf(5, name);
    expect(await fresh.receive(30_000)).toEqual([]); // reads the grown history: numbers of both counts
    const beyond = fresh.currentPartitions.filter((p) => p >= 2);
    expect(beyond.length).toBeGreaterThan(0);
    const target = fresh.currentPartitions.indexOf(beyond[0]!);
    const { partition } = await fresh.sendWithResult('new', { deduplicationId: idFor(target, 5, 'g') });
    expect(partition).toBe(beyond[0]);
    let message;
    for (let i = 0; i < 20 && message === undefined; i++) message = (await fresh.receive(30_000, { max: 10 })).find((m) => m.payload === 'new');
    expect(message).toBeDefined();
    // `old` has not refreshed (its last read is well under a second old) and knows partitions 0 and 1 only.
    expect(old.partitionNames.length).toBe(2);
    expect(await old.extend(message!, 30_000)).toBe(true);
    expect(await old.ack(message!)).toBe(true);
    expect(await fresh.ack(message!)).toBe(false);
  });

  it('an instance that has made no call yet, built with the grown count, settles receipts of every partition by number', async () => {
    const name = uniqueName();
    const first = queueOf(2, name);
    await first.sendMany([{ payload: 'a' }, { payload: 'b' }]); // one in each of the first count's partitions
    await PartitionedQueue.grow(connection().client, name, 5);
    const grown = queueOf(5, name);
    await grown.sendMany(Array.from({ length: 5 }, (_, i) => ({ payload: `n${i}`, deduplicationId: idFor(i, 5, 'fresh') })));
    const all = [];
    for (let i = 0; i < 10 && all.length < 7; i++) all.push(...(await grown.receive(30_000, { max: 10 })));
    expect(all.map((m) => m.payload).sort()).toEqual(['a', 'b', 'n0', 'n1', 'n2', 'n3', 'n4']);
    expect(Math.max(...all.map((m) => m.partition))).toBeGreaterThanOrEqual(5);
    // Before its first call this instance's numbers are a guess from its option (0..4 for the
    // 5-partition layout); the receipts use the recorded numbering, which it must read first.
    const untouched = queueOf(5, name);
    expect(await untouched.extendMany(all, 30_000)).toEqual(all.map(() => true));
    expect(await untouched.ackMany(all)).toEqual(all.map(() => true));
    expect(await grown.receive(30_000, { max: 10 })).toEqual([]);
    for (const stream of grown.streamKeys) expect(Number(await connection().raw(stream, ['XLEN', stream]))).toBe(0);
  });

  it('two grows racing: one history, both counts in order, and every instance follows the larger', async () => {
    const name = uniqueName();
    const client = connection().client;
    await PartitionedQueue.grow(client, name, 2);
    const results = await Promise.all([PartitionedQueue.grow(client, name, 4), PartitionedQueue.grow(client, name, 6), PartitionedQueue.grow(client, name, 4)]);
    expect(results.every((r) => r.partitions === 4 || r.partitions === 6)).toBe(true);
    const meta = String(await connection().raw(queueOf(2, name).metadataKey, ['GET', queueOf(2, name).metadataKey]));
    // The history only grows: the last count is 6 whatever the order the grows ran in, and 4 at most once.
    expect(meta.split(',').at(-1)).toMatch(/^6@\d+$/);
    expect(meta.split(',').filter((part) => part.startsWith('4@')).length).toBeLessThanOrEqual(1);
    const instance = queueOf(2, name);
    await instance.receive(30_000);
    expect(instance.partitions).toBe(6);
  });

  it('a metadata key rewritten to a count the queue never had stops every call; a deleted one is restored', async () => {
    const name = uniqueName();
    const queue = queueOf(3, name);
    await queue.send('one');
    const key = queue.metadataKey;
    await connection().raw(key, ['DEL', key]);
    await sleep(REFRESH_MS + 50);
    await queue.send('two');
    expect(String(await connection().raw(key, ['GET', key]))).toBe('3');
    await connection().raw(key, ['SET', key, '5']);
    await sleep(REFRESH_MS + 50);
    const error = await rejection(queue.receive(30_000));
    expect(error).toBeInstanceOf(RespirePartitionCountError);
    expect(await rejection(queue.send('three'))).toBe(error);
    const streams = await Promise.all(queue.streamKeys.map((s) => connection().raw(s, ['XLEN', s])));
    expect(streams.map(Number).reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('a metadata key of another type is a key-type error on the first call, and nothing is sent', async () => {
    const queue = queueOf(2);
    await connection().raw(queue.metadataKey, ['XADD', queue.metadataKey, '*', 'f', 'v']);
    const error = await rejection(queue.send('x'));
    expect(isRespireError(error) && error.code).toBe('WRONG_TYPE');
    await connection().raw(queue.metadataKey, ['DEL', queue.metadataKey]);
    expect(typeof (await queue.send('y'))).toBe('string');
  });

  it("a partition's stream of the wrong type fails the receive, and what the others leased is receivable again at once", async () => {
    const queue = queueOf(3);
    const ids = [0, 1, 2].map((i) => idFor(i, 3, 'w'));
    await queue.sendMany(ids.map((deduplicationId, i) => ({ payload: `m${i}`, deduplicationId })));
    const broken = queue.streamKeys[queue.currentPartitions[0]!]!;
    await connection().raw(broken, ['DEL', broken]);
    await connection().raw(broken, ['SET', broken, 'not a stream']);
    const error = await rejection(queue.receive(30_000, { max: 10 }));
    expect(isRespireError(error)).toBe(true);
    await connection().raw(broken, ['DEL', broken]);
    const again = await queue.receive(30_000, { max: 10 });
    expect(again.map((m) => m.payload).sort()).toEqual(['m1', 'm2']);
  });

  it('with uneven backlogs a receive never exceeds max and every partition is served within ceil(partitions / max) receives', async () => {
    const queue = queueOf(5);
    const backlog = [40, 1, 0, 3, 1];
    const items = backlog.flatMap((n, index) =>
      Array.from({ length: n }, (_, k) => ({ payload: `p${index}-${k}`, deduplicationId: idFor(index, 5, `u${index}-${k}`) })),
    );
    await queue.sendMany(items);
    for (const max of [1, 2, 3]) {
      const seen = new Set<number>();
      for (let i = 0; i < Math.ceil(5 / max); i++) {
        const batch = await queue.receive(30_000, { max });
        expect(batch.length).toBeLessThanOrEqual(max);
        for (const m of batch) seen.add(m.partition);
        await queue.nackMany(batch, 0);
      }
      // Every partition with a backlog (all but the empty one) was served.
      const expected = queue.currentPartitions.filter((_, index) => backlog[index]! > 0);
      expect([...seen].sort()).toEqual([...expected].sort());
    }
  });
});
