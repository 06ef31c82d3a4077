// A partitioned call that one partition fails while the others succeed: sendMany names what was
// sent; a receive keeps what the others leased when the failure proves nothing ran there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRedisServer } from '@respire/testing';
import { isRespireError } from '@respire/core-scripts';
import { PartitionedQueue, RespirePartialSendError, utf8Codec } from '@respire/queue';
import { standalone, uniqueName, type Connection } from './support.js';

const TRYAGAIN = 'TRYAGAIN Multiple keys request during rehashing of slot';

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
const lengths = async (queue: PartitionedQueue<string>) => Promise.all(queue.streamKeys.map(async (key) => Number(await conn.raw(key, ['XLEN', key]))));

describe('a partitioned sendMany that fails on some partitions', () => {
  it('throws RespirePartialSendError, never retryable, whose results name exactly the items that were appended', async () => {
    const queue = queueOf(3);
    await queue.send('first'); // records the count, so the fault below meets only sendMany's calls
    const before = await lengths(queue);
    const fault = fake.faults.inject({ script: 'queue-send-many', action: { type: 'error', message: TRYAGAIN } });
    const items = Array.from({ length: 9 }, (_, i) => ({ payload: `m${i}` }));
    const error = await queue.sendMany(items).catch((e: unknown) => e);
    fault.remove();
    expect(error).toBeInstanceOf(RespirePartialSendError);
    const partial = error as RespirePartialSendError;
    expect(partial.retryable).toBe(false);
    expect(partial.code).toBe('SERVER_ERROR');
    expect(partial.failedPartitions).toHaveLength(1);
    const failed = partial.failedPartitions[0]!;
    const missing = partial.results.flatMap((result, index) => (result === undefined ? [index] : []));
    expect(missing).toHaveLength(3);
    // What the server holds agrees with results: the failed partition gained nothing, the others one per sent item.
    const after = await lengths(queue);
    const gained = after.map((n, p) => n - before[p]!);
    const sentPer = [0, 1, 2].map((p) => partial.results.filter((r) => r?.partition === p).length);
    expect(gained).toEqual(sentPer);
    expect(gained[failed]).toBe(0);
    expect(gained.reduce((a, b) => a + b, 0)).toBe(6);
    // Each sent result names an entry that holds its payload.
    for (const [index, result] of partial.results.entries()) {
      if (result === undefined) continue;
      const key = queue.streamKeys[result.partition]!;
      const entries = (await conn.raw(key, ['XRANGE', key, result.id, result.id])) as [string, string[]][];
      expect(entries[0]![1]).toContain(`m${index}`);
    }
  });

  it('rethrows the failure as it is when every partition it touched failed (retryable: nothing ran)', async () => {
    const queue = queueOf(3);
    await queue.send('first');
    const before = await lengths(queue);
    const fault = fake.faults.inject({ script: 'queue-send-many', times: 'always', action: { type: 'error', message: TRYAGAIN } });
    const error = await queue.sendMany(Array.from({ length: 6 }, (_, i) => ({ payload: `m${i}` }))).catch((e: unknown) => e);
    fault.remove();
    expect(error).not.toBeInstanceOf(RespirePartialSendError);
    expect(isRespireError(error) && error.retryable).toBe(true);
    expect(await lengths(queue)).toEqual(before);
  });
});

describe('a partitioned receive that fails on one partition', () => {
  it('returns what the others leased when the failure is retryable, and leaves the failed partition untouched', async () => {
    const queue = queueOf(3);
    await queue.sendMany(Array.from({ length: 6 }, (_, i) => ({ payload: `m${i}` }))); // two per partition, in turn
    const fault = fake.faults.inject({ script: 'queue-receive', action: { type: 'error', message: TRYAGAIN } });
    const got = await queue.receive(60_000, { max: 6 });
    fault.remove();
    expect(fault.hits).toBe(1);
    const partitions = new Set(got.map((m) => m.partition));
    expect(got).toHaveLength(4);
    expect(partitions.size).toBe(2);
    // The skipped partition's two messages were not leased: the next receive gets them, first deliveries.
    const rest = await queue.receive(60_000, { max: 6 });
    expect(rest).toHaveLength(2);
    expect(rest.every((m) => !partitions.has(m.partition) && m.deliveryCount === 1)).toBe(true);
    expect(await queue.ackMany([...got, ...rest])).toEqual(Array(6).fill(true));
  });

  it('throws the retryable failure when no other partition leased anything', async () => {
    const queue = queueOf(3);
    await queue.send('only'); // partition of the first send in turn; the others stay empty
    const fault = fake.faults.inject({ script: 'queue-receive', times: 'always', action: { type: 'error', message: TRYAGAIN } });
    const error = await queue.receive(60_000, { max: 3 }).catch((e: unknown) => e);
    fault.remove();
    expect(isRespireError(error) && error.retryable).toBe(true);
    const [again] = await queue.receive(60_000, { max: 3 });
    expect(again).toMatchObject({ payload: 'only', deliveryCount: 1 });
  });

  it('releases what the others leased and throws when the failure is not retryable', async () => {
    const queue = queueOf(3);
    await queue.sendMany(Array.from({ length: 3 }, (_, i) => ({ payload: `m${i}` })));
    const fault = fake.faults.inject({ script: 'queue-receive', action: { type: 'error', message: 'ERR something the server refuses' } });
    const error = await queue.receive(60_000, { max: 3 }).catch((e: unknown) => e);
    fault.remove();
    expect(isRespireError(error) && !error.retryable).toBe(true);
    // The two messages the other partitions leased were NACKed: receivable again at once.
    const again = await queue.receive(60_000, { max: 3 });
    expect(again).toHaveLength(3);
    expect(again.filter((m) => m.deliveryCount === 2)).toHaveLength(2);
  });
});
