// Version-gated paths (XACKDEL, XREADGROUP CLAIM, IDMP) on the real server under test, counted with INFO commandstats.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandCalls, redisAtLeast, startRedisServer, type RedisServerHandle } from '@respire/harness';
import { StreamProducer, StreamWorker } from '../src/index.js';
import { eventually, recordingLogger } from './support.js';

/**
 * Version-gated paths on the real server under test (REDIS_SERVER in the CI matrix), on a private
 * server of that binary so INFO commandstats sees only this file's commands.
 */
describe('server-dependent worker paths, checked with INFO commandstats', () => {
  let server: RedisServerHandle;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await startRedisServer();
    client = createClient({ url: server.url });
    await client.connect();
  });
  afterAll(async () => {
    client.destroy();
    await server.close();
  });

  const atLeast = (major: number, minor: number) => redisAtLeast(server, major, minor);
  const calls = (command: string) => commandCalls(client, command);

  it('deleteAcknowledgedEntries: XACKDEL ACKED on Redis 8.2+ (body deleted); XACK elsewhere (body kept)', async () => {
    const stream = '{paths}:acked';
    await client.xAdd(stream, '*', { k: 'v' });
    const before = await calls('xackdel');
    let handled = 0;
    const worker = new StreamWorker({
      client,
      stream,
      group: 'g',
      readWaitMs: 100,
      deleteAcknowledgedEntries: true,
      logger: recordingLogger(),
      handler: () => (handled++, 'ack'),
    });
    await worker.start();
    try {
      await eventually(async () => handled === 1 && Number((await client.xPending(stream, 'g')).pending) === 0);
    } finally {
      await worker.stop();
    }
    if (atLeast(8, 2)) {
      expect((await calls('xackdel')) - before).toBe(1);
      expect(await client.xLen(stream)).toBe(0);
    } else {
      expect(await calls('xackdel')).toBe(0);
      expect(await client.xLen(stream)).toBe(1);
    }
  });

  it('a read of 16 is completed by one script call: one XPENDING fences the batch and one XACK (XACKDEL ACKED on Redis 8.2+) acknowledges it', async () => {
    const stream = '{paths}:batched';
    let handled = 0;
    const worker = new StreamWorker({
      client,
      stream,
      group: 'g',
      batchSize: 16,
      readWaitMs: 2000,
      recoveryPollIntervalMs: 60_000,
      deleteAcknowledgedEntries: true,
      logger: recordingLogger(),
      handler: () => (handled++, 'ack'),
    });
    await worker.start();
    try {
      // Past the first recovery page: the reader is parked in its read (CLIENT LIST of this private server).
      await eventually(async () => / cmd=xreadgroup /.test(` ${String(await client.sendCommand(['CLIENT', 'LIST']))}`));
      const before = { xpending: await calls('xpending'), xack: await calls('xack'), xackdel: await calls('xackdel') };
      // Appended at once, so the parked read takes all 16.
      const multi = client.multi();
      for (let i = 0; i < 16; i++) multi.xAdd(stream, '*', { i: String(i) });
      await multi.exec();
      // XINFO GROUPS, not XPENDING, so the count below sees only the worker's.
      await eventually(async () => handled === 16 && Number((await client.xInfoGroups(stream))[0]?.pending) === 0);
      expect((await calls('xpending')) - before.xpending).toBe(1);
      if (atLeast(8, 2)) {
        expect((await calls('xackdel')) - before.xackdel).toBe(1);
        expect(await client.xLen(stream)).toBe(0);
      } else {
        expect((await calls('xack')) - before.xack).toBe(1);
        expect(await client.xLen(stream)).toBe(16);
      }
    } finally {
      await worker.stop();
    }
  });

  it('recovery: XREADGROUP CLAIM on Redis 8.4+, XAUTOCLAIM elsewhere', async () => {
    const stream = '{paths}:recover';
    await client.xGroupCreate(stream, 'g', '0', { MKSTREAM: true });
    await client.xAdd(stream, '*', { k: 'v' });
    await client.xReadGroup('g', 'gone', { key: stream, id: '>' });
    const autoclaimBefore = await calls('xautoclaim');
    const seen: number[] = [];
    const worker = new StreamWorker({
      client,
      stream,
      group: 'g',
      readWaitMs: 100,
      minimumIdleTimeMs: 1, // the entry 'gone' read is idle past it by the first recovery page
      recoveryPollIntervalMs: 50,
      logger: recordingLogger(),
      handler: (entry) => (seen.push(entry.deliveryCount), 'ack'),
    });
    await worker.start();
    try {
      await eventually(async () => seen.length === 1 && Number((await client.xPending(stream, 'g')).pending) === 0);
    } finally {
      await worker.stop();
    }
    expect(seen).toEqual([2]);
    if (atLeast(8, 4)) expect((await calls('xautoclaim')) - autoclaimBefore).toBe(0);
    else expect((await calls('xautoclaim')) - autoclaimBefore).toBeGreaterThan(0);
  });

  it('StreamProducer: the same idempotency ID appends once on Redis 8.6+ (IDMP), every time elsewhere', async () => {
    const stream = '{paths}:produced';
    const producer = new StreamProducer<string>({ client, stream, producerId: 'orders-api', serialize: (v) => ({ v }) });
    const first = await producer.add('x', { idempotencyId: 'order-1' });
    const second = await producer.add('x', { idempotencyId: 'order-1' });
    if (atLeast(8, 6)) {
      expect(second).toBe(first);
      expect(await client.xLen(stream)).toBe(1);
    } else {
      expect(second).not.toBe(first);
      expect(await client.xLen(stream)).toBe(2);
    }
  });
});
