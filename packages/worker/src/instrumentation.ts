// The worker's side of the instrumentation seam: hooks called guarded, attempts started and ended.
import type { DeliveryOutcome, DeliveryScope, StreamWorkerInstrumentation } from '@respire/core-scripts';
import { ignoreRejection } from '@respire/core-scripts/internal';
import type { StreamEntry } from './entry.js';
import { exceptionType } from './logger.js';

/**
 * How the worker calls its instrumentation hooks (the seam's types are declared once in
 * `@respire/core-scripts`; `@respire/otel` implements them). With none configured the worker does
 * no extra work. Hooks never affect message handling: anything they throw, return or reject with
 * is swallowed, and even reading a hook is guarded.
 */

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
  const fields = entry.fields;
  for (let i = 0; i < fields.length; i++) {
    const [field, value] = fields[i]!;
    if (field.length !== bytes.length || !field.equals(bytes)) continue;
    // README "Instrumentation seam": a field written more than once is not trusted (a new root).
    if (found !== undefined) return undefined;
    found = value;
  }
  return found?.toString('latin1');
}
