// The worker's durability option: completions wait for a replica; one that falls short is logged and the worker goes on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicatedServer, type ReplicatedServerHandle } from '@respire/harness';
import { RespireNotDurableError, RespireValidationError, StreamProducer, StreamWorker } from '../src/index.js';
import { add, eventually, pendingCount, recordingLogger, standalone, uniqueKeys, workerFixture, type Connection } from './support.js';

describe('StreamWorker durability (beyond the contract)', () => {
  let set: ReplicatedServerHandle;
  let conn: Connection;
  let replica: Connection;
  beforeAll(async () => {
    set = await startReplicatedServer({ replicas: 1 });
    conn = await standalone(set.master.url);
    replica = await standalone(set.replicas[0]!.url);
  }, 60_000);
  afterAll(async () => {
    await replica?.close();
    await conn?.close();
    await set?.close();
  });
  const worker = workerFixture(() => conn);

  it('acknowledges with the replica confirming, and goes on with a warning while the replica lags', async () => {
    const { stream } = uniqueKeys();
    const logger = recordingLogger();
    const seen: string[] = [];
    const w = worker({ stream, group: 'g', readWaitMs: 100, logger, durability: { replicas: 1, timeoutMs: 200 }, handler: (e) => (seen.push(e.id), 'ack') });
    await w.start();
    await add(conn, stream, { k: 'confirmed' });
    await eventually(() => seen.length === 1);
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0);
    expect(await pendingCount(replica, stream, 'g')).toBe(0);
    expect(logger.entries.some((e) => e.message === 'completion not confirmed durable')).toBe(false);

    set.pause(set.replicas[0]!);
    try {
      await add(conn, stream, { k: 'unconfirmed' });
      await eventually(() => logger.entries.some((e) => e.message === 'completion not confirmed durable'), 5000);
      const warning = logger.entries.find((e) => e.message === 'completion not confirmed durable')!;
      expect(warning.level).toBe('warn');
      expect(warning.context).toMatchObject({ replicasRequired: 1, replicasReached: 0 });
      // Applied on the master all the same; the worker keeps running.
      expect(await pendingCount(conn, stream, 'g')).toBe(0);
      expect(w.state).toBe('running');
    } finally {
      set.resume(set.replicas[0]!);
      await set.waitForLinks();
    }
    await add(conn, stream, { k: 'after' });
    await eventually(() => seen.length === 3, 5000);
    await w.stop();
    await expect(w.done).resolves.toBeUndefined();
  }, 30_000);

  it('StreamProducer: an append waits for the replica, and one the lagging replica did not confirm raises RespireNotDurableError', async () => {
    const { stream } = uniqueKeys();
    const producer = new StreamProducer<string>({ client: conn.client, stream, serialize: (v) => ({ v }), durability: { replicas: 1, timeoutMs: 200 } });
    await producer.add('confirmed');
    expect(Number(await replica.raw(stream, ['XLEN', stream]))).toBe(1);
    set.pause(set.replicas[0]!);
    try {
      const error = await producer.add('unconfirmed').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RespireNotDurableError);
      expect(error).toMatchObject({ applied: true, replicasReached: 0, replicasRequired: 1 });
      expect(Number(await conn.raw(stream, ['XLEN', stream]))).toBe(2);
    } finally {
      set.resume(set.replicas[0]!);
      await set.waitForLinks();
    }
  }, 30_000);

  it.each([
    [{ replicas: 1, timeoutMs: 5001 }, 'durability.timeoutMs'],
    [{ replicas: 1 }, 'durability.timeoutMs'],
    [{ timeoutMs: 100 }, 'durability'],
  ])('refuses durability %j', (durability, argument) => {
    const make = () => new StreamWorker({ client: conn.client, stream: 's', group: 'g', durability: durability as never, handler: () => 'ack' });
    expect(make).toThrow(RespireValidationError);
    expect(make).toThrow(expect.objectContaining({ argument }));
  });
});
