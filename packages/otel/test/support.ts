// In-memory metrics and spans for assertions.
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type {} from '@respire/harness/global-setup';

/**
 * In-memory metrics and spans for assertions. With DELTA temporality a gauge series that is no
 * longer observed disappears from the next collection (CUMULATIVE storage keeps its last value).
 */
export function telemetrySdk(temporality: AggregationTemporality = AggregationTemporality.CUMULATIVE) {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const exporter = new InMemoryMetricExporter(temporality);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    spans,
    tracerProvider,
    meterProvider,
    reader,
    /** Collects once and returns the points of one instrument: attributes and value. */
    async points(name: string): Promise<{ attributes: Record<string, unknown>; value: unknown; unit: string }[]> {
      const { resourceMetrics } = await reader.collect();
      return pointsOf(resourceMetrics, name);
    },
    async shutdown() {
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
    },
  };
}

export function pointsOf(resourceMetrics: ResourceMetrics, name: string) {
  const out: { attributes: Record<string, unknown>; value: unknown; unit: string }[] = [];
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== name) continue;
      for (const point of metric.dataPoints)
        out.push({ attributes: point.attributes as Record<string, unknown>, value: point.value, unit: metric.descriptor.unit });
    }
  }
  return out;
}

export { eventually, sleep } from '@respire/harness';
