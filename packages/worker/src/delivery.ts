import { RespireScopeError, RespireTooManyFieldsError } from '@respire/core-scripts';
import { describeValue, ignoreRejection, type RawEntry } from '@respire/core-scripts/internal';
import type { Completions } from './completion.js';
import type { RunContext } from './context.js';
import { toEntry, type StreamEntry } from './entry.js';
import { safeHook, type DeadLetterReason, type DeliveryOutcome, type DeliveryScope, type StreamWorkerInstrumentation } from './instrumentation.js';
import { exceptionType, safeLog } from './logger.js';
import { MAX_DEAD_LETTER_FIELD_PAIRS, type ResolvedOptions, type StreamHandler, type StreamWorkerScope } from './options.js';

/**
 * The delivery pipeline (seed 002 "Results"): one delivery runs its handler inside its scope, is
 * completed by its result (completion.ts), has its scope disposed after that, and reports telemetry.
 * The handler part and the completion part are separate, so the reader can start the next handler
 * while this one completes: {@link deliver} returns once the handler has returned, and the delivery
 * reports its end to `onFinished`. The path of a handler that returns its result directly allocates
 * no promise: completions reach a delivery by callback (the batch's reply), not by a promise each.
 * Everything user code returns or throws (handler, deserializer, scope, hooks) is read only inside
 * a guard, so no value of it can throw out of here (a revoked Proxy, a throwing getter, ...).
 */

/** Told once when a delivery has finished: completed (or not), scope disposed, telemetry ended. */
export interface FinishedListener {
  finished(): void;
}

/** Counts a read's deliveries still finishing; {@link Countdown.close} gives the promise of the last one. */
export class Countdown implements FinishedListener {
  #left = 0;
  #closed = false;
  #resolve: (() => void) | undefined;

  add(): void {
    this.#left++;
  }

  finished(): void {
    if (--this.#left === 0 && this.#closed) this.#resolve?.();
  }

  /** No delivery is added after this; resolves once every added delivery has finished. */
  close(): Promise<void> {
    this.#closed = true;
    if (this.#left === 0) return Promise.resolve();
    return new Promise<void>((resolve) => (this.#resolve = resolve));
  }
}

/**
 * Runs one delivery up to its handler's return (or to the point where no handler will run). Returns
 * a promise only when it had to wait (a scope being created, a handler that returned a promise).
 * Never throws: a fault (too many fields, a scope failure, a completion failure) faults the run, and
 * the entry stays pending unless its completion committed.
 * @param signal - the handler's AbortSignal, aborted when the shutdown timeout expires.
 */
export function deliver(ctx: RunContext, completions: Completions, raw: RawEntry, signal: AbortSignal, onFinished: FinishedListener): void | Promise<void> {
  const o = ctx.options;
  if (o.deadLetterStream !== undefined && raw.fields.length > 2 * MAX_DEAD_LETTER_FIELD_PAIRS) {
    // Seed 002 "1,024-field limit": fault before the handler; the entry stays pending.
    ctx.newest.release(raw.id);
    onFinished.finished();
    ctx.fault(
      new RespireTooManyFieldsError(
        `StreamWorker: entry ${raw.id} has ${raw.fields.length >> 1} field/value pairs; with deadLetterStream at most ${MAX_DEAD_LETTER_FIELD_PAIRS} are allowed. Resolve it manually.`,
      ),
    );
    return;
  }
  const d = new Delivery(ctx, completions, toEntry(raw.id, raw.fields, raw.deliveryCount), onFinished);
  if (o.deliveryLimit !== undefined && raw.deliveryCount > o.deliveryLimit) {
    // An abandoned final attempt: dead-letter without calling the handler again.
    completions.deadLetter(d, 'delivery-limit', '');
    return;
  }
  if (o.createScope) return d.runInScope(signal);
  return d.run(o.handler!, signal);
}

/** One delivery attempt of one entry to one reader. */
export class Delivery {
  readonly options: ResolvedOptions;
  readonly completions: Completions;
  readonly entry: StreamEntry;
  readonly #ctx: RunContext;
  readonly #onFinished: FinishedListener;
  readonly #telemetry: DeliveryScope | undefined;
  #scope: StreamWorkerScope<unknown> | undefined;
  /** The type of what the handler or deserializer threw, for telemetry (seed 002 outcome `error`). */
  #errorType: string | undefined;

  constructor(ctx: RunContext, completions: Completions, entry: StreamEntry, onFinished: FinishedListener) {
    this.#ctx = ctx;
    this.options = ctx.options;
    this.completions = completions;
    this.entry = entry;
    this.#onFinished = onFinished;
    const hooks = this.options.instrumentation;
    this.#telemetry = hooks === undefined ? undefined : startTelemetry(this, hooks);
  }

  /** Creates the delivery's scope, then runs the handler it resolves. */
  async runInScope(signal: AbortSignal): Promise<void> {
    let handler: StreamHandler<unknown>;
    try {
      ({ scope: this.#scope, handler } = await createScope(this));
    } catch (error) {
      this.failed(error);
      return;
    }
    await this.run(handler, signal);
  }

  /** Calls the handler (after the deserializer) and asks for the completion its result calls for. */
  run(handler: StreamHandler<unknown>, signal: AbortSignal): void | Promise<void> {
    // A delivery whose scope was still being created when the shutdown timeout expired never starts.
    if (this.#ctx.hardAborted) return this.settled('canceled');
    let value: unknown;
    try {
      value = handler(this.options.deserialize ? this.options.deserialize(this.entry) : this.entry, signal);
    } catch (error) {
      return this.#complete(true, error);
    }
    // Reading `then` is user code too: a getter that throws is the handler's failure, as awaiting it would be.
    let then: unknown;
    try {
      then = (value as { then?: unknown } | null | undefined)?.then;
    } catch (error) {
      return this.#complete(true, error);
    }
    if (typeof then !== 'function') return this.#complete(false, value);
    return Promise.resolve(value).then(
      (result) => this.#complete(false, result),
      (error: unknown) => this.#complete(true, error),
    );
  }

  /** The handler's result, as seed 002 "Results" completes it. */
  #complete(threw: boolean, result: unknown): void {
    const o = this.options;
    const c = this.completions;
    // The run aborts handlers' signals only when the shutdown timeout expires, which hardAborted tells.
    if (this.#ctx.hardAborted) {
      // Seed 002 "Shutdown": after the timeout a handler's result is not acknowledged; the entry stays pending.
      safeLog(o.logger, 'warn', 'handler finished after the shutdown timeout; its result is not acknowledged', this.#log());
      return this.settled('canceled');
    }
    if (threw) {
      const type = (this.#errorType = exceptionType(result));
      safeLog(o.logger, 'warn', `stream handler failed; ${this.#failureFate()}`, { ...this.#log(), exceptionType: type });
      return c.fail(this, 'processing-failed', type);
    }
    switch (result) {
      case 'ack':
        return c.acknowledge(this);
      case 'nack':
        return c.fail(this, 'nack', '');
      case 'dead-letter':
        if (o.deadLetterStream !== undefined) return c.deadLetter(this, 'explicit', '');
        safeLog(
          o.logger,
          'warn',
          `handler returned dead-letter but no deadLetterStream is set; counted as a handler failure: ${this.#failureFate()}`,
          this.#log(),
        );
        return c.fail(this, 'processing-failed', '');
      default:
        // The value is described by type (a string quoted, at most 256 characters), never by calling into it.
        safeLog(
          o.logger,
          'warn',
          `handler returned an unknown result (${describeValue(result)}); expected 'ack', 'nack' or 'dead-letter' ` +
            `(StreamWorkerResult); counted as a handler failure: ${this.#failureFate()}`,
          this.#log(),
        );
        return c.fail(this, 'processing-failed', '');
    }
  }

  /** What a failed attempt leads to, for the warning: dead-lettered on the final attempt, else pending. */
  #failureFate(): string {
    const limit = this.options.deliveryLimit;
    if (limit !== undefined && this.entry.deliveryCount >= limit) return `its final attempt (deliveryLimit ${limit}): the entry is dead-lettered`;
    return 'the entry stays pending for recovery';
  }

  /** The completion's outcome arrived (or none was needed): dispose the scope after it, then finish. */
  settled(outcome: DeliveryOutcome, reason?: DeadLetterReason): void {
    if (outcome === 'dead-letter') {
      const o = this.options;
      safeHook(() => o.instrumentation?.deadLettered?.({ telemetryName: o.telemetryName, reason: reason! }));
    }
    if (this.#scope !== undefined) void this.#disposeThenFinish(outcome, undefined);
    else this.#finish(outcome, undefined);
  }

  /** The completion failed (its outcome may be unknown), or the scope could not be created: a fault. */
  failed(error: unknown): void {
    if (this.#scope !== undefined) void this.#disposeThenFinish('error', error);
    else this.#finish('error', error);
  }

  /**
   * Seed 002: the scope is disposed after handling and acknowledgement. A disposal failure is the
   * fault unless a completion fault is already in flight.
   */
  async #disposeThenFinish(outcome: DeliveryOutcome, fault: unknown): Promise<void> {
    try {
      await dispose(this.#scope);
    } catch (error) {
      if (fault === undefined) fault = new RespireScopeError(`StreamWorker: scope disposal failed (${exceptionType(error)})`, { cause: error });
    }
    this.#finish(outcome, fault);
  }

  #finish(outcome: DeliveryOutcome, fault: unknown): void {
    this.#ctx.newest.release(this.entry.id);
    const telemetry = this.#telemetry;
    if (telemetry) {
      try {
        // Seed 002 outcomes: a fault, or a thrown handler or deserializer that left the entry
        // pending, is `error`; the type of what was thrown goes with it (and with the outcome that
        // followed a throw, e.g. `dead-letter` on the final attempt).
        if (fault !== undefined) ignoreRejection(telemetry.end('error', exceptionType(fault)));
        else if (this.#errorType !== undefined) ignoreRejection(telemetry.end(outcome === 'nack' ? 'error' : outcome, this.#errorType));
        else ignoreRejection(telemetry.end(outcome));
      } catch {
        // Hooks never affect message handling (no closure per delivery for safeHook).
      }
    }
    if (fault !== undefined) this.#ctx.fault(fault);
    this.#onFinished.finished();
  }

  #log(): Record<string, unknown> {
    return { entryId: this.entry.id, consumer: this.completions.consumer };
  }
}

/** Creates the delivery's scope and reads its handler once; one that comes back without a handler is disposed and faults. */
async function createScope(d: Delivery): Promise<{ scope: StreamWorkerScope<unknown>; handler: StreamHandler<unknown> }> {
  let scope: StreamWorkerScope<unknown> | undefined;
  let handler: unknown;
  try {
    scope = await d.options.createScope!(d.entry);
    // Everything read from what the factory returned is read inside a guard: it is user code.
    handler = (scope as { handler?: unknown } | null | undefined)?.handler;
  } catch (error) {
    throw new RespireScopeError(`StreamWorker: scope creation failed (${exceptionType(error)})`, { cause: error });
  }
  if (typeof handler === 'function') return { scope: scope!, handler: handler as StreamHandler<unknown> };
  // A scope that came back without a handler is still the caller's to release.
  await dispose(scope).catch(() => {}); // the creation failure is the fault that matters
  throw new RespireScopeError('StreamWorker: scope creation failed (createScope must resolve to { handler })');
}

/** Calls the scope's `dispose` when it has one; a throwing `dispose` getter counts as a failed disposal. */
async function dispose(scope: StreamWorkerScope<unknown> | undefined): Promise<void> {
  const method = (scope as { dispose?: unknown } | null | undefined)?.dispose;
  if (method) await (method as () => unknown).call(scope);
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
    // Seed 002 "Trace context": a field written more than once is not trusted.
    if (found !== undefined) return undefined;
    found = value;
  }
  return found?.toString('latin1');
}

/** Starts the instrumentation's view of this attempt, with the entry's trace context when it has one. */
function startTelemetry(d: Delivery, hooks: StreamWorkerInstrumentation): DeliveryScope | undefined {
  const o = d.options;
  try {
    // The hooks object is user code: even reading a hook is guarded, and a rejection it returns is ignored.
    const start = hooks.startDelivery;
    if (typeof start !== 'function') return undefined;
    const scope = start.call(hooks, {
      telemetryName: o.telemetryName,
      stream: o.stream,
      destination: o.logicalStream,
      group: o.group,
      entryId: d.entry.id,
      deliveryCount: d.entry.deliveryCount,
      traceParent: single(d.entry, o.traceParentField),
      traceState: o.traceParentField === undefined ? undefined : single(d.entry, o.traceStateField),
    });
    ignoreRejection(scope);
    return scope ?? undefined;
  } catch {
    return undefined; // a throwing hook changes nothing
  }
}
