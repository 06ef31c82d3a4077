// Recovery, read deadlines, shutdown and transient-reply deadlines keep working when the wall clock steps, freezes or runs backwards.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { errorSummary, startRedisServer, startTcpProxy, type RedisServerHandle } from '@respire/harness';
import { FakeRedisServer } from '@respire/testing';
import { StreamWorker, StreamWorkerHost, type StreamEntry } from '../src/index.js';
import { connectClient, parkedReaders, recordingLogger, waitFor, within, type TestClient } from './fault-support.js';

/**
 * Issue 11, kind 3: all scheduling runs on a monotonic clock (or the server's). `Date.now` is
 * replaced as a host clock step appears to Node.js (timers stay monotonic); every deadline in these
 * tests is measured with performance.now(), so they keep working while the wall clock lies.
 */
const realNow = Date.now.bind(Date);
const HOUR = 3_600_000;

/** Clock behaviours a host can show: NTP steps, a stopped clock, a clock slewing backwards. */
const clocks: [string, () => () => number][] = [
  ['stepped back 1 h', () => () => realNow() - HOUR],
  ['stepped forward 1 h', () => () => realNow() + HOUR],
  [
    'frozen',
    () => {
      const frozen = realNow();
      return () => frozen;
    },
  ],
  [
    'running backwards',
    () => {
      const origin = realNow();
      return () => origin - (realNow() - origin);
    },
  ],
];

function stepClock(make: () => () => number): void {
  vi.spyOn(Date, 'now').mockImplementation(make());
}

/** A private server: CLIENT LIST then shows only this file's readers. */
let server: RedisServerHandle;
let admin: TestClient;
const running: { stop(timeoutMs?: number): Promise<void> }[] = [];
beforeAll(async () => {
  server = await startRedisServer();
  admin = await connectClient(server.url);
});
afterAll(async () => {
  admin.destroy();
  await server.close();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.allSettled(running.splice(0).map((w) => w.stop(1000)));
});

const keys = () => {
  const tag = `clock-${randomBytes(5).toString('hex')}`;
  return { stream: `{${tag}}:events`, tag };
};

function worker(options: Record<string, unknown>): StreamWorker {
  const w = new StreamWorker({ client: admin as never, group: 'g', logger: recordingLogger(), handler: () => 'ack', ...options } as never);
  running.push(w);
  return w;
}

/** One entry delivered to a consumer that died: pending, idle from now on. */
async function orphan(stream: string): Promise<string> {
  await admin.sendCommand(['XGROUP', 'CREATE', stream, 'g', '$', 'MKSTREAM']);
  const id = String(await admin.sendCommand(['XADD', stream, '*', 'k', 'orphan']));
  await admin.sendCommand(['XREADGROUP', 'GROUP', 'g', 'dead-consumer', 'COUNT', '1', 'STREAMS', stream, '>']);
  return id;
}

describe('kind 3: recovery of idle pending entries', () => {
  it.each(clocks)(
    'with the wall clock %s once the worker runs, an entry pending to a dead consumer is recovered within a few seconds',
    async (_label, make) => {
      const { stream } = keys();
      const id = await orphan(stream);
      const seen: { id: string; count: number }[] = [];
      const w = worker({
        stream,
        minimumIdleTimeMs: 1000,
        recoveryPollIntervalMs: 500,
        handler: (e: StreamEntry) => (seen.push({ id: e.id, count: e.deliveryCount }), 'ack'),
      });
      await w.start(); // the first recovery page runs now and finds the entry not yet idle
      stepClock(make);
      const began = performance.now();
      await waitFor(() => seen.length > 0, 6000, `recovery with the clock ${_label}`);
      expect(seen).toEqual([{ id, count: 2 }]);
      expect(performance.now() - began).toBeLessThan(6000);
      expect(w.state).toBe('running');
    },
    15_000,
  );

  it('with the wall clock stepped back 1 h, a reader parked with readWaitMs 20 s still runs each recovery page on time', async () => {
    const { stream } = keys();
    await orphan(stream);
    const seen: number[] = [];
    const w = worker({
      stream,
      readWaitMs: 20_000,
      minimumIdleTimeMs: 800,
      recoveryPollIntervalMs: 300,
      handler: (e: StreamEntry) => (seen.push(e.deliveryCount), 'ack'),
    });
    await w.start();
    stepClock(clocks[0]![1]);
    await waitFor(() => seen.length > 0, 6000, 'recovery under a 20 s BLOCK');
    expect(seen).toEqual([2]);
  }, 15_000);
});

describe('kind 3: shutdown timeouts', () => {
  it.each(clocks)(
    'with the wall clock %s during stop(), the shutdown timeout still expires on time and aborts the handler',
    async (_label, make) => {
      const { stream } = keys();
      let signal: AbortSignal | undefined;
      const w = worker({
        stream,
        readWaitMs: 200,
        handler: async (_e: StreamEntry, s: AbortSignal) => {
          signal = s;
          await new Promise(() => {}); // ignores the abort
          return 'ack';
        },
      });
      await w.start();
      await admin.sendCommand(['XADD', stream, '*', 'k', 'v']);
      await waitFor(() => signal !== undefined, 5000, 'handler running');
      stepClock(make);
      const began = performance.now();
      const stopped = await within(w.stop(500), 5000);
      const elapsed = performance.now() - began;
      expect(stopped.settled, 'stop(500) did not return within 5 s').toBe(true);
      expect(elapsed).toBeGreaterThanOrEqual(450);
      expect(elapsed).toBeLessThan(3000);
      expect(signal!.aborted).toBe(true);
    },
    15_000,
  );

  it.each(clocks)(
    "with the wall clock %s during a host's stop(), its shutdownTimeoutMs still expires on time",
    async (_label, make) => {
      const { stream } = keys();
      let started = false;
      const host = new StreamWorkerHost({ shutdownTimeoutMs: 500, handleSignals: false, logger: recordingLogger() });
      running.push(host);
      host.add({
        client: admin as never,
        stream,
        group: 'g',
        readWaitMs: 200,
        logger: recordingLogger(),
        handler: async () => {
          started = true;
          await new Promise(() => {});
          return 'ack';
        },
      });
      await host.start();
      await admin.sendCommand(['XADD', stream, '*', 'k', 'v']);
      await waitFor(() => started, 5000, 'handler running');
      stepClock(make);
      const began = performance.now();
      const stopped = await within(host.stop(), 5000);
      expect(stopped.settled, 'host.stop() did not return within 5 s').toBe(true);
      expect(performance.now() - began).toBeLessThan(3000);
    },
    15_000,
  );
});

describe('kind 3: read deadlines and re-reads', () => {
  it.each(clocks)(
    'with the wall clock %s, a read that never returns is still abandoned at BLOCK + margin and the reader reconnects',
    async (_label, make) => {
      const proxy = await startTcpProxy(server.port);
      const client = await connectClient(proxy.url);
      try {
        const { stream } = keys();
        const w = worker({ client, stream, readWaitMs: 300, recoveryPollIntervalMs: 60_000 });
        await w.start();
        await waitFor(() => proxy.connections === 2, 5000, 'reader connected');
        stepClock(make);
        proxy.freeze(1);
        await waitFor(() => proxy.accepted === 3, 6000, 'the reader replaced its connection after BLOCK 300 ms + 2 s');
        expect(w.state).toBe('running');
      } finally {
        await Promise.allSettled(running.splice(0).map((w) => w.stop(1000)));
        client.destroy();
        await proxy.close();
      }
    },
    15_000,
  );

  it.each(clocks)(
    'with the wall clock %s, a reader ended by CLIENT UNBLOCK ... ERROR reads again at once',
    async (_label, make) => {
      const { stream } = keys();
      const seen: string[] = [];
      const w = worker({ stream, readWaitMs: 5000, recoveryPollIntervalMs: 60_000, handler: (e: StreamEntry) => (seen.push(e.id), 'ack') });
      await w.start();
      const [reader] = await waitFor(
        async () => {
          const ids = await parkedReaders(admin);
          return ids.length === 1 ? ids : undefined;
        },
        5000,
        'reader parked',
      );
      stepClock(make);
      expect(await admin.sendCommand(['CLIENT', 'UNBLOCK', reader!, 'ERROR'])).toBe(1);
      const id = String(await admin.sendCommand(['XADD', stream, '*', 'k', 'v']));
      await waitFor(() => seen.includes(id), 3000, 'entry read after the unblock');
    },
    15_000,
  );
});

describe('kind 3: the deadline for transient replies (issue 11, kind 5) runs on a monotonic clock', () => {
  let fake: FakeRedisServer;
  let client: TestClient;
  beforeAll(async () => {
    fake = await FakeRedisServer.start({ version: '7.0' });
    client = await connectClient(fake.url);
  });
  afterAll(async () => {
    client.destroy();
    await fake.close();
  });

  it.each([clocks[0]!, clocks[2]!])(
    'with the wall clock %s, a BUSY reply that never ends still faults the worker, after retrying for a while',
    async (_label, make) => {
      const { stream } = keys();
      const w = worker({ client, stream, readWaitMs: 100, recoveryPollIntervalMs: 60_000 });
      await w.start();
      stepClock(make);
      const fault = fake.faults.inject({
        command: 'XREADGROUP',
        action: { type: 'error', message: 'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT.' },
        times: 'always',
      });
      try {
        const early = await within(w.done, 5000);
        expect(early.settled, 'the worker faulted within 5 s of the first BUSY reply (a 3 s script would have stopped it)').toBe(false);
        const late = await within(w.done, 25_000);
        expect(late.settled && 'error' in late, 'the worker never faulted: its retry deadline follows the wall clock').toBe(true);
        expect(errorSummary((late as { error: unknown }).error).message).toMatch(/BUSY/);
      } finally {
        fault.remove();
      }
    },
    40_000,
  );
});
