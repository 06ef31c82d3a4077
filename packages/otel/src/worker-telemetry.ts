// StreamWorker's metrics and spans, on @opentelemetry/api: what the worker's instrumentation hooks record.
import {
  SpanKind,
  SpanStatusCode,
  createNoopMeter,
  metrics,
  trace,
  type Attributes,
  type BatchObservableCallback,
  type Histogram,
  type MeterProvider,
  type Span,
  type SpanOptions,
  type TracerProvider,
} from '@opentelemetry/api';
import type { DeadLetterReason, DeliveryOutcome, DeliveryScope, DeliveryStart, StreamWorkerInstrumentation, WorkerInfo } from '@respire/core-scripts';
import { GroupPoller } from './group-gauges.js';
import * as names from './names.js';
import { extractParentContext } from './trace-context.js';

/** Where telemetry goes; the global providers by default. */
export interface TelemetryOptions {
  meterProvider?: MeterProvider;
  tracerProvider?: TracerProvider;
}

/** Worker instrumentation that can be removed again. */
export interface StreamWorkerTelemetry extends StreamWorkerInstrumentation {
  /**
   * Starts one attempt's span and timing; `undefined` when nothing would be recorded of it (no
   * SDK registered, or a span sampled out and no meter), so the worker has no `end` to call.
   */
  startDelivery(start: DeliveryStart): DeliveryScope | undefined;
  deadLettered(event: { readonly telemetryName: string; readonly reason: DeadLetterReason }): void;
  workerStarted(info: WorkerInfo): void;
  workerStopped(info: WorkerInfo): void;
  /** Removes the gauges' callback and stops polling (disposal removes the meter's instruments). */
  dispose(): void;
}

/** Every worker span is a CONSUMER span. */
const CONSUMER_SPAN: SpanOptions = Object.freeze({ kind: SpanKind.CONSUMER });

/** The metric attributes of one worker's attempts, one frozen set per outcome. */
class OutcomeAttributes {
  readonly #telemetryName: string;
  readonly #byOutcome = new Map<string, Attributes>();

  constructor(telemetryName: string) {
    this.#telemetryName = telemetryName;
  }

  of(outcome: DeliveryOutcome): Attributes {
    let attributes = this.#byOutcome.get(outcome);
    if (attributes === undefined) {
      attributes = Object.freeze({ [names.ATTR_WORKER_NAME]: this.#telemetryName, [names.ATTR_WORKER_OUTCOME]: outcome });
      this.#byOutcome.set(outcome, attributes);
    }
    return attributes;
  }
}

/** One delivery attempt: its span and its start time, ended once (a class: no closure per attempt). */
class Attempt implements DeliveryScope {
  readonly #span: Span | undefined;
  readonly #duration: Histogram | undefined;
  readonly #attributes: OutcomeAttributes | undefined;
  readonly #started: number;
  #ended = false;

  /**
   * @param span - the attempt's span when it records (else nothing is kept of it).
   * @param duration - the histogram, when a meter records it (else the attempt is not timed).
   */
  constructor(span: Span | undefined, duration: Histogram | undefined, attributes: OutcomeAttributes | undefined) {
    this.#span = span;
    this.#duration = duration;
    this.#attributes = attributes;
    this.#started = duration === undefined ? 0 : performance.now();
  }

  end(outcome: DeliveryOutcome, errorType?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#duration !== undefined) {
      try {
        this.#duration.record((performance.now() - this.#started) / 1000, this.#attributes!.of(outcome));
      } catch {
        // A failing exporter never changes an outcome.
      }
    }
    const span = this.#span;
    if (span === undefined) return;
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
  }
}

/**
 * Whether a span can record yet. The API's global tracer provider is a proxy: until an SDK is
 * registered it has no delegate, and every span it starts is a no-op one, so there is no parent to
 * parse and no span to start. Once a delegate appears (an SDK registered after this telemetry was
 * created), spans are started for every attempt and the proxy is not asked again. Any other
 * provider (an SDK passed in) can record from the start.
 */
function tracingReady(provider: TracerProvider): () => boolean {
  const proxy = provider as { getDelegateTracer?: (name: string) => unknown };
  if (typeof proxy.getDelegateTracer !== 'function') return () => true;
  let ready = false;
  return () => ready || (ready = proxy.getDelegateTracer!(names.INSTRUMENTATION_NAME) !== undefined);
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

/** Longest `error.type` kept, in characters (as a worker dead-letter record's `_respire.exception_type`). */
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
 * Metrics and tracing for `StreamWorker` (README "Instruments" and "Spans"; pass it as the worker's `instrumentation`).
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
  const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
  const tracer = tracerProvider.getTracer(names.INSTRUMENTATION_NAME);
  const tracing = tracingReady(tracerProvider);
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

  // With no MeterProvider registered (or a no-op one passed) the histogram is the API's no-op:
  // then an attempt is not timed at all, and one with no span that records has no scope.
  const timed = duration !== createNoopMeter().createHistogram(names.WORKER_PROCESSING_DURATION) ? duration : undefined;
  // One frozen attribute set per (worker, outcome), looked up per worker once an attempt starts:
  // recording allocates nothing on the hot path.
  const outcomeTables = new Map<string, OutcomeAttributes>();
  const outcomeAttributes = (telemetryName: string): OutcomeAttributes => {
    let table = outcomeTables.get(telemetryName);
    if (table === undefined) outcomeTables.set(telemetryName, (table = new OutcomeAttributes(telemetryName)));
    return table;
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
    startDelivery(start: DeliveryStart): DeliveryScope | undefined {
      // No SDK yet: no span could record, so the parent is not even parsed.
      if (!tracing()) return timed === undefined ? undefined : new Attempt(undefined, timed, outcomeAttributes(start.telemetryName));
      const span = tracer.startSpan(names.WORKER_SPAN_NAME, CONSUMER_SPAN, extractParentContext(start.traceParent, start.traceState));
      // A span sampled out keeps nothing: only the duration may still be recorded.
      const recording = span.isRecording() ? span : undefined;
      if (recording === undefined && timed === undefined) return undefined;
      // Attributes only for a span that records.
      recording?.setAttributes(spanAttributes(start));
      return new Attempt(recording, timed, timed && outcomeAttributes(start.telemetryName));
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
