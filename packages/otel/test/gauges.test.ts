// The lag and pending gauges: polled only while collected, never overlapping, cleared on failure, timeout and stop.
import { AggregationTemporality } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { createStreamWorkerTelemetry, WORKER_GROUP_LAG, WORKER_GROUP_PENDING, type GroupSample } from '@respire/otel';
import { GroupPoller } from '../src/group-gauges.js';
import type { WorkerInfo } from '@respire/worker';
import { pointsOf, sleep, telemetrySdk } from './support.js';

function source(query: () => Promise<GroupSample | null>, over: Partial<WorkerInfo> = {}) {
  let calls = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const info: WorkerInfo = {
    telemetryName: 'orders',
    stream: '{o}:events',
    group: 'g',
    metricsPollIntervalMs: 10,
    metricsPollTimeoutMs: 1000,
    async queryGroup() {
      calls++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        return await query();
      } finally {
        inFlight--;
      }
    },
    ...over,
  };
  return { info, stats: () => ({ calls, maxInFlight }) };
}

describe('group gauges (README "Instruments": lag and pending from XINFO GROUPS)', () => {
  it('queries only when observed, at most once per interval, and never overlapping under a slow server', async () => {
    const { info, stats } = source(async () => (await sleep(60), { lag: 3, pending: 2 }), { metricsPollIntervalMs: 10, metricsPollTimeoutMs: 1000 });
    const poller = new GroupPoller(info);
    expect(stats().calls).toBe(0);
    for (let i = 0; i < 20; i++) {
      void poller.observe();
      await sleep(5);
    }
    expect(stats().maxInFlight).toBe(1);
    expect(stats().calls).toBeLessThanOrEqual(3);
    await sleep(80);
    expect(await poller.observe()).toEqual({ lag: 3, pending: 2 });
  });

  it('clears the sample on failure, timeout, a missing group and stop', async () => {
    let mode: 'ok' | 'fail' | 'slow' | 'missing' = 'ok';
    const { info } = source(
      async () => {
        if (mode === 'fail') throw new Error('NOPERM');
        if (mode === 'slow') await sleep(200);
        if (mode === 'missing') return null;
        return { lag: 1, pending: 1 };
      },
      { metricsPollIntervalMs: 1, metricsPollTimeoutMs: 30 },
    );
    const poller = new GroupPoller(info);
    const settle = async () => {
      void poller.observe();
      await sleep(50);
      return poller.observe();
    };
    expect(await settle()).toEqual({ lag: 1, pending: 1 });
    mode = 'fail';
    await sleep(5);
    expect(await settle()).toBeNull();
    mode = 'ok';
    await sleep(5);
    expect(await settle()).toEqual({ lag: 1, pending: 1 });
    mode = 'slow';
    await sleep(5);
    void poller.observe();
    await sleep(60);
    expect(await poller.observe()).toBeNull();
    await sleep(200);
    mode = 'missing';
    expect(await settle()).toBeNull();
    mode = 'ok';
    await sleep(5);
    expect(await settle()).toEqual({ lag: 1, pending: 1 });
    poller.stop();
    expect(await poller.observe()).toBeNull();
  });

  it('reports pending but never a zero lag when lag is unknown; stopping and disposal remove the samples', async () => {
    const sdk = telemetrySdk(AggregationTemporality.DELTA);
    const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
    const { info } = source(async () => ({ lag: null, pending: 4 }), { metricsPollIntervalMs: 1 });
    telemetry.workerStarted!(info);
    expect(await sdk.points(WORKER_GROUP_PENDING)).toEqual([
      expect.objectContaining({ attributes: { 'respire.worker.name': 'orders' }, value: 4, unit: '{message}' }),
    ]);
    expect(await sdk.points(WORKER_GROUP_LAG)).toEqual([]);
    telemetry.workerStopped!(info);
    expect(await sdk.points(WORKER_GROUP_PENDING)).toEqual([]);
    const { info: other, stats } = source(async () => ({ lag: 2, pending: 1 }), { metricsPollIntervalMs: 1 });
    telemetry.workerStarted!(other);
    await sdk.points(WORKER_GROUP_LAG);
    telemetry.dispose();
    const callsAtDispose = stats().calls;
    await sleep(20);
    expect(await sdk.points(WORKER_GROUP_LAG)).toEqual([]);
    expect(stats().calls).toBe(callsAtDispose);
    await sdk.shutdown();
  });

  it('the first collection after a worker starts waits for its first query and has the gauges', async () => {
    const sdk = telemetrySdk(AggregationTemporality.DELTA);
    const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
    const { info, stats } = source(async () => (await sleep(80), { lag: 5, pending: 2 }), { metricsPollIntervalMs: 60_000, metricsPollTimeoutMs: 1000 });
    telemetry.workerStarted!(info);
    const { resourceMetrics } = await sdk.reader.collect();
    expect(pointsOf(resourceMetrics, WORKER_GROUP_LAG)).toEqual([expect.objectContaining({ value: 5, attributes: { 'respire.worker.name': 'orders' } })]);
    expect(pointsOf(resourceMetrics, WORKER_GROUP_PENDING)).toEqual([expect.objectContaining({ value: 2 })]);
    expect(stats().calls).toBe(1);
    // Later collections answer from the sample; the interval has not passed, so no new query.
    expect(await sdk.points(WORKER_GROUP_LAG)).toEqual([expect.objectContaining({ value: 5 })]);
    expect(stats().calls).toBe(1);
    telemetry.dispose();
    await sdk.shutdown();
  });

  it('the wait is bounded by metricsPollTimeoutMs, and a slow first query is never overlapped', async () => {
    const sdk = telemetrySdk(AggregationTemporality.DELTA);
    const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
    const { info, stats } = source(async () => (await sleep(2000), { lag: 1, pending: 1 }), { metricsPollIntervalMs: 1, metricsPollTimeoutMs: 50 });
    telemetry.workerStarted!(info);
    const started = performance.now();
    expect(await sdk.points(WORKER_GROUP_PENDING)).toEqual([]);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(45);
    expect(waited).toBeLessThan(1000); // not the query's 2 s
    // The query still runs: the next collections neither wait nor start another one.
    expect(await sdk.points(WORKER_GROUP_PENDING)).toEqual([]);
    expect(stats()).toEqual({ calls: 1, maxInFlight: 1 });
    telemetry.dispose();
    await sdk.shutdown();
  });

  it('a query that throws synchronously only clears the sample', async () => {
    const info = {
      ...source(async () => null).info,
      queryGroup: () => {
        throw new Error('boom');
      },
    } as WorkerInfo;
    const poller = new GroupPoller(info);
    await expect(poller.observe()).resolves.toBeNull();
    await sleep(5);
    expect(await poller.observe()).toBeNull();
  });
});
