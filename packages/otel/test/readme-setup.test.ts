// The README's set-up: global providers and a context manager; the producer's span parents the worker's.
import { SpanKind, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { StreamWorker, StreamWorkerResult } from '@respire/worker';
import { WORKER_SPAN_NAME, createStreamWorkerTelemetry, traceContextFields } from '@respire/otel';
import { eventually, telemetrySdk } from './support.js';

/** The README's set-up: global providers plus a context manager; the producer's span parents the worker's. */
describe('README set-up', () => {
  let client: ReturnType<typeof createClient>;
  const manager = new AsyncLocalStorageContextManager();
  beforeAll(async () => {
    context.setGlobalContextManager(manager.enable());
    client = createClient({ url: inject('redisUrl') });
    await client.connect();
  });
  afterAll(() => {
    client.destroy();
    context.disable();
  });

  it('traceContextFields() inside startActiveSpan links the producer span to the worker span', async () => {
    const sdk = telemetrySdk();
    trace.setGlobalTracerProvider(sdk.tracerProvider);
    const stream = `{readme-${Date.now()}}:events`;
    const tracer = trace.getTracer('Orders');
    const producerSpanId = await tracer.startActiveSpan('publish order', { kind: SpanKind.PRODUCER }, async (span) => {
      await client.xAdd(stream, '*', { payload: '{"id":1}', ...traceContextFields() });
      span.end();
      return span.spanContext().spanId;
    });
    const worker = new StreamWorker({
      client,
      stream,
      group: 'fulfillment',
      telemetryName: 'readme-orders',
      readWaitMs: 100,
      instrumentation: createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider }),
      handler: () => StreamWorkerResult.Ack,
    });
    await worker.start();
    try {
      await eventually(() => sdk.spans.getFinishedSpans().some((s) => s.name === WORKER_SPAN_NAME));
    } finally {
      await worker.stop();
    }
    const processed = sdk.spans.getFinishedSpans().find((s) => s.name === WORKER_SPAN_NAME)!;
    expect(processed.parentSpanContext?.spanId).toBe(producerSpanId);
    trace.disable();
    await sdk.shutdown();
  });
});
