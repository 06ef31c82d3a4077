// Shutdown, scopes, the host, the instrumentation seam and extreme durations, on the harness's standalone server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamWorkerHost, type DeliveryOutcome, type DeliveryStart, type WorkerInfo } from '../src/index.js';
import {
  add,
  eventually,
  pendingCount,
  pendingEntries,
  range,
  recordingLogger,
  sleep,
  targets,
  uniqueKeys,
  workerFixture,
  type Connection,
} from './support.js';

/** Shutdown, scopes, the host and the instrumentation seam (node-redis 6, standalone harness server). */
let conn: Connection;
beforeAll(async () => void (conn = await targets[0]!.connect()));
afterAll(async () => conn.close());
const worker = workerFixture(() => conn);

describe('shutdown (README "Faults, shutdown and failover")', () => {
  it('readers stop at once, in-flight handlers drain and are acknowledged, undispatched entries stay pending', async () => {
    const { stream } = uniqueKeys();
    for (const k of ['a', 'b', 'c']) await add(conn, stream, { k });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    let aborted = false;
    const w = worker({
      stream,
      group: 'g',
      batchSize: 3,
      handler: async (e, signal) => {
        seen.push(e.getString('k')!);
        await gate;
        aborted = signal.aborted;
        return 'ack';
      },
    });
    await w.start();
    await eventually(() => seen.length === 1);
    const stopping = w.stop(5000);
    expect(w.state).toBe('stopping'); // at once, and for as long as the handler has not returned
    release();
    await stopping;
    await w.done;
    expect(aborted).toBe(false);
    expect(seen).toEqual(['a']);
    const pending = await pendingEntries(conn, stream, 'g');
    expect(pending.map((p) => p.count)).toEqual([1, 1]); // b and c: read, never dispatched
    expect(await pendingCount(conn, stream, 'g')).toBe(2);
  });

  it('at the shutdown timeout handlers are aborted; one that ignores the abort keeps its scope until it finishes and is not acknowledged', async () => {
    const { stream } = uniqueKeys();
    await add(conn, stream, { k: 'a' });
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const w = worker({
      stream,
      group: 'g',
      createScope: () => ({
        handler: async (_e, signal) => {
          events.push('handler');
          signal.addEventListener('abort', () => events.push('aborted'));
          await gate; // ignores the abort
          events.push('finished');
          return 'ack';
        },
        dispose: () => void events.push('disposed'),
      }),
    });
    await w.start();
    await eventually(() => events.includes('handler'));
    const began = Date.now();
    await w.stop(300);
    expect(Date.now() - began).toBeGreaterThanOrEqual(290);
    expect(Date.now() - began).toBeLessThan(1500);
    expect(events).toEqual(['handler', 'aborted']);
    release();
    await eventually(() => events.includes('disposed'));
    // The scope is disposed once the attempt is settled, after any completion: its ack was not sent.
    expect(events).toEqual(['handler', 'aborted', 'finished', 'disposed']);
    expect(await pendingCount(conn, stream, 'g')).toBe(1);
  });
});

describe('scopes (README: a new scope per entry, disposed after handling and completion)', () => {
  it('creates a fresh scope per entry and disposes it after completion', async () => {
    const { stream } = uniqueKeys();
    const scopes: { id: number; disposedAfterAck?: boolean }[] = [];
    const w = worker({
      stream,
      group: 'g',
      createScope: () => {
        const scope: { id: number; disposedAfterAck?: boolean } = { id: scopes.length };
        scopes.push(scope);
        return {
          handler: async () => 'ack',
          dispose: async () => {
            scope.disposedAfterAck = (await pendingCount(conn, stream, 'g')) === 0;
          },
        };
      },
    });
    await w.start();
    await add(conn, stream, { k: 'a' });
    await eventually(() => scopes[0]?.disposedAfterAck !== undefined);
    await add(conn, stream, { k: 'b' });
    await eventually(() => scopes[1]?.disposedAfterAck !== undefined);
    expect(scopes).toEqual([
      { id: 0, disposedAfterAck: true },
      { id: 1, disposedAfterAck: true },
    ]);
  });

  it('a scope creation failure faults the worker; the entry stays pending', async () => {
    const { stream } = uniqueKeys();
    class ContainerError extends Error {}
    const w = worker({ stream, group: 'g', createScope: () => Promise.reject(new ContainerError('db down')) });
    await w.start();
    await add(conn, stream, { k: 'a' });
    await expect(w.done).rejects.toMatchObject({ message: expect.stringMatching(/scope creation failed \(ContainerError\)/) });
    expect(await pendingCount(conn, stream, 'g')).toBe(1);
  });

  it('a scope disposal failure faults the worker (after the entry was completed)', async () => {
    const { stream } = uniqueKeys();
    const w = worker({ stream, group: 'g', createScope: () => ({ handler: () => 'ack', dispose: () => Promise.reject(new RangeError('x')) }) });
    await w.start();
    await add(conn, stream, { k: 'a' });
    await expect(w.done).rejects.toMatchObject({ message: expect.stringMatching(/scope disposal failed \(RangeError\)/) });
    expect(await pendingCount(conn, stream, 'g')).toBe(0);
  });
});

describe('StreamWorkerHost', () => {
  it('rejects a duplicate telemetryName at add, including the default', () => {
    const host = new StreamWorkerHost({ handleSignals: false });
    host.add({ client: conn.client, stream: 's1', group: 'g', handler: () => 'ack' });
    expect(() => host.add({ client: conn.client, stream: 's2', group: 'g', handler: () => 'ack' })).toThrow(
      expect.objectContaining({ name: 'RespireValidationError', argument: 'telemetryName' }),
    );
    host.add({ client: conn.client, stream: 's2', group: 'g', telemetryName: 'orders', handler: () => 'ack' });
    expect(() => host.add({ client: conn.client, stream: 's3', group: 'g', telemetryName: 'orders', handler: () => 'ack' })).toThrow(/already used/);
  });

  it("'stop-all' stops every worker when one faults and rejects done with the fault", async () => {
    const a = uniqueKeys();
    const b = uniqueKeys();
    const host = new StreamWorkerHost({ handleSignals: false, shutdownTimeoutMs: 1000, logger: recordingLogger() });
    const faulty = host.add({
      client: conn.client,
      stream: a.stream,
      group: 'g',
      telemetryName: 'a',
      readWaitMs: 200,
      logger: recordingLogger(),
      createScope: () => Promise.reject(new Error('x')),
    });
    const healthy = host.add({ client: conn.client, stream: b.stream, group: 'g', telemetryName: 'b', readWaitMs: 200, handler: () => 'ack' });
    await host.start();
    await add(conn, a.stream, { k: 'v' });
    await expect(host.done).rejects.toMatchObject({ message: expect.stringMatching(/scope creation failed/) });
    expect(faulty.state).toBe('stopped');
    expect(healthy.state).toBe('stopped');
  });

  it("drains each worker for the shorter of its own shutdownTimeoutMs and the host's", async () => {
    const { stream } = uniqueKeys();
    const host = new StreamWorkerHost({ handleSignals: false, shutdownTimeoutMs: 30_000, logger: recordingLogger() });
    let aborted = false;
    host.add({
      client: conn.client,
      stream,
      group: 'g',
      readWaitMs: 200,
      shutdownTimeoutMs: 300,
      logger: recordingLogger(),
      handler: (_entry, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve('ack');
          }),
        ),
    });
    await host.start();
    await add(conn, stream, { k: 'v' });
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 1);
    const started = Date.now();
    await host.stop();
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("'ignore' keeps the other workers running", async () => {
    const a = uniqueKeys();
    const b = uniqueKeys();
    const host = new StreamWorkerHost({ handleSignals: false, faultPolicy: 'ignore', logger: recordingLogger() });
    const faulty = host.add({
      client: conn.client,
      stream: a.stream,
      group: 'g',
      telemetryName: 'a',
      readWaitMs: 200,
      logger: recordingLogger(),
      createScope: () => Promise.reject(new Error('x')),
    });
    const seen: string[] = [];
    const healthy = host.add({
      client: conn.client,
      stream: b.stream,
      group: 'g',
      telemetryName: 'b',
      readWaitMs: 200,
      handler: (e) => (seen.push(e.id), 'ack'),
    });
    await host.start();
    await add(conn, a.stream, { k: 'v' });
    await expect(faulty.done).rejects.toBeDefined();
    await add(conn, b.stream, { k: 'v' });
    await eventually(() => seen.length === 1);
    expect(healthy.state).toBe('running');
    await host.stop();
    await expect(host.done).resolves.toBeUndefined();
  });

  it('applies its shutdownTimeoutMs to every worker: handlers are aborted at the timeout', async () => {
    const a = uniqueKeys();
    const host = new StreamWorkerHost({ handleSignals: false, shutdownTimeoutMs: 200, logger: recordingLogger() });
    let aborted = false;
    let started = false;
    const outcomes: string[] = [];
    host.add({
      client: conn.client,
      stream: a.stream,
      group: 'g',
      readWaitMs: 200,
      logger: recordingLogger(),
      instrumentation: { startDelivery: () => ({ end: (outcome) => void outcomes.push(outcome) }) },
      handler: (_e, signal) =>
        new Promise((resolve) => {
          started = true;
          signal.addEventListener('abort', () => ((aborted = true), resolve('ack')));
        }),
    });
    await host.start();
    await add(conn, a.stream, { k: 'v' });
    await eventually(() => started);
    const began = Date.now();
    await host.stop();
    expect(Date.now() - began).toBeGreaterThanOrEqual(190);
    expect(Date.now() - began).toBeLessThan(1500);
    expect(aborted).toBe(true);
    await eventually(() => outcomes.length === 1);
    expect(outcomes).toEqual(['canceled']); // the result after the abort is not acknowledged
    expect(await pendingCount(conn, a.stream, 'g')).toBe(1);
  });

  it('SIGTERM stops every worker gracefully; the listeners are removed afterwards', async () => {
    const a = uniqueKeys();
    const before = process.listenerCount('SIGTERM');
    const host = new StreamWorkerHost({ logger: recordingLogger() });
    const w = host.add({ client: conn.client, stream: a.stream, group: 'g', readWaitMs: 5000, handler: () => 'ack' });
    await host.start();
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    process.emit('SIGTERM');
    await host.done;
    expect(w.state).toBe('stopped');
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});

describe('instrumentation seam', () => {
  it('reports each delivery with its trace-context fields and outcome, and confirmed dead letters; throwing hooks change nothing', async () => {
    const { stream, dead } = uniqueKeys();
    const starts: DeliveryStart[] = [];
    const outcomes: DeliveryOutcome[] = [];
    const reasons: string[] = [];
    const w = worker({
      stream,
      group: 'g',
      deadLetterStream: dead,
      telemetryName: 'orders',
      instrumentation: {
        startDelivery: (s) => {
          starts.push(s);
          return {
            end: (o) => {
              outcomes.push(o);
              throw new Error('hook bug');
            },
          };
        },
        deadLettered: (e) => {
          reasons.push(e.reason);
          throw new Error('hook bug');
        },
      },
      handler: (e) => (e.getString('k') === 'dl' ? 'dead-letter' : 'ack'),
    });
    await w.start();
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await add(conn, stream, { k: 'a', traceparent: tp, tracestate: 'v=1' });
    await conn.raw(stream, ['XADD', stream, '*', 'k', 'dl', 'traceparent', tp, 'traceparent', tp]);
    await eventually(() => outcomes.length === 2);
    expect(starts[0]).toMatchObject({ telemetryName: 'orders', deliveryCount: 1, traceParent: tp, traceState: 'v=1' });
    expect(starts[1]).toMatchObject({ traceParent: undefined }); // a duplicate parent starts a new root
    expect(outcomes).toEqual(['ack', 'dead-letter']);
    expect(reasons).toEqual(['explicit']);
    expect((await range(conn, dead)).length).toBe(1);
    expect(w.state).toBe('running');
  });

  it('workerStarted exposes a gauge query (XINFO GROUPS lag and pending); workerStopped is called on stop', async () => {
    const { stream } = uniqueKeys();
    let info: WorkerInfo | undefined;
    let stopped = 0;
    const w = worker({
      stream,
      group: 'g',
      metricsPollIntervalMs: 1234,
      instrumentation: { workerStarted: (i) => void (info = i), workerStopped: () => void stopped++ },
      handler: () => 'nack',
    });
    await w.start();
    await add(conn, stream, { k: 'v' });
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 1);
    expect(info).toMatchObject({ telemetryName: 'default', metricsPollIntervalMs: 1234, metricsPollTimeoutMs: 5000 });
    const sample = await info!.queryGroup();
    expect(sample).toMatchObject({ pending: 1 });
    expect(sample!.lag === null || sample!.lag === 0).toBe(true);
    await w.stop();
    expect(stopped).toBe(1);
  });

  it('traceParentField null disables extraction; renamed fields are read', async () => {
    const { stream } = uniqueKeys();
    const starts: DeliveryStart[] = [];
    const w = worker({
      stream,
      group: 'g',
      traceParentField: 'tp',
      traceStateField: null,
      instrumentation: { startDelivery: (s) => void starts.push(s) },
      handler: () => 'ack',
    });
    await w.start();
    await add(conn, stream, { tp: 'x', tracestate: 'y' });
    await eventually(() => starts.length === 1);
    expect(starts[0]).toMatchObject({ traceParent: 'x', traceState: undefined });
  });
});

describe('extreme durations', () => {
  it('readWaitMs and recoveryPollIntervalMs of 2^31-1 ms still read promptly (timers never overflow)', async () => {
    const { stream } = uniqueKeys();
    const seen: string[] = [];
    const w = worker({
      stream,
      group: 'g',
      readWaitMs: 2 ** 31 - 1,
      recoveryPollIntervalMs: 2 ** 31 - 1,
      minimumIdleTimeMs: 2 ** 31 - 1,
      handler: (e) => (seen.push(e.id), 'ack'),
    });
    await w.start();
    await sleep(200); // parked in a long BLOCK, with no spurious deadline
    await add(conn, stream, { k: 'v' });
    await eventually(() => seen.length === 1);
    const began = Date.now();
    await w.stop();
    expect(Date.now() - began).toBeLessThan(2000);
  });
});
