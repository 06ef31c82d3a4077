// sendMany (README "Batch send"; beyond the contract) on every target.
import { expect, it } from 'vitest';
import { isRespireError } from '@respire/queue';
import { describeOnTargets, queueFixture, targets } from './support.js';

describeOnTargets('ReliableQueue sendMany', targets, (_target, connection) => {
  const queueOf = queueFixture(connection);

  it('appends every item in order in one call, each with its own result', async () => {
    const queue = queueOf();
    const results = await queue.sendMany([{ payload: 'a' }, { payload: 'b' }, { payload: 'c' }]);
    expect(results).toHaveLength(3);
    expect(results.every((r) => !r.duplicate && /^\d+-\d+$/.test(r.id))).toBe(true);
    const batch = await queue.receive(30_000);
    expect(batch.map((m) => [m.id, m.payload, m.deliveryCount])).toEqual([
      [results[0]!.id, 'a', 1],
      [results[1]!.id, 'b', 1],
      [results[2]!.id, 'c', 1],
    ]);
  });

  it('deduplicates against earlier sends and within the batch: the first item with an ID is appended, the rest are its duplicates', async () => {
    const queue = queueOf();
    const earlier = await queue.send('earlier', { deduplicationId: 'old' });
    const results = await queue.sendMany([
      { payload: 'one', deduplicationId: 'new' },
      { payload: 'repeat of old', deduplicationId: 'old' },
      { payload: 'plain' },
      { payload: 'repeat of new', deduplicationId: 'new' },
    ]);
    expect(results[0]!.duplicate).toBe(false);
    expect(results[1]).toEqual({ id: earlier, duplicate: true });
    expect(results[2]!.duplicate).toBe(false);
    expect(results[3]).toEqual({ id: results[0]!.id, duplicate: true });
    expect((await queue.receive(30_000)).map((m) => m.payload)).toEqual(['earlier', 'one', 'plain']);
    // A retry of the whole batch (a lost reply) appends only the items without an ID again.
    const retry = await queue.sendMany([{ payload: 'one', deduplicationId: 'new' }, { payload: 'plain' }]);
    expect(retry[0]).toEqual({ id: results[0]!.id, duplicate: true });
    expect(retry[1]!.duplicate).toBe(false);
  });

  it('sends delayed items beside ready ones', async () => {
    const queue = queueOf();
    const [delayed, ready] = await queue.sendMany([{ payload: 'later', delayMs: 600_000 }, { payload: 'now' }]);
    expect((await queue.receive(30_000)).map((m) => m.id)).toEqual([ready!.id]);
    expect(delayed!.duplicate).toBe(false);
  });

  it('sends 1000 items in one call', async () => {
    const queue = queueOf();
    const results = await queue.sendMany(Array.from({ length: 1000 }, (_, i) => ({ payload: `m${i}`, deduplicationId: `d${i % 500}` })));
    expect(results.filter((r) => !r.duplicate)).toHaveLength(500);
    expect(await connection().raw(queue.streamKey, ['XLEN', queue.streamKey])).toBe(500);
  });

  it('changes nothing when a deduplication key holds another type', async () => {
    const queue = queueOf();
    const key = `{respire-queue:${queue.name}}:dedup:taken`;
    await connection().raw(key, ['HSET', key, 'f', 'v']);
    const error = await queue.sendMany([{ payload: 'a' }, { payload: 'b', deduplicationId: 'taken' }]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'WRONG_TYPE'), String(error)).toBe(true);
    expect(await connection().raw(queue.streamKey, ['EXISTS', queue.streamKey])).toBe(0);
  });
});
