// Server paths no real server here runs: the Redis 8.8 XNACK model and the Redis 6.2 XAUTOCLAIM model of the fake server.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRedisServer } from '@respire/testing';
import { StreamWorker } from '../src/index.js';
import { eventually, recordingLogger, uniqueKeys } from './support.js';

/**
 * Server paths no real server here can run: Redis 8.8 XNACK (not buildable here), modelled by
 * @respire/testing's FakeRedisServer, which runs the same worker Lua as real Redis.
 */
describe('Redis 8.8 model: XNACK FAIL', () => {
  let server: FakeRedisServer;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await FakeRedisServer.start({ version: '8.8' });
    client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
  });
  afterAll(async () => {
    client.destroy();
    await server.close();
  });

  it('releases a failed delivery whose minimum idle time has elapsed with XNACK FAIL (count kept)', async () => {
    const { stream } = uniqueKeys();
    const attempts: number[] = [];
    const w = new StreamWorker({
      client,
      stream,
      group: 'g',
      readWaitMs: 100,
      minimumIdleTimeMs: 200,
      recoveryPollIntervalMs: 50,
      logger: recordingLogger(),
      handler: async (entry) => {
        attempts.push(entry.deliveryCount);
        if (entry.deliveryCount === 1) {
          server.clock.advance(300); // the server's clock moves past the minimum idle time while the handler runs
          return 'nack';
        }
        return 'ack';
      },
    });
    await w.start();
    try {
      await client.sendCommand(['XADD', stream, '*', 'k', 'v']);
      await eventually(() => attempts.length === 2, 5000);
      const xnack = server.commandLog.entries().filter((e) => e.name === 'XNACK');
      expect(xnack).toHaveLength(1);
      expect(xnack[0]).toMatchObject({ origin: 'script', args: [stream, 'g', 'FAIL', 'IDS', '1', expect.any(String)] });
      expect(attempts).toEqual([1, 2]);
    } finally {
      await w.stop(1000);
    }
  });

  it('leaves a failure before the minimum idle time pending for idle recovery (no XNACK)', async () => {
    const { stream } = uniqueKeys();
    const attempts: number[] = [];
    const outcomes: string[] = [];
    const w = new StreamWorker({
      client,
      stream,
      group: 'g',
      readWaitMs: 100,
      minimumIdleTimeMs: 60_000,
      recoveryPollIntervalMs: 50,
      logger: recordingLogger(),
      instrumentation: { startDelivery: () => ({ end: (outcome) => void outcomes.push(outcome) }) },
      handler: (entry) => (attempts.push(entry.deliveryCount), entry.deliveryCount === 1 ? 'nack' : 'ack'),
    });
    await w.start();
    server.commandLog.clear();
    try {
      await client.sendCommand(['XADD', stream, '*', 'k', 'v']);
      await eventually(() => outcomes.length === 1); // the nack is completed: left pending, well before its minimum idle time
      expect(server.commandLog.entries().filter((e) => e.name === 'XNACK')).toHaveLength(0);
      expect(attempts).toEqual([1]);
      server.clock.advance(60_000); // now it is idle long enough: the next recovery page takes it
      await eventually(() => attempts.length === 2, 5000);
      expect(attempts).toEqual([1, 2]);
      expect(server.commandLog.entries().filter((e) => e.name === 'XNACK')).toHaveLength(0);
    } finally {
      await w.stop(1000);
    }
  });

  it('a denied XNACK faults the worker; the entry stays pending', async () => {
    const denied = await FakeRedisServer.start({ version: '8.8', users: [{ name: 'w', password: 'pw', rules: ['on', '~*', '+@all', '-xnack'] }] });
    const limited = createClient({ url: denied.url.replace('redis://', 'redis://w:pw@') });
    limited.on('error', () => {});
    await limited.connect();
    try {
      const { stream } = uniqueKeys();
      const w = new StreamWorker({
        client: limited,
        stream,
        group: 'g',
        readWaitMs: 100,
        minimumIdleTimeMs: 1,
        recoveryPollIntervalMs: 60_000,
        logger: recordingLogger(),
        handler: () => (denied.clock.advance(20), 'nack'), // past the 1 ms minimum idle time: released with XNACK
      });
      await w.start();
      await limited.sendCommand(['XADD', stream, '*', 'k', 'v']);
      await expect(w.done).rejects.toMatchObject({ name: 'RespirePermissionError', message: expect.stringMatching(/XNACK/) });
      const pending = (await limited.sendCommand(['XPENDING', stream, 'g'])) as unknown[];
      expect(Number(pending[0])).toBe(1);
    } finally {
      limited.destroy();
      await denied.close();
    }
  });
});

describe('Redis 6.2 model (XAUTOCLAIM returns deleted entries as nil and keeps them pending)', () => {
  let server: FakeRedisServer;
  let client: ReturnType<typeof createClient>;
  const send = (args: string[]) => client.sendCommand(args) as Promise<unknown>;
  beforeAll(async () => {
    server = await FakeRedisServer.start({ version: '6.2' });
    client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
  });
  afterAll(async () => {
    client.destroy();
    await server.close();
  });

  it('acks, recovers, and removes pending IDs whose bodies were deleted without handing them to a handler', async () => {
    const { stream } = uniqueKeys();
    await send(['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    const a = String(await send(['XADD', stream, '*', 'k', 'a']));
    await send(['XADD', stream, '*', 'k', 'b']);
    await send(['XREADGROUP', 'GROUP', 'g', 'gone-0', 'COUNT', '2', 'STREAMS', stream, '>']);
    await send(['XDEL', stream, a]);
    const seen: [string, number][] = [];
    const w = new StreamWorker({
      client,
      stream,
      group: 'g',
      readWaitMs: 100,
      minimumIdleTimeMs: 1,
      recoveryPollIntervalMs: 50,
      logger: recordingLogger(),
      handler: (e) => (seen.push([e.getString('k')!, e.deliveryCount]), 'ack'),
    });
    await w.start();
    try {
      await send(['XADD', stream, '*', 'k', 'c']);
      await eventually(async () => Number(((await send(['XPENDING', stream, 'g'])) as unknown[])[0]) === 0 && seen.length === 2, 5000);
      expect(seen.map(([k]) => k).sort()).toEqual(['b', 'c']);
      expect(seen.find(([k]) => k === 'b')![1]).toBe(2);
    } finally {
      await w.stop(1000);
    }
  });

  it('dead-letter completion needs Redis 7 (redis.acl_check_cmd): the worker faults and the entry stays pending', async () => {
    const { stream, dead } = uniqueKeys();
    const w = new StreamWorker({
      client,
      stream,
      group: 'g',
      deadLetterStream: dead,
      readWaitMs: 100,
      logger: recordingLogger(),
      handler: () => 'dead-letter',
    });
    await w.start();
    await send(['XADD', stream, '*', 'k', 'v']);
    await expect(w.done).rejects.toMatchObject({ name: 'RespireUnsupportedServerError' });
    expect(Number(((await send(['XPENDING', stream, 'g'])) as unknown[])[0])).toBe(1);
  });
});
