import { RespireScopeError, RespireTooManyFieldsError } from '@respire/core-scripts';
import type { RawEntry } from '@respire/core-scripts/internal';
import { acknowledge, deadLetter, fail, type Delivery } from './completion.js';
import type { RunContext } from './context.js';
import { allValues, toEntry, type StreamEntry } from './entry.js';
import { safeHook, type DeliveryOutcome, type DeliveryScope } from './instrumentation.js';
import { exceptionType, safeLog } from './logger.js';
import { MAX_DEAD_LETTER_FIELD_PAIRS, type StreamHandler, type StreamWorkerScope } from './options.js';

/**
 * The delivery pipeline (seed 002 "Results"): one delivery runs its handler inside its scope, is
 * completed by its result (completion.ts), has its scope disposed, and reports telemetry.
 */

/**
 * Runs one delivery. `handled` is called as soon as the handler has returned (or when no handler
 * will run), so the reader can start the next handler while this completion is in flight.
 * @throws {RespireError} a fault: too many fields, a scope failure, or a completion failure.
 */
export async function deliver(ctx: RunContext, consumer: string, raw: RawEntry, handled: () => void): Promise<void> {
  const o = ctx.options;
  const entry = toEntry(raw.id, raw.fields, raw.deliveryCount);
  if (o.deadLetterStream !== undefined && entry.fields.length > MAX_DEAD_LETTER_FIELD_PAIRS) {
    // Seed 002 "1,024-field limit": fault before the handler; the entry stays pending.
    throw new RespireTooManyFieldsError(
      `StreamWorker: entry ${entry.id} has ${entry.fields.length} field/value pairs; with deadLetterStream at most ${MAX_DEAD_LETTER_FIELD_PAIRS} are allowed. Resolve it manually.`,
    );
  }
  const d: Delivery = { options: o, consumer, entry };
  const scope = startTelemetry(d);
  let outcome: DeliveryOutcome = 'error';
  try {
    if (o.deliveryLimit !== undefined && entry.deliveryCount > o.deliveryLimit) {
      // An abandoned final attempt: dead-letter without calling the handler again.
      outcome = await deadLetter(d, 'delivery-limit', '');
      return;
    }
    outcome = await handleInScope(ctx, d, handled);
  } finally {
    handled();
    safeHook(() => scope?.end(outcome));
  }
}

/** Creates the delivery's scope (if any), handles it, disposes the scope after completion. */
async function handleInScope(ctx: RunContext, d: Delivery, handled: () => void): Promise<DeliveryOutcome> {
  const o = d.options;
  let scope: StreamWorkerScope<unknown> | undefined;
  let handler: StreamHandler<unknown>;
  if (o.createScope) {
    // Everything read from what the factory returned is read inside a guard: it is user code.
    let found: unknown;
    try {
      scope = await o.createScope(d.entry);
      found = (scope as { handler?: unknown } | null | undefined)?.handler;
    } catch (error) {
      throw new RespireScopeError(`StreamWorker: scope creation failed (${exceptionType(error)})`, { cause: error });
    }
    if (typeof found !== 'function') {
      // A scope that came back without a handler is still the caller's to release.
      await dispose(scope).catch(() => {}); // the creation failure is the fault that matters
      throw new RespireScopeError('StreamWorker: scope creation failed (createScope must resolve to { handler })');
    }
    handler = found as StreamHandler<unknown>;
  } else {
    handler = o.handler!;
  }
  let settled: { outcome: DeliveryOutcome } | { error: unknown };
  try {
    settled = { outcome: await invoke(ctx, d, handler, handled) };
  } catch (error) {
    settled = { error };
  }
  try {
    await dispose(scope);
  } catch (error) {
    // A completion fault already in flight wins; otherwise the disposal failure is the fault.
    if ('outcome' in settled) throw new RespireScopeError(`StreamWorker: scope disposal failed (${exceptionType(error)})`, { cause: error });
  }
  if ('error' in settled) throw settled.error;
  return settled.outcome;
}

/** Calls the scope's `dispose` when it has one; a throwing `dispose` getter counts as a failed disposal. */
async function dispose(scope: StreamWorkerScope<unknown> | undefined): Promise<void> {
  const method = (scope as { dispose?: unknown } | null | undefined)?.dispose;
  if (method) await (method as () => unknown).call(scope);
}

type Attempt = { kind: 'result'; value: unknown } | { kind: 'threw'; error: unknown };

/** Calls the handler (after the deserializer) and completes the delivery by what it returned. */
async function invoke(ctx: RunContext, d: Delivery, handler: StreamHandler<unknown>, handled: () => void): Promise<DeliveryOutcome> {
  const o = d.options;
  const log = { entryId: d.entry.id, consumer: d.consumer };
  // A delivery whose scope was still being created when the shutdown timeout expired never starts.
  if (ctx.hardAborted) return 'canceled';
  const controller = new AbortController();
  ctx.inflight.add(controller);
  let attempt: Attempt;
  try {
    const message = o.deserialize ? o.deserialize(d.entry) : d.entry;
    attempt = { kind: 'result', value: await handler(message, controller.signal) };
  } catch (error) {
    attempt = { kind: 'threw', error };
  } finally {
    ctx.inflight.delete(controller);
    handled();
  }
  if (controller.signal.aborted || ctx.hardAborted) {
    // Seed 002 "Shutdown": after the timeout a handler's result is not acknowledged; the entry stays pending.
    safeLog(o.logger, 'warn', 'handler finished after the shutdown timeout; its result is not acknowledged', log);
    return 'canceled';
  }
  if (attempt.kind === 'threw') {
    const type = exceptionType(attempt.error);
    safeLog(o.logger, 'warn', 'stream handler failed; the entry stays pending', { ...log, exceptionType: type });
    return fail(d, 'processing-failed', type);
  }
  switch (attempt.value) {
    case 'ack':
      return acknowledge(d);
    case 'nack':
      return fail(d, 'nack', '');
    case 'dead-letter':
      if (o.deadLetterStream !== undefined) return deadLetter(d, 'explicit', '');
      safeLog(o.logger, 'warn', 'handler returned dead-letter but no deadLetterStream is set; counted as a handler failure', log);
      return fail(d, 'processing-failed', '');
    default:
      safeLog(o.logger, 'warn', 'handler returned an unknown result; counted as a handler failure', log);
      return fail(d, 'processing-failed', '');
  }
}

/** Starts the instrumentation's view of this attempt, with the entry's trace context when it has one. */
function startTelemetry(d: Delivery): DeliveryScope | undefined {
  const o = d.options;
  const hooks = o.instrumentation;
  if (hooks === undefined) return undefined;
  // Seed 002 "Trace context": a field written more than once is not trusted.
  const single = (entry: StreamEntry, field: string | undefined): string | undefined => {
    if (field === undefined) return undefined;
    const values = allValues(entry, field);
    return values.length === 1 ? values[0]!.toString('latin1') : undefined;
  };
  return (
    safeHook(() => {
      // The hooks object is user code: even reading a hook is guarded.
      const start = hooks.startDelivery;
      if (typeof start !== 'function') return undefined;
      return start.call(hooks, {
        telemetryName: o.telemetryName,
        stream: o.stream,
        destination: o.logicalStream,
        group: o.group,
        entryId: d.entry.id,
        deliveryCount: d.entry.deliveryCount,
        traceParent: single(d.entry, o.traceParentField),
        traceState: o.traceParentField === undefined ? undefined : single(d.entry, o.traceStateField),
      });
    }) ?? undefined
  );
}
