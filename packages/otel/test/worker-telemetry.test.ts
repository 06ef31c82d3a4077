// The worker's metrics and spans on real Redis: one span per attempt, outcomes, dead letters, errors.
import { randomBytes } from 'node:crypto';
import { SpanKind, SpanStatusCode, context, trace, type MeterProvider } from '@opentelemetry/api';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { StreamWorker, StreamWorkerResult, type StreamEntry } from '@respire/worker';
import {
  WORKER_DEAD_LETTERS,
  WORKER_GROUP_LAG,
  WORKER_GROUP_PENDING,
  WORKER_PROCESSING_DURATION,
  WORKER_SPAN_NAME,
  createStreamWorkerTelemetry,
  traceContextFields,
} from '@respire/otel';
import { eventually, pointsOf, telemetrySdk } from './support.js';

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };
const uniqueTag = () => `t-${randomBytes(5).toString('hex')}`;

describe('worker telemetry on real Redis', () => {
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    client = createClient({ url: inject('redisUrl') });
    await client.connect();
  });
  afterAll(() => client.destroy());

  it('one CONSUMER span per attempt; retries are siblings under the producer parent; metrics carry name and outcome only', async () => {
    const sdk = telemetrySdk();
    const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
    const tag = uniqueTag();
    const stream = `{${tag}}:events`;
    const producer = sdk.tracerProvider.getTracer('orders').startSpan('publish order', { kind: SpanKind.PRODUCER });
    const fields = traceContextFields({ context: trace.setSpan(context.active(), producer) });
    await client.xAdd(stream, '*', { payload: 'order-1', ...fields });
    await client.xAdd(stream, '*', { payload: 'order-2' });
    let attempts = 0;
    const worker = new StreamWorker({
      client,
      stream,
      group: 'g',
      telemetryName: `orders-${tag}`,
      readWaitMs: 100,
      minimumIdleTimeMs: 150,
      recoveryPollIntervalMs: 50,
      logger: quietLogger,
      instrumentation: telemetry,
      handler: (entry: StreamEntry) => (entry.getString('payload') === 'order-1' && ++attempts === 1 ? StreamWorkerResult.Nack : StreamWorkerResult.Ack),
    });
    // A host span that must not become the parent of the new root.
    const host = sdk.tracerProvider.getTracer('host').startSpan('host');
    await context.with(trace.setSpan(context.active(), host), () => worker.start());
    try {
      await eventually(() => sdk.spans.getFinishedSpans().filter((s) => s.name === WORKER_SPAN_NAME).length >= 3);
    } finally {
      await worker.stop();
      host.end();
    }
    const spans = sdk.spans.getFinishedSpans().filter((s) => s.name === WORKER_SPAN_NAME);
    const parented = spans.filter((s) => s.parentSpanContext?.spanId === producer.spanContext().spanId);
    expect(parented).toHaveLength(2);
    expect(new Set(parented.map((s) => s.spanContext().spanId)).size).toBe(2);
    expect(parented.every((s) => s.spanContext().traceId === producer.spanContext().traceId)).toBe(true);
    expect(parented.map((s) => s.attributes['respire.worker.outcome']).sort()).toEqual(['ack', 'nack']);
    const root = spans.find((s) => s.attributes['messaging.message.id'] !== parented[0]!.attributes['messaging.message.id'])!;
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.spanContext().traceId).not.toBe(host.spanContext().traceId);
    expect(root.kind).toBe(SpanKind.CONSUMER);
    expect(root.attributes).toMatchObject({
      'messaging.system': 'redis',
      'messaging.operation.type': 'process',
      'messaging.destination.name': `${tag}:events`,
      'messaging.consumer.group.name': 'g',
    });
    const durations = await sdk.points(WORKER_PROCESSING_DURATION);
    expect(durations.map((p) => p.attributes).sort((a, b) => String(a['respire.worker.outcome']).localeCompare(String(b['respire.worker.outcome'])))).toEqual([
      { 'respire.worker.name': `orders-${tag}`, 'respire.worker.outcome': 'ack' },
      { 'respire.worker.name': `orders-${tag}`, 'respire.worker.outcome': 'nack' },
    ]);
    expect(durations[0]!.unit).toBe('s');
    telemetry.dispose();
    await sdk.shutdown();
  });

  it('the first collection after start() already has the lag and pending gauges', async () => {
    const sdk = telemetrySdk();
    const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
    const tag = uniqueTag();
    const stream = `{${tag}}:events`;
    await client.xAdd(stream, '*', { payload: 'a' });
    await client.xAdd(stream, '*', { payload: 'b' });
    const worker = new StreamWorker({
      client,
      stream,
      group: 'g',
      groupStart: '$',
      telemetryName: `gauges-${tag}`,
      readWaitMs: 100,
      metricsPollIntervalMs: 60_000,
      logger: quietLogger,
      instrumentation: telemetry,
      handler: () => StreamWorkerResult.Ack,
    });
    await worker.start();
    try {
      const { resourceMetrics } = await sdk.reader.collect();
      // The group starts at '$': nothing undelivered, nothing pending.
      expect(pointsOf(resourceMetrics, WORKER_GROUP_LAG)).toEqual([
        expect.objectContaining({ attributes: { 'respire.worker.name': `gauges-${tag}` }, value: 0 }),
      ]);
      expect(pointsOf(resourceMetrics, WORKER_GROUP_PENDING)).toEqual([
        expect.objectContaining({ attributes: { 'respire.worker.name': `gauges-${tag}` }, value: 0 }),
      ]);
    } finally {
      await worker.stop();
    }
    telemetry.dispose();
    await sdk.shutdown();
  });

  it('counts confirmed dead letters by reason', async () => {
    const sdk = telemetrySdk();
    const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
    const tag = uniqueTag();
    const stream = `{${tag}}:events`;
    await client.xAdd(`tenant:${stream}`, '*', { payload: 'explicit' });
    const worker = new StreamWorker({
      client,
      stream,
      keyPrefix: 'tenant:',
      group: 'g',
      telemetryName: `dl-${tag}`,
      readWaitMs: 100,
      deadLetterStream: `{${tag}}:dead`,
      logger: quietLogger,
      instrumentation: telemetry,
      handler: () => StreamWorkerResult.DeadLetter,
    });
    await worker.start();
    try {
      await eventually(async () => (await client.xLen(`tenant:{${tag}}:dead`)) === 1);
    } finally {
      await worker.stop();
    }
    // The destination is the configured stream, without the key prefix or hash-tag braces.
    expect(sdk.spans.getFinishedSpans()[0]!.attributes['messaging.destination.name']).toBe(`${tag}:events`);
    const points = await sdk.points(WORKER_DEAD_LETTERS);
    expect(points).toEqual([
      expect.objectContaining({ attributes: { 'respire.worker.name': `dl-${tag}`, 'respire.worker.reason': 'explicit' }, value: 1, unit: '{message}' }),
    ]);
    const durations = await sdk.points(WORKER_PROCESSING_DURATION);
    expect(durations.map((p) => p.attributes['respire.worker.outcome'])).toEqual(['dead-letter']);
    telemetry.dispose();
    await sdk.shutdown();
  });

  it('a throwing meter and tracer never change an outcome', async () => {
    const throwing = new Proxy(
      {},
      {
        get: () => () => {
          throw new Error('exporter down');
        },
      },
    );
    const brokenMeterProvider = {
      getMeter: () => ({
        createHistogram: () => throwing,
        createCounter: () => throwing,
        createObservableGauge: () => ({}),
        addBatchObservableCallback: () => {},
        removeBatchObservableCallback: () => {},
      }),
    } as unknown as MeterProvider;
    const brokenTracerProvider = { getTracer: () => ({ startSpan: () => throwing }) } as never;
    const telemetry = createStreamWorkerTelemetry({ meterProvider: brokenMeterProvider, tracerProvider: brokenTracerProvider });
    const tag = uniqueTag();
    const stream = `{${tag}}:events`;
    await client.xAdd(stream, '*', { payload: 'x' });
    await client.xAdd(stream, '*', { payload: 'dead' });
    const worker = new StreamWorker({
      client,
      stream,
      group: 'g',
      telemetryName: `broken-${tag}`,
      readWaitMs: 100,
      deadLetterStream: `{${tag}}:dead`,
      logger: quietLogger,
      instrumentation: telemetry,
      handler: (entry: StreamEntry) => (entry.getString('payload') === 'dead' ? StreamWorkerResult.DeadLetter : StreamWorkerResult.Ack),
    });
    await worker.start();
    try {
      await eventually(async () => Number((await client.xPending(stream, 'g')).pending) === 0 && (await client.xLen(`{${tag}}:dead`)) === 1);
    } finally {
      await worker.stop();
    }
    expect(worker.state).not.toBe('faulted');
  });
});

describe('every outcome tag', () => {
  it.each(['ack', 'nack', 'dead-letter', 'deleted', 'stale', 'canceled', 'error'] as const)('records %s with the name and outcome only', async (outcome) => {
    const sdk = telemetrySdk();
    const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
    const scope = telemetry.startDelivery!({
      telemetryName: 'orders',
      stream: 'tenant:{orders}:events',
      destination: '{orders}:events',
      group: 'g',
      entryId: '1-1',
      deliveryCount: 3,
      traceParent: undefined,
      traceState: undefined,
    });
    scope!.end(outcome);
    scope!.end('ack');
    const points = await sdk.points(WORKER_PROCESSING_DURATION);
    expect(points).toEqual([expect.objectContaining({ attributes: { 'respire.worker.name': 'orders', 'respire.worker.outcome': outcome } })]);
    const [span] = sdk.spans.getFinishedSpans();
    expect(span!.attributes['respire.worker.outcome']).toBe(outcome);
    expect(span!.status.code).toBe(outcome === 'error' ? 2 : 0);
    // Outcome error without an exception type: the semantic conventions' fallback.
    expect(span!.attributes['error.type']).toBe(outcome === 'error' ? '_OTHER' : undefined);
    telemetry.dispose();
    await sdk.shutdown();
  });
});

describe('a delivery that failed because something threw (end(outcome, errorType))', () => {
  const start = {
    telemetryName: 'orders',
    stream: '{orders}:events',
    destination: '{orders}:events',
    group: 'g',
    entryId: '1-1',
    deliveryCount: 1,
    traceParent: undefined,
    traceState: undefined,
  };

  it.each([
    ['a handler that threw and left the entry pending', 'error', 'PaymentDeclinedError'],
    ['a failure on the final attempt, dead-lettered', 'dead-letter', 'SyntaxError'],
  ] as const)('%s: span ERROR with error.type, the metric with the name and outcome only', async (_label, outcome, type) => {
    const sdk = telemetrySdk();
    const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
    telemetry.startDelivery!(start)!.end(outcome, type);
    const [span] = sdk.spans.getFinishedSpans();
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    expect(span!.status.message).toBeUndefined();
    expect(span!.attributes['error.type']).toBe(type);
    expect(span!.attributes['respire.worker.outcome']).toBe(outcome);
    expect(span!.events).toEqual([]);
    expect(await sdk.points(WORKER_PROCESSING_DURATION)).toEqual([
      expect.objectContaining({ attributes: { 'respire.worker.name': 'orders', 'respire.worker.outcome': outcome } }),
    ]);
    telemetry.dispose();
    await sdk.shutdown();
  });

  it('keeps error.type short and ignores a type that is not a nonempty string', async () => {
    const sdk = telemetrySdk();
    const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
    telemetry.startDelivery!(start)!.end('error', 'E'.repeat(1000));
    telemetry.startDelivery!(start)!.end('error', 42 as never);
    telemetry.startDelivery!(start)!.end('ack', '');
    const [long, notString, ack] = sdk.spans.getFinishedSpans();
    expect(long!.attributes['error.type']).toBe('E'.repeat(256));
    expect(notString!.attributes['error.type']).toBe('_OTHER');
    expect(ack!.status.code).toBe(SpanStatusCode.UNSET);
    expect(ack!.attributes['error.type']).toBeUndefined();
    telemetry.dispose();
    await sdk.shutdown();
  });
});
