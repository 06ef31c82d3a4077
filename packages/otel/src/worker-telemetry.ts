import {
  SpanKind,
  SpanStatusCode,
  metrics,
  trace,
  type Attributes,
  type BatchObservableCallback,
  type MeterProvider,
  type TracerProvider,
} from '@opentelemetry/api';
import { GroupPoller } from './group-gauges.js';
import * as names from './names.js';
import type { DeliveryOutcome, DeliveryScope, DeliveryStart, StreamWorkerInstrumentation, WorkerInfo } from '@respire/core-scripts/instrumentation';
import { extractParentContext } from './trace-context.js';

/** Where telemetry goes; the global providers by default. */
export interface TelemetryOptions {
  meterProvider?: MeterProvider;
  tracerProvider?: TracerProvider;
}

/** Worker instrumentation that can be removed again. */
export interface StreamWorkerTelemetry extends StreamWorkerInstrumentation {
  /** Removes the gauges' callback and stops polling (seed 002: disposal removes the meter's instruments). */
  dispose(): void;
}

/** The span attributes of one delivery attempt (messaging semantic conventions and ours). */
function spanAttributes(start: DeliveryStart): Attributes {
  return {
    [names.ATTR_MESSAGING_SYSTEM]: names.MESSAGING_SYSTEM,
    [names.ATTR_MESSAGING_OPERATION_NAME]: 'process',
    [names.ATTR_MESSAGING_OPERATION_TYPE]: 'process',
    [names.ATTR_MESSAGING_DESTINATION_NAME]: destinationName(start.destination),
    [names.ATTR_MESSAGING_CONSUMER_GROUP_NAME]: start.group,
    [names.ATTR_MESSAGING_MESSAGE_ID]: start.entryId,
    [names.ATTR_WORKER_NAME]: start.telemetryName,
    [names.ATTR_DELIVERY_COUNT]: start.deliveryCount,
  };
}

/** Longest `error.type` kept, in characters (as the seed's `_respire.exception_type`). */
const MAX_ERROR_TYPE_CHARS = 256;

/**
 * The span's `error.type`: the exception type the worker passed, or `_OTHER` (the semantic
 * conventions' fallback) for outcome `error` without one; undefined when nothing failed.
 */
function errorTypeOf(outcome: DeliveryOutcome, errorType: unknown): string | undefined {
  if (typeof errorType === 'string' && errorType !== '') return errorType.slice(0, MAX_ERROR_TYPE_CHARS);
  return outcome === 'error' ? '_OTHER' : undefined;
}

/** `{orders}:events` → `orders:events`: the configured stream name without its hash-tag braces. */
function destinationName(stream: string): string {
  return stream.replace(/[{}]/g, '');
}

/**
 * Metrics and tracing of seed 002 for `StreamWorker` (pass it as the worker's `instrumentation`).
 *
 * - `respire.stream.worker.processing.duration` (histogram, s): each delivery attempt, tagged
 *   `respire.worker.name` and `respire.worker.outcome`.
 * - `respire.stream.worker.group.lag` / `.pending` (observable gauges, `{message}`) from XINFO
 *   GROUPS, polled only while a reader collects, never overlapping; a worker's first collection
 *   waits for its first query (at most `metricsPollTimeoutMs`), so it already has the gauges.
 * - `respire.stream.worker.dead_letters` (counter, `{message}`): confirmed appends, tagged
 *   `respire.worker.name` and `respire.worker.reason`.
 * - A CONSUMER span "stream process" per attempt, child of the entry's W3C parent when valid,
 *   else a new root (never the host's active span). When the worker ends an attempt with the
 *   type of what was thrown (`end(outcome, errorType)`: a handler or deserializer that threw has
 *   outcome `error`), the span's status is ERROR and `error.type` is that type, never the message;
 *   outcome `error` without a type gets `error.type` `_OTHER`. Metrics carry the outcome only.
 *
 * Nothing here can change a delivery's outcome: the worker swallows anything a hook throws, and
 * these hooks catch their own failures too.
 */
export function createStreamWorkerTelemetry(options: TelemetryOptions = {}): StreamWorkerTelemetry {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(names.INSTRUMENTATION_NAME);
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(names.INSTRUMENTATION_NAME);
  const duration = meter.createHistogram(names.WORKER_PROCESSING_DURATION, {
    unit: 's',
    description: 'Each stream worker delivery attempt, including deserialization, scope lifetime and fenced completion.',
  });
  const deadLetters = meter.createCounter(names.WORKER_DEAD_LETTERS, {
    unit: '{message}',
    description: 'Confirmed atomic dead-letter appends.',
  });
  const lag = meter.createObservableGauge(names.WORKER_GROUP_LAG, {
    unit: '{message}',
    description: 'Latest known undelivered group count from XINFO GROUPS.',
  });
  const pending = meter.createObservableGauge(names.WORKER_GROUP_PENDING, {
    unit: '{message}',
    description: 'Latest group pending count from XINFO GROUPS.',
  });

  // One frozen attribute set per (worker, outcome): recording allocates nothing on the hot path.
  const attributeCache = new Map<string, Attributes>();
  const outcomeAttributes = (telemetryName: string, outcome: DeliveryOutcome): Attributes => {
    const key = `${telemetryName}\u0000${outcome}`;
    let attributes = attributeCache.get(key);
    if (!attributes) {
      attributes = Object.freeze({ [names.ATTR_WORKER_NAME]: telemetryName, [names.ATTR_WORKER_OUTCOME]: outcome });
      attributeCache.set(key, attributes);
    }
    return attributes;
  };

  const pollers = new Map<WorkerInfo, GroupPoller>();
  // Asynchronous: the SDK waits for it, so a worker's first collection waits (at most its
  // metricsPollTimeoutMs) for the first XINFO GROUPS instead of exporting no gauges.
  const observeGroups: BatchObservableCallback = async (result) => {
    const polled = await Promise.all([...pollers.values()].map(async (poller) => ({ poller, sample: await poller.observe() })));
    for (const { poller, sample } of polled) {
      if (!sample) continue;
      const attributes = { [names.ATTR_WORKER_NAME]: poller.source.telemetryName };
      if (sample.lag !== null) result.observe(lag, sample.lag, attributes);
      result.observe(pending, sample.pending, attributes);
    }
  };
  meter.addBatchObservableCallback(observeGroups, [lag, pending]);

  return {
    startDelivery(start: DeliveryStart): DeliveryScope {
      const started = performance.now();
      const parent = extractParentContext(start.traceParent, start.traceState);
      const span = tracer.startSpan(names.WORKER_SPAN_NAME, { kind: SpanKind.CONSUMER }, parent);
      // Attributes only for a span that records: with no SDK this path stays allocation-light.
      if (span.isRecording()) span.setAttributes(spanAttributes(start));
      let ended = false;
      return {
        end(outcome: DeliveryOutcome, errorType?: string) {
          if (ended) return;
          ended = true;
          try {
            duration.record((performance.now() - started) / 1000, outcomeAttributes(start.telemetryName, outcome));
          } catch {
            // A failing exporter never changes an outcome.
          }
          try {
            span.setAttribute(names.ATTR_WORKER_OUTCOME, outcome);
            const failure = errorTypeOf(outcome, errorType);
            if (failure !== undefined) {
              span.setStatus({ code: SpanStatusCode.ERROR });
              span.setAttribute(names.ATTR_ERROR_TYPE, failure);
            }
            span.end();
          } catch {
            // Likewise.
          }
        },
      };
    },
    deadLettered(event) {
      deadLetters.add(1, { [names.ATTR_WORKER_NAME]: event.telemetryName, [names.ATTR_WORKER_REASON]: event.reason });
    },
    workerStarted(info: WorkerInfo) {
      pollers.get(info)?.stop();
      pollers.set(info, new GroupPoller(info));
    },
    workerStopped(info: WorkerInfo) {
      pollers.get(info)?.stop();
      pollers.delete(info);
    },
    dispose() {
      meter.removeBatchObservableCallback(observeGroups, [lag, pending]);
      for (const poller of pollers.values()) poller.stop();
      pollers.clear();
    },
  };
}
