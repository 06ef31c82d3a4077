// Every connection the worker opens is closed, on every path: kills, resets, frozen reads, pauses, stops during start or reconnects, Cluster.
import { randomBytes } from 'node:crypto';
import { createCluster } from 'redis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createAclUser,
  errorSummary,
  spawnTypeScriptChild,
  startRedisCluster,
  startRedisServer,
  startTcpProxy,
  type RedisClusterHandle,
  type RedisServerHandle,
  type TcpProxy,
} from '@respire/harness';
import { COMPLETION_DEADLINE_MS } from '../src/completion.js';
import { StreamWorker, StreamWorkerHost, type StreamEntry } from '../src/index.js';
import { clientList, connectClient, parkedReaders, pending, recordingLogger, sleep, tcpSockets, waitFor, within, type TestClient } from './fault-support.js';

/**
 * Issue 11, kind 1: every connection Respire opens is closed, on every path. Connections are
 * counted on the server (CLIENT LIST of a private server nothing else uses) and in this process
 * (open TCP sockets), around kills, resets, reconnects and stops. A leaked connection appears
 * within milliseconds of the event that causes it (node-redis reconnects at once), so a short
 * settle time before each count is enough to see it.
 */
const SETTLE_MS = 400;

/** A private server per test, so a connection leaked by one test is never counted by another. */
let server: RedisServerHandle;
let admin: TestClient;
beforeEach(async () => {
  server = await startRedisServer();
  admin = await connectClient(server.url);
});
afterEach(async () => {
  await done.run(); // the test's workers, clients and proxies first, whatever happened in it
  admin.destroy();
  await server.close(); // also ends whatever a failed test left connected
});

const stream = () => `{conn-${randomBytes(5).toString('hex')}}:events`;
/** Connections on the private server, other than the admin connection. */
const serverConnections = async () => (await clientList(admin)).length;
/** Connections the private server has accepted since it started (INFO stats). */
const connectionsReceived = async () => Number(/total_connections_received:(\d+)/.exec(String(await admin.sendCommand(['INFO', 'stats'])))![1]);

/** Everything a test started, stopped and closed after it (afterEach) whatever happened. */
function cleanup() {
  const tasks: (() => unknown)[] = [];
  return {
    add<T>(value: T, close: (value: T) => unknown): T {
      tasks.push(() => close(value));
      return value;
    },
    async run() {
      for (const task of tasks.splice(0).reverse()) {
        try {
          await task();
        } catch {
          // best effort
        }
      }
    },
  };
}
const done = cleanup();

/** A proxy in front of the test's server, and the caller's client connected through it (the proxy's first connection). */
async function callerThroughProxy(): Promise<{ proxy: TcpProxy; caller: TestClient }> {
  const proxy = done.add(await startTcpProxy(server.port), (p) => p.close());
  const caller = done.add(await connectClient(proxy.url), (c) => c.destroy());
  return { proxy, caller };
}

/**
 * Runs a worker on `key` (batches of one) whose handler pauses the server of `pauser` with
 * CLIENT PAUSE `mode` for longer than the completion deadline, then returns 'ack'; resolves once
 * that delivery ended, with its outcome, the worker's state and what was logged as an error or a
 * lost connection.
 */
async function ackAcrossPause(client: unknown, key: string, pauser: TestClient, mode: 'WRITE' | 'ALL') {
  const pauseMs = COMPLETION_DEADLINE_MS + 2000;
  const outcomes: string[] = [];
  const logger = recordingLogger();
  const worker = done.add(
    new StreamWorker({
      client: client as never,
      stream: key,
      group: 'g',
      batchSize: 1,
      readWaitMs: 5000,
      recoveryPollIntervalMs: 60_000,
      logger,
      instrumentation: { startDelivery: () => ({ end: (outcome) => void outcomes.push(outcome) }) },
      handler: async () => {
        await pauser.sendCommand(['CLIENT', 'PAUSE', String(pauseMs), mode]);
        return 'ack';
      },
    }),
    (w) => w.stop(1000),
  );
  await worker.start();
  await waitFor(() => outcomes.length === 1, pauseMs + 6000, 'the delivery ended');
  return {
    outcomes,
    state: worker.state,
    errors: logger.entries.filter((e) => e.level === 'error' || /connection lost/.test(e.message)).map((e) => e.message),
  };
}

function parkedWorker(client: unknown, key: string, handled: string[] = [], consumerCount = 1): StreamWorker {
  return new StreamWorker({
    client: client as never,
    stream: key,
    group: 'g',
    consumerCount,
    readWaitMs: 5000,
    recoveryPollIntervalMs: 60_000,
    logger: recordingLogger(),
    handler: (entry: StreamEntry) => (handled.push(entry.id), 'ack'),
  });
}

/** Kills the parked reader `id` and waits until another connection is parked in its place. */
async function killAndAwaitReplacement(id: string): Promise<string> {
  await admin.sendCommand(['CLIENT', 'KILL', 'ID', id]);
  return waitFor(async () => (await parkedReaders(admin)).find((other) => other !== id), 8000, 'a replacement reader parked');
}

describe('kind 1: a replaced reader connection is closed', () => {
  it.each([6, 5] as const)(
    'five CLIENT KILLs of a parked reader (node-redis %i): the server stays at baseline after each replacement, and nothing survives stop() and destroy()',
    async (version) => {
      const socketsBefore = tcpSockets();
      const caller = done.add(await connectClient(server.url, version), (c) => c.destroy());
      const key = stream();
      const handled: string[] = [];
      const worker = done.add(parkedWorker(caller, key, handled), (w) => w.stop(1000));
      await worker.start();
      let parked = await waitFor(async () => (await parkedReaders(admin))[0], 5000, 'reader parked');
      expect(await serverConnections()).toBe(2); // the caller's client and the reader's connection
      const counts: number[] = [];
      for (let round = 0; round < 5; round++) {
        parked = await killAndAwaitReplacement(parked);
        await sleep(SETTLE_MS);
        counts.push(await serverConnections());
      }
      expect(counts).toEqual([2, 2, 2, 2, 2]);
      expect(tcpSockets() - socketsBefore).toBe(2);
      // The reader still works after five replacements.
      const id = String(await admin.sendCommand(['XADD', key, '*', 'k', 'v']));
      await waitFor(() => handled.includes(id), 5000, 'entry handled');
      await worker.stop(1000);
      await sleep(SETTLE_MS);
      expect(await serverConnections()).toBe(1); // only the caller's client: nothing of the worker's
      caller.destroy();
      await sleep(SETTLE_MS);
      expect(await serverConnections()).toBe(0);
      expect(tcpSockets()).toBe(socketsBefore);
    },
    40_000,
  );

  it('the process can exit by itself after five CLIENT KILLs of a parked reader, stop() and client.destroy() (the reported input)', async () => {
    const child = spawnTypeScriptChild(
      `
      import { createClient } from 'redis';
      import { StreamWorker } from '@respire/worker';
      const client = createClient({ url: process.env.REDIS_URL });
      client.on('error', () => {});
      await client.connect();
      const worker = new StreamWorker({
        client, stream: process.env.STREAM, group: 'g', readWaitMs: 5000, recoveryPollIntervalMs: 60000,
        logger: { warn() {}, error() {} }, handler: () => 'ack',
      });
      await worker.start();
      const parked = async () => String(await client.sendCommand(['CLIENT', 'LIST'])).split('\\n')
        .filter((line) => line.includes('cmd=xreadgroup') && / flags=\\S*b/.test(line)).map((line) => /id=(\\d+)/.exec(line)[1]);
      const wait = async (check) => {
        for (let i = 0; i < 400; i++) { const value = await check(); if (value) return value; await new Promise((r) => setTimeout(r, 25)); }
        throw new Error('timed out');
      };
      let id = await wait(async () => (await parked())[0]);
      for (let round = 0; round < 5; round++) {
        await new Promise((r) => setTimeout(r, 500));
        await client.sendCommand(['CLIENT', 'KILL', 'ID', id]);
        const old = id;
        id = await wait(async () => (await parked()).find((other) => other !== old));
      }
      await worker.stop(1000);
      client.destroy();
      console.log('DESTROYED');
      // Only printed when something still holds the event loop 3 s later (the timer itself does not).
      setTimeout(() => console.log('STILL ALIVE:', process.getActiveResourcesInfo().join(', ')), 3000).unref();
      `,
      { cwd: new URL('..', import.meta.url).pathname, env: { REDIS_URL: server.url, STREAM: stream() } },
    );
    await child.waitForOutput('DESTROYED', 40_000);
    const exit = await child.exit(5000);
    expect(exit.exitedByItself, `the process did not exit within 5 s after stop() and destroy(); output:\n${exit.output}`).toBe(true);
    expect(exit.code, exit.output).toBe(0);
  }, 60_000);

  it('a CLIENT KILL of every client (the caller too) reconnects both, and leaves the server at baseline', async () => {
    const caller = done.add(await connectClient(server.url), (c) => c.destroy());
    const worker = done.add(parkedWorker(caller, stream()), (w) => w.stop(1000));
    await worker.start();
    let parked = await waitFor(async () => (await parkedReaders(admin))[0], 5000, 'reader parked');
    expect(await serverConnections()).toBe(2);
    const counts: number[] = [];
    for (let round = 0; round < 3; round++) {
      await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
      const old = parked;
      parked = await waitFor(async () => (await parkedReaders(admin)).find((id) => id !== old), 8000, 'reader parked again');
      await waitFor(async () => String(await caller.sendCommand(['PING'])) === 'PONG', 5000, 'caller reconnected');
      await sleep(SETTLE_MS);
      counts.push(await serverConnections());
    }
    expect(counts).toEqual([2, 2, 2]);
    expect(worker.state).toBe('running');
    await worker.stop(1000);
    caller.destroy();
    await sleep(SETTLE_MS);
    expect(await serverConnections()).toBe(0);
  }, 30_000);

  it('load-balancer resets (RST) of the reader connection, three times: the server and the proxy stay at baseline', async () => {
    const { proxy, caller } = await callerThroughProxy();
    const worker = done.add(parkedWorker(caller, stream()), (w) => w.stop(1000));
    await worker.start();
    let parked = await waitFor(async () => (await parkedReaders(admin))[0], 5000, 'reader parked');
    expect(await serverConnections()).toBe(2);
    const counts: { reset: number; server: number; proxy: number }[] = [];
    for (let round = 0; round < 3; round++) {
      const reset = proxy.reset(1); // every connection but the caller's
      const old = parked;
      parked = await waitFor(async () => (await parkedReaders(admin)).find((id) => id !== old), 8000, 'reader parked again');
      await sleep(SETTLE_MS);
      counts.push({ reset, server: await serverConnections(), proxy: proxy.connections });
    }
    // Each round resets exactly the one reader connection, and its replacement is the only one left.
    expect(counts).toEqual([
      { reset: 1, server: 2, proxy: 2 },
      { reset: 1, server: 2, proxy: 2 },
      { reset: 1, server: 2, proxy: 2 },
    ]);
    expect(worker.state).toBe('running');
    await worker.stop(1000);
    await sleep(SETTLE_MS);
    expect({ server: await serverConnections(), proxy: proxy.connections }).toEqual({ server: 1, proxy: 1 });
  }, 30_000);

  it('a read that never returns is abandoned at its deadline: the abandoned connection is closed on the server', async () => {
    const { proxy, caller } = await callerThroughProxy();
    const worker = done.add(
      new StreamWorker({
        client: caller,
        stream: stream(),
        group: 'g',
        readWaitMs: 300,
        recoveryPollIntervalMs: 60_000,
        logger: recordingLogger(),
        handler: () => 'ack',
      }),
      (w) => w.stop(1000),
    );
    await worker.start();
    await waitFor(() => proxy.connections === 2, 5000, 'reader connected');
    expect(await serverConnections()).toBe(2);
    proxy.freeze(1); // the reader's read never returns
    await waitFor(() => proxy.accepted === 3, 8000, 'replacement connection'); // BLOCK 300 ms + 2 s margin
    await sleep(SETTLE_MS + 300);
    expect({ server: await serverConnections(), proxy: proxy.connections }).toEqual({ server: 2, proxy: 2 });
    expect(worker.state).toBe('running');
  }, 20_000);
});

describe("kind 1 with batched completion: a reader's completions go on its own connection", () => {
  it('a reset of the reader connection while its batch of completions is unanswered: the outcome is unknown, so every delivery of it fails, the worker faults once and the batch is never sent again', async () => {
    const { proxy, caller } = await callerThroughProxy();
    const key = stream();
    await admin.sendCommand(['XGROUP', 'CREATE', key, 'g', '0', 'MKSTREAM']);
    for (let i = 0; i < 4; i++) await admin.sendCommand(['XADD', key, '*', 'i', String(i)]);
    const outcomes: string[] = [];
    let handled = 0;
    const logger = recordingLogger();
    const worker = done.add(
      new StreamWorker({
        client: caller,
        stream: key,
        group: 'g',
        batchSize: 4,
        readWaitMs: 5000,
        recoveryPollIntervalMs: 60_000,
        logger,
        instrumentation: { startDelivery: () => ({ end: (outcome) => void outcomes.push(outcome) }) },
        handler: () => {
          // From now on the reader's connection answers nothing: its batch and the next read go unanswered.
          if (handled++ === 0) proxy.freeze(1);
          return 'ack';
        },
      }),
      (w) => w.stop(1000),
    );
    await worker.start();
    await waitFor(() => handled === 4, 5000, 'the read of four handled');
    await sleep(300); // the batch was written with the next read and is still unanswered
    expect(worker.state).toBe('running');
    expect(proxy.reset(1)).toBe(1); // the load balancer drops the reader's connection
    const outcome = await within(worker.done, 5000);
    const summary = errorSummary(outcome.settled && 'error' in outcome ? outcome.error : undefined);
    await sleep(SETTLE_MS); // a repeat of the batch over the caller's client would acknowledge the entries meanwhile
    expect({
      fault: { code: summary.code, outcomeUnknown: summary.outcomeUnknown },
      faultsLogged: logger.entries.filter((e) => e.level === 'error').length,
      outcomes,
      handled,
      pending: (await pending(admin, key, 'g')).length,
      state: worker.state,
    }).toEqual({
      fault: { code: 'TRANSPORT_FAILED', outcomeUnknown: true },
      faultsLogged: 1,
      outcomes: ['error', 'error', 'error', 'error'],
      handled: 4,
      pending: 4, // the batch never reached Redis, and it was not sent again: the entries wait for recovery
      state: 'stopped',
    });
    expect({ server: await serverConnections(), proxy: proxy.connections }).toEqual({ server: 1, proxy: 1 });
  }, 20_000);

  it(
    'a reader connection gone silent under a batch of one (no read behind it to time out): the connection is closed at the completion deadline, the delivery fails as an unknown outcome and the worker faults once',
    async () => {
      const { proxy, caller } = await callerThroughProxy();
      const key = stream();
      await admin.sendCommand(['XGROUP', 'CREATE', key, 'g', '0', 'MKSTREAM']);
      await admin.sendCommand(['XADD', key, '*', 'i', '0']);
      const outcomes: string[] = [];
      const logger = recordingLogger();
      let frozenAt = 0;
      const worker = done.add(
        new StreamWorker({
          client: caller,
          stream: key,
          group: 'g',
          batchSize: 1,
          readWaitMs: 5000,
          recoveryPollIntervalMs: 60_000,
          logger,
          instrumentation: { startDelivery: () => ({ end: (outcome) => void outcomes.push(outcome) }) },
          handler: () => {
            // The flow drops without a reset: the acknowledgement is written into silence.
            proxy.freeze(1);
            frozenAt = performance.now();
            return 'ack';
          },
        }),
        (w) => w.stop(1000),
      );
      await worker.start();
      const outcome = await within(worker.done, COMPLETION_DEADLINE_MS + 5000);
      const waitedMs = performance.now() - frozenAt;
      const summary = errorSummary(outcome.settled && 'error' in outcome ? outcome.error : undefined);
      await sleep(SETTLE_MS);
      expect({
        fault: { code: summary.code, outcomeUnknown: summary.outcomeUnknown },
        faultsLogged: logger.entries.filter((e) => e.level === 'error').length,
        outcomes,
        pending: (await pending(admin, key, 'g')).length, // the ack never reached Redis: the entry waits for recovery
        state: worker.state,
        connections: { server: await serverConnections(), proxy: proxy.connections },
      }).toEqual({
        fault: { code: 'TRANSPORT_FAILED', outcomeUnknown: true },
        faultsLogged: 1,
        outcomes: ['error'],
        pending: 1,
        state: 'stopped',
        connections: { server: 1, proxy: 1 },
      });
      expect(waitedMs).toBeGreaterThanOrEqual(COMPLETION_DEADLINE_MS - 50);
    },
    COMPLETION_DEADLINE_MS + 15_000,
  );

  it.each(['WRITE', 'ALL'] as const)(
    'a server that holds the batch of one past the completion deadline (CLIENT PAUSE %s; WRITE is what FAILOVER uses, ALL also holds the probe) is waited for, not mistaken for a silent connection: acknowledged once the pause ends, no fault',
    async (mode) => {
      const caller = done.add(await connectClient(server.url), (c) => c.destroy());
      const key = stream();
      await admin.sendCommand(['XGROUP', 'CREATE', key, 'g', '0', 'MKSTREAM']);
      await admin.sendCommand(['XADD', key, '*', 'i', '0']);
      expect({
        ...(await ackAcrossPause(caller, key, admin, mode)),
        pending: (await pending(admin, key, 'g')).length,
      }).toEqual({ outcomes: ['ack'], state: 'running', errors: [], pending: 0 });
    },
    COMPLETION_DEADLINE_MS + 20_000,
  );

  it('a pause longer than BLOCK + 2 s under a batch written with the next read: the read is waited for too, the batch acknowledged, the connection kept', async () => {
    const caller = done.add(await connectClient(server.url), (c) => c.destroy());
    const key = stream();
    await admin.sendCommand(['XGROUP', 'CREATE', key, 'g', '0', 'MKSTREAM']);
    for (let i = 0; i < 4; i++) await admin.sendCommand(['XADD', key, '*', 'i', String(i)]);
    const outcomes: string[] = [];
    const logger = recordingLogger();
    let handled = 0;
    const worker = done.add(
      new StreamWorker({
        client: caller,
        stream: key,
        group: 'g',
        batchSize: 4,
        readWaitMs: 500,
        recoveryPollIntervalMs: 60_000,
        logger,
        instrumentation: { startDelivery: () => ({ end: (outcome) => void outcomes.push(outcome) }) },
        handler: async () => {
          // The read's deadline is BLOCK 500 ms + 2 s: the pause outlasts it.
          if (handled++ === 3) await admin.sendCommand(['CLIENT', 'PAUSE', '5000', 'WRITE']);
          return 'ack';
        },
      }),
      (w) => w.stop(1000),
    );
    const connectionsBefore = await connectionsReceived();
    await worker.start();
    await waitFor(() => outcomes.length === 4, 15_000, 'the batch completed');
    await sleep(1000); // a read after the pause
    expect({
      outcomes,
      state: worker.state,
      pending: (await pending(admin, key, 'g')).length,
      readerConnectionsOpened: (await connectionsReceived()) - connectionsBefore, // one: never replaced
      warnings: logger.entries.filter((e) => e.level === 'error' || e.level === 'warn').map((e) => e.message),
    }).toEqual({ outcomes: ['ack', 'ack', 'ack', 'ack'], state: 'running', pending: 0, readerConnectionsOpened: 1, warnings: [] });
  }, 30_000);

  it("a CLIENT KILL of the reader's connection while its handler runs: the completion, which cannot be written there any more, goes over the caller's client; the reader reconnects and nothing faults", async () => {
    const caller = done.add(await connectClient(server.url), (c) => c.destroy());
    const key = stream();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const logger = recordingLogger();
    const worker = done.add(
      new StreamWorker({
        client: caller,
        stream: key,
        group: 'g',
        readWaitMs: 5000,
        recoveryPollIntervalMs: 60_000,
        logger,
        handler: async (entry: StreamEntry) => (started.push(entry.id), await gate, 'ack'),
      }),
      (w) => w.stop(1000),
    );
    await worker.start();
    const reader = await waitFor(async () => (await parkedReaders(admin))[0], 5000, 'reader parked');
    const id = String(await admin.sendCommand(['XADD', key, '*', 'k', 'v']));
    await waitFor(() => started.includes(id), 5000, 'handler started');
    await admin.sendCommand(['CLIENT', 'KILL', 'ID', reader]); // idle now: its read returned, its handler runs
    await sleep(SETTLE_MS);
    release();
    await waitFor(async () => (await pending(admin, key, 'g')).length === 0, 5000, 'the entry acknowledged').catch(() => {});
    const parked = await waitFor(async () => (await parkedReaders(admin)).find((other) => other !== reader), 8000, 'a new reader parked').catch(
      () => undefined,
    );
    const early = await within(worker.done, 0);
    expect({
      faulted: early.settled ? String(errorSummary('error' in early ? early.error : undefined).message) : false,
      pending: (await pending(admin, key, 'g')).length,
      replaced: parked !== undefined,
      state: worker.state,
      server: await serverConnections(),
    }).toEqual({ faulted: false, pending: 0, replaced: true, state: 'running', server: 2 });
  }, 20_000);
});

describe('kind 1: stop() on every path closes what the worker opened', () => {
  it("stop() while CLIENT PAUSE WRITE holds the reader's read: the server survives (CLIENT UNBLOCK ... ERROR; the TIMEOUT form crashes Redis 7.0 and Valkey 8.0) and stop() returns promptly", async () => {
    const caller = done.add(await connectClient(server.url), (c) => c.destroy());
    const worker = done.add(
      new StreamWorker({
        client: caller,
        stream: stream(),
        group: 'g',
        readWaitMs: 200,
        recoveryPollIntervalMs: 60_000,
        logger: recordingLogger(),
        handler: () => 'ack',
      }),
      (w) => w.stop(1000),
    );
    await worker.start();
    await waitFor(async () => (await parkedReaders(admin))[0], 5000, 'reader parked');
    await admin.sendCommand(['CLIENT', 'PAUSE', '3000', 'WRITE']);
    await sleep(500); // the next read arrives during the pause and is held
    const began = performance.now();
    await worker.stop(1000);
    const stopMs = performance.now() - began;
    await worker.done;
    expect({ ping: await admin.sendCommand(['PING']), state: worker.state }).toEqual({ ping: 'PONG', state: 'stopped' });
    expect(stopMs).toBeLessThan(2500);
  }, 20_000);

  it('stop(1000) for a user refused CLIENT UNBLOCK, whose reader connection went silent under a batch: the wait for that batch is bounded, so stop() returns promptly', async () => {
    const user = await createAclUser([server.url], 'no-unblock', ['~*', '+@all', '-client|unblock']);
    const proxy = done.add(await startTcpProxy(server.port), (p) => p.close());
    const caller = done.add(await connectClient(user.urlFor(proxy.url)), (c) => c.destroy());
    const key = stream();
    await admin.sendCommand(['XGROUP', 'CREATE', key, 'g', '0', 'MKSTREAM']);
    for (let i = 0; i < 4; i++) await admin.sendCommand(['XADD', key, '*', 'i', String(i)]);
    let handled = 0;
    const worker = done.add(
      new StreamWorker({
        client: caller,
        stream: key,
        group: 'g',
        batchSize: 4,
        readWaitMs: 10_000,
        recoveryPollIntervalMs: 60_000,
        logger: recordingLogger(),
        handler: () => {
          if (++handled === 4) proxy.freeze(1); // the batch and the read behind it go into silence
          return 'ack';
        },
      }),
      (w) => w.stop(1000),
    );
    worker.done.catch(() => {}); // the silent batch's outcome is unknown: a fault, asserted below
    await worker.start();
    await waitFor(() => handled === 4, 5000, 'the read of four handled');
    await sleep(300);
    const began = performance.now();
    await worker.stop(1000);
    const stopMs = performance.now() - began;
    expect(stopMs).toBeLessThan(1000 + 1000 + 500); // the drain timeout, then at most a 1 s wait for the batch
    expect(await within(worker.done, 1000)).toMatchObject({
      settled: true,
      error: expect.objectContaining({ code: 'TRANSPORT_FAILED', outcomeUnknown: true }),
    });
    expect(JSON.stringify(await admin.sendCommand(['ACL', 'LOG']))).toContain('client|unblock'); // the refused path ran
  }, 20_000);

  it('stop() while a reader is reconnecting: the replacement connection is closed once its connect finishes', async () => {
    const { proxy, caller } = await callerThroughProxy();
    const worker = done.add(
      new StreamWorker({
        client: caller,
        stream: stream(),
        group: 'g',
        readWaitMs: 300,
        recoveryPollIntervalMs: 60_000,
        logger: recordingLogger(),
        handler: () => 'ack',
      }),
      (w) => w.stop(1000),
    );
    await worker.start();
    await waitFor(() => proxy.connections === 2, 5000, 'reader connected');
    proxy.delayNewConnections(1500); // the replacement's handshake hangs for 1.5 s
    proxy.freeze(1);
    await waitFor(() => proxy.accepted === 3, 8000, 'replacement connection started');
    await worker.stop(100);
    await sleep(1500 + SETTLE_MS + 300); // the slow connect finishes after stop() returned
    expect({ server: await serverConnections(), proxy: proxy.connections }).toEqual({ server: 1, proxy: 1 });
  }, 20_000);

  it('stop() while a killed reader is being reconnected: nothing of the worker survives', async () => {
    const { proxy, caller } = await callerThroughProxy();
    const worker = done.add(parkedWorker(caller, stream()), (w) => w.stop(1000));
    await worker.start();
    const parked = await waitFor(async () => (await parkedReaders(admin))[0], 5000, 'reader parked');
    proxy.delayNewConnections(1000);
    await admin.sendCommand(['CLIENT', 'KILL', 'ID', parked]);
    await waitFor(() => proxy.accepted >= 3, 5000, 'a reconnect started');
    await worker.stop(100);
    await sleep(1000 + SETTLE_MS + 300);
    expect({ server: await serverConnections(), proxy: proxy.connections }).toEqual({ server: 1, proxy: 1 });
  }, 20_000);

  it("stop() during start() (three readers, slow connects): only the caller's client remains, here and on the server", async () => {
    const { proxy, caller } = await callerThroughProxy();
    const socketsBefore = tcpSockets();
    proxy.delayNewConnections(500);
    const worker = done.add(parkedWorker(caller, stream(), [], 3), (w) => w.stop(1000));
    const starting = worker.start();
    await waitFor(() => proxy.accepted >= 2, 5000, 'a reader connect under way'); // the caller's connection was the first
    await Promise.allSettled([starting, worker.stop(100)]);
    await sleep(500 + SETTLE_MS + 300);
    expect({ server: await serverConnections(), proxy: proxy.connections, sockets: tcpSockets() - socketsBefore }).toEqual({ server: 1, proxy: 1, sockets: 0 });
    expect(worker.state).toBe('stopped');
  }, 20_000);

  it("a host stopping two workers of two readers each leaves only the caller's client, and no extra socket in this process", async () => {
    const socketsBefore = tcpSockets();
    const caller = done.add(await connectClient(server.url), (c) => c.destroy());
    const host = done.add(new StreamWorkerHost({ handleSignals: false, logger: recordingLogger() }), (h) => h.stop());
    for (const name of ['a', 'b']) {
      host.add({
        client: caller,
        stream: stream(),
        group: 'g',
        consumerCount: 2,
        readWaitMs: 5000,
        telemetryName: name,
        logger: recordingLogger(),
        handler: () => 'ack',
      });
    }
    await host.start();
    await waitFor(async () => (await parkedReaders(admin)).length === 4, 5000, 'four readers parked');
    expect(await serverConnections()).toBe(5);
    await host.stop();
    await sleep(SETTLE_MS);
    expect(await serverConnections()).toBe(1);
    caller.destroy();
    await sleep(SETTLE_MS);
    expect(tcpSockets()).toBe(socketsBefore);
  }, 20_000);
});

describe('kind 1: Cluster readers', () => {
  let cluster: RedisClusterHandle;
  let nodeAdmins: TestClient[];

  beforeAll(async () => {
    cluster = await startRedisCluster(process.env.REDIS_SERVER?.trim() || undefined);
    nodeAdmins = await Promise.all(cluster.nodes.map((node) => connectClient(node.url)));
  }, 60_000);
  afterAll(async () => {
    for (const client of nodeAdmins ?? []) client.destroy();
    await cluster?.close();
  });

  const clusterConnections = async () => (await Promise.all(nodeAdmins.map((a) => clientList(a)))).reduce((sum, list) => sum + list.length, 0);
  const clusterParked = async () => (await Promise.all(nodeAdmins.map(async (a, node) => (await parkedReaders(a)).map((id) => ({ node, id }))))).flat();

  /** The admin connection of the master that serves `key` (the others answer MOVED). */
  async function ownerOf(key: string): Promise<TestClient> {
    for (const candidate of nodeAdmins) {
      const served = await candidate.sendCommand(['XLEN', key]).then(
        () => true,
        () => false,
      );
      if (served) return candidate;
    }
    throw new Error(`no master serves ${key}`);
  }

  it(
    "a CLIENT PAUSE WRITE past the completion deadline on the stream's master: the probe asks that node (node-redis 6 sends a keyless command to any node), so the batch of one is waited for and acknowledged",
    async () => {
      const caller = done.add(createCluster({ rootNodes: cluster.rootNodes }), (c) => c.destroy());
      caller.on('error', () => {});
      await caller.connect();
      const key = stream();
      await caller.sendCommand(key, false, ['XGROUP', 'CREATE', key, 'g', '0', 'MKSTREAM']);
      await caller.sendCommand(key, false, ['XADD', key, '*', 'i', '0']);
      expect(await ackAcrossPause(caller, key, await ownerOf(key), 'WRITE')).toEqual({ outcomes: ['ack'], state: 'running', errors: [] });
    },
    COMPLETION_DEADLINE_MS + 25_000,
  );

  it('CLIENT KILLs of a parked Cluster reader, three times: every node stays at baseline; stop() and destroy() leave nothing', async () => {
    try {
      const caller = done.add(createCluster({ rootNodes: cluster.rootNodes }), (c) => c.destroy());
      caller.on('error', () => {});
      await caller.connect();
      await sleep(SETTLE_MS);
      const callerOnly = await clusterConnections();
      const handled: string[] = [];
      const key = stream();
      const worker = done.add(parkedWorker(caller, key, handled, 2), (w) => w.stop(1000));
      await worker.start();
      let parked = await waitFor(async () => ((await clusterParked()).length === 2 ? await clusterParked() : undefined), 8000, 'two readers parked');
      await sleep(SETTLE_MS);
      const baseline = await clusterConnections();
      const counts: number[] = [];
      for (let round = 0; round < 3; round++) {
        const victim = parked[0]!;
        await nodeAdmins[victim.node]!.sendCommand(['CLIENT', 'KILL', 'ID', victim.id]);
        parked = await waitFor(
          async () => {
            const now = await clusterParked();
            return now.length === 2 && !now.some((p) => p.node === victim.node && p.id === victim.id) ? now : undefined;
          },
          8000,
          'replacement parked',
        );
        await sleep(SETTLE_MS);
        counts.push(await clusterConnections());
      }
      expect(counts).toEqual([baseline, baseline, baseline]);
      const id = String(await caller.sendCommand(key, false, ['XADD', key, '*', 'k', 'v']));
      await waitFor(() => handled.includes(id), 5000, 'entry handled');
      await worker.stop(1000);
      await sleep(SETTLE_MS);
      expect(await clusterConnections()).toBe(callerOnly);
      caller.destroy();
      await sleep(SETTLE_MS);
      expect(await clusterConnections()).toBe(0);
    } finally {
      await done.run();
      // Whatever leaked is ended here, so it cannot reach the next test.
      await Promise.all(nodeAdmins.map((a) => a.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']).catch(() => {})));
    }
  }, 40_000);
});
