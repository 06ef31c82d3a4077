// Worker telemetry (durations and gauge polling) keeps its pace when the wall clock steps, freezes or runs backwards.
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { StreamWorker, type StreamEntry, type WorkerInfo } from '@respire/worker';
import { WORKER_GROUP_PENDING, WORKER_PROCESSING_DURATION, createStreamWorkerTelemetry } from '@respire/otel';
import { telemetrySdk } from './support.js';

/**
 * Issue 11, kind 3, telemetry's share: gauge polling and durations run on a monotonic clock.
 * `Date.now` is replaced as a host clock step appears to Node.js; waits use performance.now().
 */
const realNow = Date.now.bind(Date);
const clocks: [string, () => () => number][] = [
  ['stepped back 1 h', () => () => realNow() - 3_600_000],
  ['stepped forward 1 h', () => () => realNow() + 3_600_000],
  [
    'frozen',
    () => {
      const frozen = realNow();
      return () => frozen;
    },
  ],
];
const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<R>(check: () => Promise<R>, timeoutMs: number, what: string): Promise<NonNullable<R>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<R>;
    if (performance.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(50);
  }
}

describe('kind 3: worker telemetry under wall-clock steps', () => {
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    client = createClient({ url: inject('redisUrl') });
    await client.connect();
  });
  afterAll(() => client.destroy());
  afterEach(() => vi.restoreAllMocks());

  it.each(clocks)('with the wall clock %s, the group gauges keep querying once per metricsPollIntervalMs while collected', async (_label, make) => {
    // Counted at the query itself: the OpenTelemetry SDK orders gauge samples by Date.now(), so
    // after a backward step the exported value is the SDK's business; the polling is ours.
    const sdk = telemetrySdk();
    const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
    let queries = 0;
    const info: WorkerInfo = {
      telemetryName: 'gauges',
      stream: '{g}:events',
      group: 'g',
      metricsPollIntervalMs: 200,
      metricsPollTimeoutMs: 1000,
      queryGroup: async () => (queries++, { lag: 0, pending: queries }),
    };
    telemetry.workerStarted!(info);
    try {
      await sdk.points(WORKER_GROUP_PENDING);
      await sleep(50);
      expect(queries).toBe(1);
      vi.spyOn(Date, 'now').mockImplementation(make());
      const began = performance.now();
      while (performance.now() - began < 1500) {
        await sdk.points(WORKER_GROUP_PENDING);
        await sleep(50);
      }
      // About 1 + 1500 / 200 queries; never more than one per interval.
      expect(queries).toBeGreaterThanOrEqual(5);
      expect(queries).toBeLessThanOrEqual(10);
    } finally {
      telemetry.workerStopped!(info);
      telemetry.dispose();
      await sdk.shutdown();
    }
  });

  it.each(clocks)(
    'with the wall clock %s mid-delivery, the recorded processing duration is the real one',
    async (_label, make) => {
      const sdk = telemetrySdk();
      const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
      const tag = randomBytes(5).toString('hex');
      const stream = `{duration-${tag}}:events`;
      let handled = false;
      const worker = new StreamWorker({
        client,
        stream,
        group: 'g',
        telemetryName: `duration-${tag}`,
        readWaitMs: 100,
        logger: quietLogger,
        instrumentation: telemetry,
        handler: async (_entry: StreamEntry) => {
          vi.spyOn(Date, 'now').mockImplementation(make());
          await sleep(100);
          handled = true;
          return 'ack';
        },
      });
      await worker.start();
      try {
        await client.sendCommand(['XADD', stream, '*', 'k', 'v']);
        await until(async () => handled, 5000, 'handled');
        const [point] = await until(
          async () => {
            const points = (await sdk.points(WORKER_PROCESSING_DURATION)).filter((p) => p.attributes['respire.worker.name'] === `duration-${tag}`);
            return points.length > 0 ? points : undefined;
          },
          3000,
          'a duration point',
        );
        const sum = (point!.value as { sum: number }).sum;
        expect(sum).toBeGreaterThanOrEqual(0.09);
        expect(sum).toBeLessThan(3);
      } finally {
        await worker.stop(1000);
        telemetry.dispose();
        await sdk.shutdown();
      }
    },
    15_000,
  );
});
