// Worker telemetry with no SDK, an SDK registered later, only a meter or only a tracer: what is recorded, and what is skipped.
import { afterEach, describe, expect, it } from 'vitest';
import { metrics, trace } from '@opentelemetry/api';
import { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { DeliveryStart } from '@respire/worker';
import { ATTR_WORKER_OUTCOME, WORKER_PROCESSING_DURATION, WORKER_SPAN_NAME, createStreamWorkerTelemetry } from '@respire/otel';
import { telemetrySdk } from './support.js';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** An attempt's start whose trace fields count how often they are read. */
function attemptStart(): DeliveryStart & { reads: number } {
  let reads = 0;
  return {
    telemetryName: 'orders',
    stream: 'app:{o}:events',
    destination: '{o}:events',
    group: 'g',
    entryId: '1-1',
    deliveryCount: 1,
    get traceParent() {
      reads++;
      return PARENT;
    },
    get traceState() {
      reads++;
      return 'vendor=1';
    },
    get reads() {
      return reads;
    },
  };
}

afterEach(() => {
  trace.disable();
  metrics.disable();
});

describe('no SDK registered', () => {
  it('an attempt has no scope (the worker calls no end) and its trace context is never read', () => {
    const telemetry = createStreamWorkerTelemetry();
    const start = attemptStart();
    expect(telemetry.startDelivery(start)).toBeUndefined();
    expect(start.reads).toBe(0);
    telemetry.dispose();
  });

  it('a tracer provider registered after the telemetry was created records the next attempts, under the entry’s parent', () => {
    const telemetry = createStreamWorkerTelemetry();
    expect(telemetry.startDelivery(attemptStart())).toBeUndefined();
    const spans = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
    telemetry.startDelivery(attemptStart())!.end('ack');
    const [span] = spans.getFinishedSpans();
    expect(span).toMatchObject({ name: WORKER_SPAN_NAME, attributes: { [ATTR_WORKER_OUTCOME]: 'ack' } });
    expect(span!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    telemetry.dispose();
  });
});

describe('part of an SDK', () => {
  it('a meter alone times every attempt by outcome; no span is started and the trace context is never read', async () => {
    const sdk = telemetrySdk();
    const telemetry = createStreamWorkerTelemetry({ meterProvider: sdk.meterProvider });
    const start = attemptStart();
    telemetry.startDelivery(start)!.end('nack');
    expect(start.reads).toBe(0);
    const points = await sdk.points(WORKER_PROCESSING_DURATION);
    expect(points.map((p) => [p.attributes, (p.value as { count: number }).count])).toEqual([
      [{ 'respire.worker.name': 'orders', 'respire.worker.outcome': 'nack' }, 1],
    ]);
    expect(sdk.spans.getFinishedSpans()).toEqual([]);
    telemetry.dispose();
    await sdk.shutdown();
  });

  it('a tracer alone records the span with its outcome and no duration', async () => {
    const sdk = telemetrySdk();
    const telemetry = createStreamWorkerTelemetry({ tracerProvider: sdk.tracerProvider });
    telemetry.startDelivery(attemptStart())!.end('error', 'OrderRejected');
    expect(sdk.spans.getFinishedSpans().map((s) => s.attributes)).toEqual([
      expect.objectContaining({ [ATTR_WORKER_OUTCOME]: 'error', 'error.type': 'OrderRejected' }),
    ]);
    expect(await sdk.points(WORKER_PROCESSING_DURATION)).toEqual([]);
    telemetry.dispose();
    await sdk.shutdown();
  });

  it('a span sampled out and no meter: no scope', () => {
    const tracerProvider = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });
    const telemetry = createStreamWorkerTelemetry({ tracerProvider });
    expect(telemetry.startDelivery(attemptStart())).toBeUndefined();
    telemetry.dispose();
  });

  it('a span sampled out with a meter: the attempt is still timed', async () => {
    const sdk = telemetrySdk();
    const telemetry = createStreamWorkerTelemetry({
      meterProvider: sdk.meterProvider,
      tracerProvider: new BasicTracerProvider({ sampler: new AlwaysOffSampler() }),
    });
    telemetry.startDelivery(attemptStart())!.end('ack');
    expect((await sdk.points(WORKER_PROCESSING_DURATION)).map((p) => p.attributes)).toEqual([
      { 'respire.worker.name': 'orders', 'respire.worker.outcome': 'ack' },
    ]);
    telemetry.dispose();
    await sdk.shutdown();
  });
});
