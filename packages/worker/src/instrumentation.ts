import { ignoreRejection } from '@respire/core-scripts/internal';
import type { StreamEntry } from './entry.js';
import { exceptionType } from './logger.js';

/**
 * The worker's instrumentation seam (DESIGN.md decision 9): dependency-free hooks that
 * `@respire/otel` implements for the metrics and tracing of seed 002. With none configured the
 * worker does no extra work. Hooks never affect message handling: anything they throw is swallowed.
 */

/**
 * How one delivery attempt ended (seed 002 `respire.worker.outcome`): `ack`, `nack` (left pending or
 * released), `dead-letter` (confirmed append), `deleted` (source body gone; acknowledged without a
 * record), `stale` (fenced out: recovered by another owner or attempt), `canceled` (aborted at
 * shutdown, not completed), `error` (a fault: scope, completion or transport failure).
 */
export type DeliveryOutcome = 'ack' | 'nack' | 'dead-letter' | 'deleted' | 'stale' | 'canceled' | 'error';

/** The reason of a dead-letter record (seed 002 `_respire.reason`). */
export type DeadLetterReason = 'explicit' | 'nack' | 'processing-failed' | 'delivery-limit';

/** A delivery attempt as it starts, before deserialization. Carries no payload. */
export interface DeliveryStart {
  /** The worker's `telemetryName`. */
  readonly telemetryName: string;
  /** The resolved stream key and group (for spans only; never metric dimensions). */
  readonly stream: string;
  /** The stream as configured, without the key prefix (the messaging destination name). */
  readonly destination: string;
  readonly group: string;
  readonly entryId: string;
  readonly deliveryCount: number;
  /**
   * The raw value of the `traceParentField` when the entry has exactly one such field (seed 002
   * "Trace context": a duplicate parent starts a new root, so it is passed as `undefined`).
   * Validation of the W3C format is the instrumentation's job. `undefined` when disabled.
   */
  readonly traceParent: string | undefined;
  /** The raw value of the `traceStateField` when present exactly once; `undefined` otherwise or when disabled. */
  readonly traceState: string | undefined;
}

/** A live delivery attempt: `end` is called once when it settles (including fenced completion). */
export interface DeliveryScope {
  /**
   * @param outcome - how the attempt ended.
   * @param errorType - the type of what was thrown when the attempt failed because something threw
   *   (the handler, the deserializer, the scope, a completion): its class name as the worker logs
   *   it, never its message. With outcome `error` for a thrown handler or deserializer failure that
   *   left the entry pending (seed 002 lists `error` among the outcomes); with the outcome that
   *   followed when it did (`dead-letter` for a failure on the final attempt). `@respire/otel`
   *   marks the span ERROR with `error.type` set to it (`_OTHER` for outcome `error` without it).
   */
  end(outcome: DeliveryOutcome, errorType?: string): void;
}

/** What a worker exposes to gauges while it runs. */
export interface WorkerInfo {
  readonly telemetryName: string;
  readonly stream: string;
  readonly group: string;
  readonly metricsPollIntervalMs: number;
  readonly metricsPollTimeoutMs: number;
  /**
   * Runs XINFO GROUPS on the stream and returns this group's `lag` (`null` when Redis reports it
   * unknown or is older than 7.0) and `pending`, or `null` when the group or stream is missing.
   */
  queryGroup(): Promise<{ lag: number | null; pending: number } | null>;
}

/** Receives events from a {@link StreamWorker}. Every member is optional. */
export interface StreamWorkerInstrumentation {
  /** A delivery attempt starts (also for delivery-limit completion without a handler call). */
  startDelivery?(start: DeliveryStart): DeliveryScope | undefined | void;
  /** A dead-letter append was confirmed (not for deleted source bodies or lost replies). */
  deadLettered?(event: { readonly telemetryName: string; readonly reason: DeadLetterReason }): void;
  /** The worker started; gauges may begin polling `info.queryGroup`. */
  workerStarted?(info: WorkerInfo): void;
  /** The worker stopped (or faulted); gauges must clear their samples. */
  workerStopped?(info: WorkerInfo): void;
}

/** @internal Calls a hook, swallowing whatever it throws and any rejection it returns. */
export function safeHook<R>(call: () => R): R | undefined {
  try {
    const result = call();
    ignoreRejection(result);
    return result;
  } catch {
    return undefined;
  }
}

/** What {@link startDeliveryTelemetry} reads of the worker's options. */
interface TelemetrySettings {
  readonly instrumentation: StreamWorkerInstrumentation | undefined;
  readonly telemetryName: string;
  readonly stream: string;
  readonly logicalStream: string;
  readonly group: string;
  readonly traceParentField: string | undefined;
  readonly traceStateField: string | undefined;
}

/** Starts the instrumentation's view of one attempt, with the entry's trace context when it has one. */
export function startDeliveryTelemetry(o: TelemetrySettings, entry: StreamEntry): DeliveryScope | undefined {
  try {
    // The hooks object is user code: even reading a hook is guarded, and a rejection it returns is ignored.
    const hooks = o.instrumentation!;
    const start = hooks.startDelivery;
    if (typeof start !== 'function') return undefined;
    const scope = start.call(hooks, {
      telemetryName: o.telemetryName,
      stream: o.stream,
      destination: o.logicalStream,
      group: o.group,
      entryId: entry.id,
      deliveryCount: entry.deliveryCount,
      traceParent: single(entry, o.traceParentField),
      traceState: o.traceParentField === undefined ? undefined : single(entry, o.traceStateField),
    });
    ignoreRejection(scope);
    return scope ?? undefined;
  } catch {
    return undefined; // a throwing hook changes nothing
  }
}

/**
 * Ends an attempt's telemetry. A fault, or a thrown handler or deserializer that left the entry
 * pending, is outcome `error`; the type of what was thrown goes with it (and with the outcome
 * that followed a throw, e.g. `dead-letter` on the final attempt).
 */
export function endDeliveryTelemetry(scope: DeliveryScope, outcome: DeliveryOutcome, thrownType: string | undefined, fault: unknown): void {
  try {
    if (fault !== undefined) ignoreRejection(scope.end('error', exceptionType(fault)));
    else if (thrownType !== undefined) ignoreRejection(scope.end(outcome === 'nack' ? 'error' : outcome, thrownType));
    else ignoreRejection(scope.end(outcome));
  } catch {
    // Hooks never affect message handling (no closure per delivery for safeHook).
  }
}

/** Field names as bytes, compared with the entry's field names without decoding them (a few names per process). */
const fieldNames = new Map<string, Buffer>();

/** The value of the one field named `name`, as latin1 text; `undefined` when absent or repeated (or `name` is). */
function single(entry: StreamEntry, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  let bytes = fieldNames.get(name);
  if (bytes === undefined) fieldNames.set(name, (bytes = Buffer.from(name)));
  let found: Buffer | undefined;
  for (const [field, value] of entry.fields) {
    if (!field.equals(bytes)) continue;
    // README "Instrumentation seam": a field written more than once is not trusted (a new root).
    if (found !== undefined) return undefined;
    found = value;
  }
  return found?.toString('latin1');
}
