// Edges no other file covers: stop() around connects, scopes at the shutdown timeout, records, recovery timing, superseded prefetches.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RespireValidationError, type RedisClientLike } from '@respire/core-scripts';
import { StreamWorker, type StreamEntry, type WorkerInfo } from '../src/index.js';
import {
  add,
  eventually,
  pendingCount,
  pendingEntries,
  range,
  recordingLogger,
  sleep,
  standalone,
  targets,
  uniqueKeys,
  workerFixture,
  type Connection,
} from './support.js';

/**
 * Edges of the worker's contract (README, CONFORMANCE.md) that no other file covers: connections and hooks around stop(),
 * the shutdown timeout, scopes, option bounds, dead-letter records, recovery timing, the Redis
 * 8.4 CLAIM model and prefetched entries recovered by a sibling reader.
 */
let conn: Connection;
beforeAll(async () => void (conn = await targets[0]!.connect()));
afterAll(async () => conn.close());
const worker = workerFixture(() => conn);

interface Dup {
  isOpen: boolean;
  destroy(): void;
  connect(): Promise<unknown>;
  sendCommand(args: unknown[], options?: unknown): Promise<unknown>;
}

/**
 * The suite's client seen through a wrapper that records every duplicate the worker opens (its
 * blocking connections), how many of their connects have settled and how many reads they sent.
 * `slowConnect(n)` delays the connect of duplicates from the n-th on (a slow network or a server
 * busy accepting), nothing else.
 */
function trackingClient(): {
  client: RedisClientLike;
  dups: Dup[];
  connectsSettled(): number;
  reads(): number;
  slowConnect(fromIndex: number, ms: number): void;
} {
  const base = conn.client as unknown as { isOpen: boolean; sendCommand(...a: unknown[]): Promise<unknown>; duplicate(): Dup };
  const dups: Dup[] = [];
  let slowFrom = Infinity;
  let slowMs = 0;
  let settled = 0;
  let reads = 0;
  const wrapper = {
    get isOpen() {
      return base.isOpen;
    },
    sendCommand: (...args: unknown[]) => base.sendCommand(...args),
    duplicate: () => {
      const d = base.duplicate();
      const slow = dups.length >= slowFrom;
      const connect = d.connect.bind(d);
      d.connect = async () => {
        try {
          if (slow) await sleep(slowMs);
          return await connect();
        } finally {
          settled++;
        }
      };
      const send = d.sendCommand.bind(d);
      d.sendCommand = (args, options) => {
        if (String(args[0]).toUpperCase() === 'XREADGROUP') reads++;
        return send(args, options);
      };
      dups.push(d);
      return d;
    },
  };
  return {
    client: wrapper as unknown as RedisClientLike,
    dups,
    connectsSettled: () => settled,
    reads: () => reads,
    slowConnect: (fromIndex, ms) => {
      slowFrom = fromIndex;
      slowMs = ms;
    },
  };
}

describe('connections and hooks after stop()', () => {
  it('stop() during start() leaves no reader connection open and reports workerStopped last', async () => {
    const { stream } = uniqueKeys('adv');
    const tracked = trackingClient();
    const events: string[] = [];
    const w = worker({
      client: tracked.client,
      stream,
      group: 'g',
      consumerCount: 2,
      instrumentation: {
        workerStarted: (_: WorkerInfo) => void events.push('started'),
        workerStopped: (_: WorkerInfo) => void events.push('stopped'),
      },
      handler: () => 'ack',
    });
    const starting = w.start(); // e.g. SIGTERM or a framework shutdown hook while the app is still starting
    const stopping = w.stop(1000);
    await Promise.allSettled([starting, stopping]);
    await w.done.catch(() => {});
    // A connect still under way when stop() closed it finishes its handshake later: it must end closed too.
    await eventually(() => tracked.connectsSettled() === tracked.dups.length, 5000, 10);
    // Every blocking connection the worker opened is closed once stop() has resolved...
    expect(tracked.dups.length).toBeGreaterThan(0);
    expect(tracked.dups.filter((d) => d.isOpen)).toHaveLength(0);
    // ...and gauges are not told to start polling a worker that has already stopped.
    expect(events.at(-1)).toBe('stopped');
    expect(w.state).toBe('stopped');
  });

  it('stop() while a reader is reconnecting closes the replacement connection', async () => {
    const { stream } = uniqueKeys('adv');
    const tracked = trackingClient();
    tracked.slowConnect(1, 600); // the replacement connection takes 600 ms to connect
    const w = worker({ client: tracked.client, stream, group: 'g', readWaitMs: 1000, recoveryPollIntervalMs: 60_000, handler: () => 'ack' });
    await w.start();
    await eventually(() => tracked.reads() === 1, 2000, 10); // parked in XREADGROUP BLOCK
    tracked.dups[0]!.destroy(); // the blocking connection drops
    await eventually(() => tracked.dups.length === 2, 2000, 10); // the reader is now reconnecting
    await w.stop(100); // the shutdown timeout expires while the reader is still connecting
    await eventually(() => tracked.connectsSettled() === 2, 5000, 10); // the slow connect finishes after stop() returned
    expect(tracked.dups.filter((d) => d.isOpen)).toHaveLength(0);
  });
});

describe('shutdown timeout (README "Faults, shutdown and failover")', () => {
  it('a handler whose scope was still being created at the shutdown timeout never runs with a live signal after stop()', async () => {
    const { stream } = uniqueKeys('adv');
    let stopped = false;
    let creating = false;
    let disposed = false;
    let activated!: () => void;
    const activation = new Promise<void>((resolve) => (activated = resolve));
    const startedAfterStop: { aborted: boolean }[] = [];
    const w = worker({
      stream,
      group: 'g',
      createScope: async () => {
        creating = true;
        await activation; // async DI activation, e.g. acquiring a pooled connection
        return {
          handler: async (_e: StreamEntry, signal: AbortSignal) => {
            if (stopped) startedAfterStop.push({ aborted: signal.aborted });
            return 'ack';
          },
          dispose: () => void (disposed = true),
        };
      },
    });
    await w.start();
    await add(conn, stream, { k: 'a' });
    await eventually(() => creating); // the reader took the entry and is creating its scope
    await w.stop(50); // the shutdown timeout expires first
    stopped = true;
    activated();
    await eventually(() => disposed); // the attempt ended: its scope is disposed once it is settled
    // When the shutdown timeout expires, handlers are cancelled (README "Faults, shutdown and failover"). A handler that only
    // starts after that must see a cancelled token (or not be started at all).
    expect(startedAfterStop.every((s) => s.aborted)).toBe(true);
    expect(await pendingCount(conn, stream, 'g')).toBe(1);
  });
});

describe('scopes (README: each delivery gets a new scope, disposed after handling and completion)', () => {
  it('a scope whose handler could not be resolved is still disposed when the worker faults', async () => {
    const { stream } = uniqueKeys('adv');
    let disposed = 0;
    const w = worker({
      stream,
      group: 'g',
      createScope: () => ({ handler: undefined as never, dispose: () => void disposed++ }),
    });
    await w.start();
    await add(conn, stream, { k: 'a' });
    await expect(w.done).rejects.toMatchObject({ code: expect.any(String) });
    expect(await pendingCount(conn, stream, 'g')).toBe(1);
    expect(disposed).toBe(1);
  });
});

describe('option validation (typed errors before any I/O)', () => {
  it('rejects a groupStart entry ID that no Redis server accepts (beyond 64-bit) at construction', () => {
    for (const groupStart of ['18446744073709551616-0', '1-18446744073709551616', '99999999999999999999999']) {
      expect(() => new StreamWorker({ client: conn.client, stream: 's', group: 'g', groupStart, handler: () => 'ack' })).toThrow(RespireValidationError);
    }
  });

  it('accepts a 256-byte group with deadLetterStream and writes it unchanged; rejects 257 bytes', async () => {
    const { stream, dead } = uniqueKeys('adv');
    const long = 'é'.repeat(128); // 256 bytes
    expect(() => new StreamWorker({ client: conn.client, stream, deadLetterStream: dead, group: long + 'x', handler: () => 'ack' })).toThrow(
      RespireValidationError,
    );
    const w = worker({ stream, group: long, deadLetterStream: dead, handler: () => 'dead-letter' });
    await w.start();
    await add(conn, stream, { k: 'v' });
    await eventually(async () => (await range(conn, dead)).length === 1);
    const [record] = await range(conn, dead);
    expect(record![1].slice(2, 4)).toEqual(['_respire.group', long]);
  });
});

describe('dead-letter records (README "Delivery limits and dead letters")', () => {
  it('cuts a long exception type to at most 256 bytes without splitting a UTF-8 character', async () => {
    const { stream, dead } = uniqueKeys('adv');
    const name = 'Ü'.repeat(200); // 400 bytes
    const Named = { [name]: class extends Error {} }[name]!;
    const w = worker({
      stream,
      group: 'g',
      deadLetterStream: dead,
      deliveryLimit: 1,
      handler: () => {
        throw new Named('secret');
      },
    });
    await w.start();
    await add(conn, stream, { k: 'v' });
    await eventually(async () => (await range(conn, dead)).length === 1);
    const raw = (await conn.raw(dead, ['XRANGE', dead, '-', '+'])) as unknown[][];
    const fields = (raw[0]![1] as unknown[]).map(String);
    expect(fields.slice(0, 10).filter((_, i) => i % 2 === 0)).toEqual([
      '_respire.source_id',
      '_respire.group',
      '_respire.attempt',
      '_respire.reason',
      '_respire.exception_type',
    ]);
    expect(fields[7]).toBe('processing-failed');
    expect(fields[5]).toBe('1');
    const type = fields[9]!;
    expect(Buffer.byteLength(type)).toBeLessThanOrEqual(256);
    expect(type).toBe('Ü'.repeat(128));
    expect(fields.join('|')).not.toContain('secret');
  });

  it('an entry prefetched in a batch and abandoned by stop() counts toward the limit and is dead-lettered without the handler at the next replay', async () => {
    const { stream, dead } = uniqueKeys('adv');
    for (const k of ['a', 'b']) await add(conn, stream, { k });
    const calls: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = worker({
      stream,
      group: 'g',
      consumerName: 'adv-host',
      batchSize: 2,
      deadLetterStream: dead,
      deliveryLimit: 1,
      handler: async (e) => (calls.push(e.getString('k')!), await gate, 'ack'),
    });
    await first.start();
    await eventually(() => calls.length === 1);
    const stopping = first.stop(2000);
    release();
    await stopping;
    expect(calls).toEqual(['a']);
    // b was read (delivery 1 = the limit) but never started: the restart replays it at delivery 2.
    const second = worker({
      stream,
      group: 'g',
      consumerName: 'adv-host',
      batchSize: 2,
      deadLetterStream: dead,
      deliveryLimit: 1,
      handler: (e) => (calls.push(e.getString('k')!), 'ack'),
    });
    await second.start();
    await eventually(async () => (await range(conn, dead)).length === 1);
    expect(calls).toEqual(['a']);
    const [record] = await range(conn, dead);
    expect(record![1].slice(4, 8)).toEqual(['_respire.attempt', '2', '_respire.reason', 'delivery-limit']);
    expect(await pendingCount(conn, stream, 'g')).toBe(0);
  });
});

describe('recovery timing (README "Consumer names and recovery": BLOCK bounded by the time to the next recovery page)', () => {
  it('a reader parked with a long readWaitMs still recovers an idle entry on time', async () => {
    const { stream } = uniqueKeys('adv');
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '$', 'MKSTREAM']);
    await add(conn, stream, { k: 'orphan' });
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'ghost', 'COUNT', '1', 'STREAMS', stream, '>']);
    const seen: number[] = [];
    const startedAt = Date.now();
    const w = worker({
      stream,
      group: 'g',
      readWaitMs: 20_000,
      minimumIdleTimeMs: 800,
      recoveryPollIntervalMs: 200,
      handler: (e) => (seen.push(e.deliveryCount), 'ack'),
    });
    await w.start();
    await eventually(() => seen.length === 1, 4000);
    expect(Date.now() - startedAt).toBeLessThan(2500);
    expect(seen).toEqual([2]);
    expect(await pendingEntries(conn, stream, 'g')).toEqual([]);
    const t0 = Date.now();
    await w.stop(1000);
    expect(Date.now() - t0).toBeLessThan(1500); // the 20 s parked read does not hold up stop()
  });
});

describe('Redis 8.4 model: recovery with XREADGROUP CLAIM', () => {
  it('takes at most one page of batchSize idle entries per reader per recoveryPollIntervalMs, counting each claim', async () => {
    const { FakeRedisServer } = await import('@respire/testing');
    const { createClient } = await import('redis');
    const server = await FakeRedisServer.start({ version: '8.4' });
    const client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
    try {
      const { stream } = uniqueKeys('adv84');
      await client.sendCommand(['XGROUP', 'CREATE', stream, 'g', '$', 'MKSTREAM']);
      for (let i = 0; i < 4; i++) await client.sendCommand(['XADD', stream, '*', 'k', String(i)]);
      await client.sendCommand(['XREADGROUP', 'GROUP', 'g', 'ghost', 'COUNT', '4', 'STREAMS', stream, '>']);
      server.clock.advance(30); // the ghost's entries are now idle past the minimum idle time
      const seen: { at: number; count: number }[] = [];
      const w = new StreamWorker({
        client,
        stream,
        group: 'g',
        readWaitMs: 100,
        batchSize: 1,
        minimumIdleTimeMs: 20,
        recoveryPollIntervalMs: 400,
        logger: recordingLogger(),
        handler: (e) => (seen.push({ at: Date.now(), count: e.deliveryCount }), 'ack'),
      });
      const t0 = Date.now();
      await w.start();
      try {
        await eventually(() => seen.length === 4, 4000);
        expect(seen.every((s) => s.count === 2)).toBe(true);
        // Pages at about 0, 400, 800 and 1200 ms: never two within one interval. Two pages in one
        // interval would hand entries over within a few ms; the margin absorbs scheduling jitter
        // of a loaded CI machine, and the total below pins the cadence.
        for (let i = 1; i < seen.length; i++) expect(seen[i]!.at - seen[i - 1]!.at).toBeGreaterThanOrEqual(200);
        expect(seen[3]!.at - t0).toBeGreaterThanOrEqual(1100);
        expect(server.commandLog.entries().some((e) => e.name === 'XREADGROUP' && e.origin === 'script')).toBe(true);
      } finally {
        await w.stop(1000);
      }
    } finally {
      client.destroy();
      await server.close();
    }
  });
});

describe('prefetched entries recovered by a sibling reader', () => {
  let conn: Connection;
  beforeAll(async () => void (conn = await standalone(inject('redisUrl'))));
  afterAll(async () => conn.close());

  it('are not handled again by their original reader once a newer delivery exists in the worker', async () => {
    const { stream } = uniqueKeys();
    await add(conn, stream, { k: 'slow' });
    await add(conn, stream, { k: 'second' });
    const calls = new Map<string, number>();
    const logger = recordingLogger();
    const handledSecond = () => (calls.get('second') ?? 0) >= 1;
    const worker = new StreamWorker({
      client: conn.client,
      stream,
      group: 'g',
      consumerCount: 2,
      batchSize: 2,
      readWaitMs: 50,
      minimumIdleTimeMs: 150,
      recoveryPollIntervalMs: 50,
      logger,
      handler: async (entry: StreamEntry) => {
        const k = entry.getString('k')!;
        calls.set(k, (calls.get(k) ?? 0) + 1);
        // The first attempt at 'slow' lasts until the sibling reader has recovered and handled 'second'.
        if (k === 'slow' && entry.deliveryCount === 1) await eventually(handledSecond, 8000, 10);
        return 'ack';
      },
    });
    await worker.start();
    try {
      await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0 && handledSecond(), 8000);
      // The original reader moves on from 'slow' to its prefetched 'second': it skips it, or (a defect) runs it again.
      await eventually(() => logger.entries.some((e) => /superseded/.test(e.message)) || calls.get('second')! > 1, 8000);
    } finally {
      await worker.stop(2000);
    }
    expect(calls.get('second')).toBe(1);
  });
});
