// One delivery attempt: runs the user's scope, deserializer and handler, and decides the completion its result calls for.
import { RespireTooManyFieldsError, type DeadLetterReason, type DeliveryScope } from '@respire/core-scripts';
import { describeValue, type RawEntry } from '@respire/core-scripts/internal';
import type { CompletionAction, CompletionRequest } from './completion.js';
import { toEntry, type StreamEntry } from './entry.js';
import { startDeliveryTelemetry } from './instrumentation.js';
import { exceptionType, safeLog } from './logger.js';
import { MAX_DEAD_LETTER_FIELD_PAIRS, type ResolvedOptions, type StreamHandler, type StreamWorkerScope } from './options.js';
import { createScope } from './scope.js';

/**
 * The first half of the pipeline (README "Results"): a reader hands an entry here, the handler runs,
 * and the delivery comes back holding its decision — a completion to send (`action`, with the
 * dead-letter `reason` and the thrown `exceptionType`), or none (`canceled`, or a `fault`). The
 * reader passes the decision to its completions (completion.ts) and settles the attempt once
 * the batch's reply gives its outcome; nothing here sends a command or knows of the reader.
 *
 * {@link deliver} returns the delivery itself when the handler returned its result directly (no
 * promise is allocated on that path), and a promise of it only when it had to wait (a scope being
 * created, a handler that returned a promise). Everything user code returns or throws (handler,
 * deserializer, scope) is read only inside a guard, so no value of it can throw out of here (a
 * revoked Proxy, a throwing getter, ...).
 */

/** Told once when a delivery has finished: completed (or not), scope disposed, telemetry ended. */
export interface FinishedListener {
  finished(): void;
}

/** What a run shares with its deliveries: its options, and whether the shutdown timeout has expired. */
export interface DeliveryContext {
  readonly options: ResolvedOptions;
  /** True once the shutdown timeout expired: handler results are no longer completed. */
  readonly hardAborted: boolean;
}

/** One delivery attempt of one entry to one reader, and the completion it decided on. */
export class Delivery implements CompletionRequest {
  readonly id: string;
  readonly deliveryCount: number;
  readonly entry: StreamEntry;
  /** The reader's count of its read's unfinished deliveries. */
  readonly finishing: FinishedListener;
  /** The instrumentation's view of this attempt, when there is one. */
  telemetry: DeliveryScope | undefined;
  /** The per-delivery scope from `createScope`, disposed once the attempt is settled. */
  scope: StreamWorkerScope<unknown> | undefined;
  /** The completion to send; `undefined` when none is (the attempt was `canceled` or faulted). */
  action: CompletionAction | undefined;
  /** The dead-letter record's reason, with `action` 'dead-letter'. */
  reason: DeadLetterReason | undefined;
  /** The type of what the handler or deserializer threw (its class name, never its message). */
  exceptionType: string | undefined;
  /** Why no completion is sent: a fault (scope creation, too many fields) stops the run. */
  fault: unknown;

  constructor(raw: RawEntry, finishing: FinishedListener) {
    this.id = raw.id;
    this.deliveryCount = raw.deliveryCount;
    this.entry = toEntry(raw.id, raw.fields, raw.deliveryCount);
    this.finishing = finishing;
  }
}

/**
 * Runs one delivery up to its handler's return (or to the point where no handler will run) and
 * returns it with its decision; a promise of it only when it had to wait. Never throws.
 * @param consumer - the reader's consumer name, for warnings.
 * @param signal - the handler's AbortSignal, aborted when the shutdown timeout expires.
 */
export function deliver(ctx: DeliveryContext, raw: RawEntry, consumer: string, signal: AbortSignal, finishing: FinishedListener): Delivery | Promise<Delivery> {
  const o = ctx.options;
  const d = new Delivery(raw, finishing);
  if (o.deadLetterStream !== undefined && raw.fields.length > 2 * MAX_DEAD_LETTER_FIELD_PAIRS) {
    // README "Delivery limits and dead letters": fault before the handler (no attempt is reported); the entry stays pending.
    d.fault = new RespireTooManyFieldsError(
      `StreamWorker: entry ${raw.id} has ${raw.fields.length >> 1} field/value pairs; with deadLetterStream at most ${MAX_DEAD_LETTER_FIELD_PAIRS} are allowed. Resolve it manually.`,
    );
    return d;
  }
  if (o.instrumentation !== undefined) d.telemetry = startDeliveryTelemetry(o, d.entry);
  if (o.deliveryLimit !== undefined && raw.deliveryCount > o.deliveryLimit) {
    // An abandoned final attempt: dead-letter without calling the handler again.
    return complete(d, 'dead-letter', 'delivery-limit');
  }
  if (o.createScope) return handleInScope(ctx, d, consumer, signal);
  return handle(ctx, d, consumer, o.handler!, signal);
}

/** Creates the delivery's scope, then runs the handler it resolves. */
async function handleInScope(ctx: DeliveryContext, d: Delivery, consumer: string, signal: AbortSignal): Promise<Delivery> {
  let handler: StreamHandler<unknown>;
  try {
    ({ scope: d.scope, handler } = await createScope(ctx.options.createScope!, d.entry));
  } catch (error) {
    d.fault = error;
    return d;
  }
  return handle(ctx, d, consumer, handler, signal);
}

/** Calls the handler (after the deserializer) and decides the completion its result calls for. */
function handle(ctx: DeliveryContext, d: Delivery, consumer: string, handler: StreamHandler<unknown>, signal: AbortSignal): Delivery | Promise<Delivery> {
  // A delivery whose scope was still being created when the shutdown timeout expired never starts.
  if (ctx.hardAborted) return d;
  const o = ctx.options;
  let value: unknown;
  try {
    value = handler(o.deserialize ? o.deserialize(d.entry) : d.entry, signal);
  } catch (error) {
    return decide(ctx, d, consumer, true, error);
  }
  // Reading `then` is user code too: a getter that throws is the handler's failure, as awaiting it would be.
  let then: unknown;
  try {
    then = (value as { then?: unknown } | null | undefined)?.then;
  } catch (error) {
    return decide(ctx, d, consumer, true, error);
  }
  if (typeof then !== 'function') return decide(ctx, d, consumer, false, value);
  return Promise.resolve(value).then(
    (result) => decide(ctx, d, consumer, false, result),
    (error: unknown) => decide(ctx, d, consumer, true, error),
  );
}

/** The handler's result (or what it threw), decided as README "Results" says. */
function decide(ctx: DeliveryContext, d: Delivery, consumer: string, threw: boolean, result: unknown): Delivery {
  const o = ctx.options;
  // The run aborts handlers' signals only when the shutdown timeout expires, which hardAborted tells.
  if (ctx.hardAborted) {
    // After the shutdown timeout a handler's result is not acknowledged; the entry stays pending.
    safeLog(o.logger, 'warn', 'handler finished after the shutdown timeout; its result is not acknowledged', logContext(d, consumer));
    return d;
  }
  if (threw) {
    const type = (d.exceptionType = exceptionType(result));
    safeLog(o.logger, 'warn', `stream handler failed; ${failureFate(o, d)}`, { ...logContext(d, consumer), exceptionType: type });
    return failed(o, d, 'processing-failed');
  }
  switch (result) {
    case 'ack':
      return complete(d, 'ack', undefined);
    case 'nack':
      return failed(o, d, 'nack');
    case 'dead-letter':
      if (o.deadLetterStream !== undefined) return complete(d, 'dead-letter', 'explicit');
      safeLog(
        o.logger,
        'warn',
        `handler returned dead-letter but no deadLetterStream is set; counted as a handler failure: ${failureFate(o, d)}`,
        logContext(d, consumer),
      );
      return failed(o, d, 'processing-failed');
    default:
      // The value is described by type (a string quoted, at most 256 characters), never by calling into it.
      safeLog(
        o.logger,
        'warn',
        `handler returned an unknown result (${describeValue(result)}); expected 'ack', 'nack' or 'dead-letter' ` +
          `(StreamWorkerResult); counted as a handler failure: ${failureFate(o, d)}`,
        logContext(d, consumer),
      );
      return failed(o, d, 'processing-failed');
  }
}

/**
 * A failed attempt: dead-lettered on the final attempt, else released (XNACK FAIL on Redis 8.8+
 * once its idle time has elapsed) or left pending for idle recovery.
 */
function failed(o: ResolvedOptions, d: Delivery, reason: 'nack' | 'processing-failed'): Delivery {
  return isFinalAttempt(o, d) ? complete(d, 'dead-letter', reason) : complete(d, 'release', undefined);
}

function isFinalAttempt(o: ResolvedOptions, d: Delivery): boolean {
  return o.deliveryLimit !== undefined && d.deliveryCount >= o.deliveryLimit;
}

/** What a failed attempt leads to, for the warning: dead-lettered on the final attempt, else pending. */
function failureFate(o: ResolvedOptions, d: Delivery): string {
  if (isFinalAttempt(o, d)) return `its final attempt (deliveryLimit ${o.deliveryLimit}): the entry is dead-lettered`;
  return 'the entry stays pending for recovery';
}

/** What a warning about a delivery names: its entry ID and consumer (never its payload). */
function logContext(d: Delivery, consumer: string): Record<string, unknown> {
  return { entryId: d.id, consumer };
}

/** Records the completion a delivery asks for. */
function complete(d: Delivery, action: CompletionAction, reason: DeadLetterReason | undefined): Delivery {
  d.action = action;
  d.reason = reason;
  return d;
}
