// queue.consume(): a hosted consumer — a bounded number of handlers, automatic lease extension, NACK backoff, a clean stop.
import { RespireValidationError, isRespireError } from '@respire/core-scripts';
import {
  MAX_INT32,
  TransientBackoff,
  exceptionType,
  ignoreRejection,
  isTransient,
  retryTransient,
  safeGet,
  sleep,
  toDurationMs,
  toIntegerInRange,
  toOptions,
} from '@respire/core-scripts/internal';
import { MAX_BATCH, type MessageReceipt } from './leases/leases.js';
import type { ReceivedMessage } from './queue.js';
import { Run, RunContext } from './consume-run.js';
import { SettleBatcher, type Settlement } from './settle-batcher.js';
import type { Waiter } from './wait.js';

/** Default {@link ConsumeOptions.concurrency}: 10 handlers in flight. */
export const DEFAULT_CONSUME_CONCURRENCY = 10;
/** Default {@link ConsumeOptions.visibilityTimeoutMs}: 30 s. */
export const DEFAULT_CONSUME_VISIBILITY_TIMEOUT_MS = 30_000;
/** Default {@link ConsumeOptions.shutdownTimeoutMs}: 30 s, as the worker's. */
export const DEFAULT_CONSUME_SHUTDOWN_TIMEOUT_MS = 30_000;
/** Default first NACK delay after a handler throws: 1 s, doubled per delivery. */
export const DEFAULT_RETRY_INITIAL_DELAY_MS = 1000;
/** Default longest NACK delay after a handler throws: 60 s. */
export const DEFAULT_RETRY_MAX_DELAY_MS = 60_000;

/** How long each waiting receive of a consumer waits (ms): the longest a receive may. */
const CONSUMER_WAIT_MS = 20_000;
/** How long stop() waits for the NACKs of messages it will not finish after aborting their handlers (ms). */
const RELEASE_DEADLINE_MS = 5000;
/** How long stop() waits for a receive already sent to answer (ms). */
const STOP_RECEIVE_DEADLINE_MS = 1000;
/** How long a settlement refused with a transient reply (nothing ran) is retried (ms). */
const SETTLE_RETRY_MS = 5000;

/** Where a consumer writes what an operator should see: names, IDs, counts and exception types only, never payloads or messages. */
export interface QueueConsumerLogger {
  debug?(message: string, context?: Readonly<Record<string, unknown>>): void;
  info?(message: string, context?: Readonly<Record<string, unknown>>): void;
  warn(message: string, context?: Readonly<Record<string, unknown>>): void;
  error(message: string, context?: Readonly<Record<string, unknown>>): void;
}

/** The default logger: warnings and errors to the console. */
export const consoleConsumerLogger: QueueConsumerLogger = {
  warn: (message, context) => console.warn(`[respire.queue] ${message}`, context ?? ''),
  error: (message, context) => console.error(`[respire.queue] ${message}`, context ?? ''),
};

/** Options of {@link ReliableQueue.consume}. */
export interface ConsumeOptions {
  /**
   * Most handlers in flight (1..1000); also the most messages leased and not yet handed to a
   * handler (prefetch never exceeds the free slots).
   * @defaultValue 10
   */
  concurrency?: number;
  /**
   * Each lease's visibility timeout, in ms (1..2^31-1). While a handler runs, its lease is
   * extended to server now + this every third of it, so a crashed consumer's messages are
   * redelivered within about this long and a slow handler keeps its message.
   * @defaultValue 30_000
   */
  visibilityTimeoutMs?: number;
  /**
   * NACK delay after a handler throws, in ms: `initialDelayMs` × 2^(deliveryCount − 1), at most
   * `maxDelayMs` (each 0..2^31-1).
   * @defaultValue `{ initialDelayMs: 1000, maxDelayMs: 60_000 }`
   */
  retryBackoff?: { readonly initialDelayMs?: number; readonly maxDelayMs?: number };
  /**
   * How long `stop()` lets running handlers finish before aborting their signals, in ms (0..2^31-1).
   * @defaultValue 30_000
   */
  shutdownTimeoutMs?: number;
  /** Where failures are reported. @defaultValue warnings and errors to the console */
  logger?: QueueConsumerLogger;
}

/** What a handler receives beside its message. */
export interface ConsumeContext {
  /**
   * Aborted when the consumer gives the message up: its lease could not be extended (it may
   * already be another consumer's; the handler's result is ignored), or `stop()`'s shutdown
   * timeout passed (the message is released for redelivery at once).
   */
  readonly signal: AbortSignal;
}

/**
 * A consumer's handler. Resolving (with anything but {@link nackAfter}'s result) acknowledges the
 * message; returning `nackAfter(ms)` NACKs it with that delay; throwing (anything) NACKs it with
 * the retry backoff.
 */
export type ConsumeHandler<T> = (message: ReceivedMessage<T>, context: ConsumeContext) => unknown;

/** The result of {@link nackAfter}. */
export interface NackResult {
  /** The NACK delay, in ms. */
  readonly nackDelayMs: number;
}

const NACK_RESULTS = new WeakSet<object>();
const ACK: Settlement = Object.freeze({ action: 'ack' });

/**
 * A handler result that NACKs its message with `delayMs` instead of acknowledging it.
 * @param delayMs - ms, 0..2^31-1, fractions round up.
 * @throws {@link RespireValidationError} for a bad delay.
 */
export function nackAfter(delayMs: number): NackResult {
  const result = Object.freeze({ nackDelayMs: toDurationMs('delayMs', delayMs, true) });
  NACK_RESULTS.add(result);
  return result;
}

/** A running consumer (from {@link ReliableQueue.consume}). */
export interface QueueConsumer {
  /**
   * Stops receiving at once, lets running handlers finish for up to `shutdownTimeoutMs`, then
   * aborts their signals and NACKs (delay 0) the messages it will not finish, so they are
   * redelivered at once. A receive already sent is waited for at most 1 s; what it leases after
   * that is NACKed the same way when it answers. Resolves when every connection the consumer
   * opened is closed. Repeated calls return the same promise; it never rejects.
   */
  stop(): Promise<void>;
  /** Handlers running now. */
  readonly inFlight: number;
  /** False once `stop()` was called. */
  readonly running: boolean;
}

/**
 * What a consumer needs of its queue. `W` holds the consumer's blocking connections for its
 * lifetime: a {@link Waiter}, or a partitioned queue's one per partition; `close()` ends a wait.
 */
export interface ConsumedQueue<M extends MessageReceipt & { readonly deliveryCount: number }, W extends { close(): void } = Waiter> {
  readonly name: string;
  /** The waiting receive; `beforeWait` runs before each wait point is read. */
  receiveWaiting(visibilityTimeoutMs: number, max: number, waitMs: number, waiter: W, beforeWait: () => Promise<void>): Promise<M[]>;
  newWaiter(): W;
  ackMany(messages: readonly M[]): Promise<boolean[]>;
  nackMany(messages: readonly M[], delayMs: number): Promise<boolean[]>;
  extend(message: M, visibilityTimeoutMs: number): Promise<boolean>;
}

const OPTIONS = ['concurrency', 'visibilityTimeoutMs', 'retryBackoff', 'shutdownTimeoutMs', 'logger'] as const satisfies readonly (keyof ConsumeOptions)[];

interface Settings {
  readonly concurrency: number;
  readonly visibilityTimeoutMs: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly shutdownTimeoutMs: number;
  readonly logger: QueueConsumerLogger;
}

/**
 * Checks a consumer's handler and options before anything starts.
 * @throws {@link RespireValidationError} for a handler that is not a function or a bad option.
 */
export function consumeSettings(handler: unknown, options: ConsumeOptions): Settings {
  if (typeof handler !== 'function') throw new RespireValidationError('handler', 'must be a function');
  if (typeof options !== 'object' || options === null) throw new RespireValidationError('options', 'must be an object');
  const o = toOptions('options', options, OPTIONS);
  const backoff = o.retryBackoff === undefined ? {} : toOptions('retryBackoff', o.retryBackoff, ['initialDelayMs', 'maxDelayMs']);
  const logger = o.logger ?? consoleConsumerLogger;
  if (typeof logger !== 'object' || logger === null) throw new RespireValidationError('logger', 'must be an object with warn and error methods');
  return {
    concurrency: toIntegerInRange('concurrency', o.concurrency ?? DEFAULT_CONSUME_CONCURRENCY, 1, 1000),
    visibilityTimeoutMs: toDurationMs('visibilityTimeoutMs', o.visibilityTimeoutMs ?? DEFAULT_CONSUME_VISIBILITY_TIMEOUT_MS),
    initialDelayMs: toDurationMs('retryBackoff.initialDelayMs', backoff.initialDelayMs ?? DEFAULT_RETRY_INITIAL_DELAY_MS, true),
    maxDelayMs: toDurationMs('retryBackoff.maxDelayMs', backoff.maxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS, true),
    shutdownTimeoutMs: toDurationMs('shutdownTimeoutMs', o.shutdownTimeoutMs ?? DEFAULT_CONSUME_SHUTDOWN_TIMEOUT_MS, true),
    logger,
  };
}

/** The consumer behind {@link ReliableQueue.consume}. */
export class Consumer<M extends MessageReceipt & { readonly deliveryCount: number }, W extends { close(): void } = Waiter> implements QueueConsumer {
  readonly #queue: ConsumedQueue<M, W>;
  readonly #handler: (message: M, context: ConsumeContext) => unknown;
  readonly #settings: Settings;
  readonly #waiter: W;
  readonly #runs = new Set<Run>();
  readonly #stopController = new AbortController();
  readonly #settler: SettleBatcher<M>;
  #slotFreed: (() => void) | undefined;
  #loop: Promise<void>;
  #stopping: Promise<void> | undefined;

  constructor(queue: ConsumedQueue<M, W>, handler: (message: M, context: ConsumeContext) => unknown, settings: Settings) {
    this.#queue = queue;
    this.#handler = handler;
    this.#settings = settings;
    this.#waiter = queue.newWaiter();
    // A transient reply (nothing ran) is retried for a few seconds; any other failure is the whole batch's.
    this.#settler = new SettleBatcher<M>(
      (settlement, messages) =>
        retryTransient(() => (settlement.action === 'ack' ? queue.ackMany(messages) : queue.nackMany(messages, settlement.delayMs)), {
          deadlineMs: SETTLE_RETRY_MS,
        }),
      Math.min(settings.concurrency, MAX_BATCH),
    );
    this.#loop = this.#receiveLoop().catch((error: unknown) => this.#log('error', 'the receive loop ended unexpectedly', { errorType: exceptionType(error) }));
  }

  get inFlight(): number {
    return this.#runs.size;
  }

  get running(): boolean {
    return this.#stopping === undefined;
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#stopController.abort();
    this.#waiter.close(); // a waiting receive returns at once
    this.#slotFreed?.();
    // A receive in flight on the queue's client (a paused server, a silent socket) is not waited
    // for past this: the loop NACKs whatever it leases once it answers, and starts no handler.
    await Promise.race([this.#loop, sleep(STOP_RECEIVE_DEADLINE_MS)]);
    const finished = Promise.all([...this.#runs].map((run) => run.done));
    if (this.#runs.size > 0) await Promise.race([finished, sleep(this.#settings.shutdownTimeoutMs)]);
    for (const run of this.#runs) {
      run.stopped = true;
      run.abort(new Error('the consumer is stopping'));
    }
    // The NACKs of aborted handlers' messages: bounded, since a dead server must not hold stop() forever
    // (a message whose NACK is lost is redelivered after its lease).
    if (this.#runs.size > 0) await Promise.race([Promise.all([...this.#runs].map((run) => run.done)), sleep(RELEASE_DEADLINE_MS)]);
    // The NACKs of messages leased as stop() began are batched too: sent and answered before stop() resolves.
    await Promise.race([this.#settler.idle(), sleep(RELEASE_DEADLINE_MS)]);
    this.#waiter.close();
  }

  async #receiveLoop(): Promise<void> {
    const { concurrency, visibilityTimeoutMs } = this.#settings;
    const stopSignal = this.#stopController.signal;
    // Every failure is retried (a consumer outlives outages), waiting 50 ms doubling up to 5 s.
    const backoff = new TransientBackoff({ deadlineMs: Number.POSITIVE_INFINITY, retryable: () => true, maxDelayMs: 5000 });
    while (!stopSignal.aborted) {
      if (this.#runs.size >= concurrency) {
        await new Promise<void>((resolve) => (this.#slotFreed = resolve));
        this.#slotFreed = undefined;
        continue;
      }
      let batch: M[];
      try {
        // Settlements still batched are applied before a wait point is read: a NACK's delay then bounds the block.
        batch = await this.#queue.receiveWaiting(visibilityTimeoutMs, concurrency - this.#runs.size, CONSUMER_WAIT_MS, this.#waiter, () =>
          this.#settler.idle(),
        );
        backoff.reset();
      } catch (error) {
        if (stopSignal.aborted) return;
        const delayMs = backoff.next(error);
        this.#log(isTransient(error) || isRespireError(error, 'TRANSPORT_FAILED') ? 'warn' : 'error', 'receive failed; retrying', {
          queue: this.#queue.name,
          errorType: exceptionType(error),
          code: safeGet(error, 'code'),
          delayMs,
        });
        await sleep(delayMs, stopSignal);
        continue;
      }
      if (stopSignal.aborted) {
        // Leased as stop() began: released at once, not left until their deadline.
        for (const message of batch) ignoreRejection(this.#settle(message, 'nack', 0));
        return;
      }
      for (const message of batch) this.#start(message);
    }
  }

  #start(message: M): void {
    const run = new Run();
    this.#runs.add(run);
    run.done = this.#handle(message, run);
  }

  async #handle(message: M, run: Run): Promise<void> {
    try {
      await this.#handleRun(message, run);
    } finally {
      this.#runs.delete(run);
      this.#slotFreed?.();
    }
  }

  async #handleRun(message: M, run: Run): Promise<void> {
    // The lease's deadline as this process can bound it: from before the handler starts.
    const startedAt = performance.now();
    run.heldUntil = startedAt + this.#settings.visibilityTimeoutMs;
    let threw = false;
    let result: unknown;
    try {
      // The handler runs after the code that started it, as a microtask.
      await undefined;
      // The handler is user code: it may throw synchronously, return anything (a thenable whose then
      // throws) or never settle; the race ends when the run is aborted. A primitive needs no race,
      // and no lease extension: the handler has already returned.
      const returned = this.#handler(message, new RunContext(run));
      if ((typeof returned === 'object' && returned !== null) || typeof returned === 'function') {
        this.#extendWhileRunning(message, run, startedAt);
        result = await Promise.race([returned, run.whenAborted()]);
      } else {
        result = returned;
      }
    } catch (error) {
      threw = true;
      result = error;
    } finally {
      run.ended = true;
      clearTimeout(run.timer);
    }
    if (run.leaseLost) {
      this.#log('warn', 'the lease was lost while the handler ran; its result is not acknowledged', this.#context(message));
      return;
    }
    if (run.stopped) {
      await this.#settle(message, 'nack', 0);
      return;
    }
    if (threw) {
      const delayMs = this.#retryDelay(message.deliveryCount);
      this.#log('warn', 'the handler threw; the message is NACKed', { ...this.#context(message), errorType: exceptionType(result), delayMs });
      await this.#settle(message, 'nack', delayMs);
      return;
    }
    if (typeof result === 'object' && result !== null && NACK_RESULTS.has(result)) {
      await this.#settle(message, 'nack', (result as NackResult).nackDelayMs);
      return;
    }
    await this.#settle(message, 'ack', 0);
  }

  #context(message: M): Record<string, unknown> {
    return { queue: this.#queue.name, messageId: message.id, deliveryCount: message.deliveryCount };
  }

  /**
   * Extends the lease every third of the visibility timeout while the handler runs. A false reply
   * (the receipt no longer holds the lease) or failures until the lease may have run out abort the
   * handler's signal: its result will not be acknowledged. Stopped by setting `run.ended` and
   * clearing `run.timer`. Started only for a handler that returned an object (a promise); one
   * timer per run and no closures.
   */
  #extendWhileRunning(message: M, run: Run, startedAt: number): void {
    const periodMs = Math.max(1, Math.floor(this.#settings.visibilityTimeoutMs / 3));
    run.timer = setTimeout(this.#extendTick, Math.max(1, startedAt + periodMs - performance.now()), message, run);
  }

  readonly #extendTick = (message: M, run: Run): void => void this.#extendOnce(message, run);

  async #extendOnce(message: M, run: Run): Promise<void> {
    const { visibilityTimeoutMs } = this.#settings;
    const periodMs = Math.max(1, Math.floor(visibilityTimeoutMs / 3));
    const sentAt = performance.now();
    try {
      const extended = await this.#queue.extend(message, visibilityTimeoutMs).catch((error: unknown) => {
        // Applied, only not yet on the replicas the durability option asks for: the reply says whether it extended.
        if (!isRespireError(error, 'NOT_DURABLE')) throw error;
        const reply = safeGet(error, 'reply');
        return Array.isArray(reply) && Number(reply[0]) === 1;
      });
      if (run.ended) return;
      if (!extended) return this.#loseLease(message, run, 'the lease could not be extended (expired, revoked or superseded); the handler is aborted');
      run.heldUntil = sentAt + visibilityTimeoutMs;
    } catch (error) {
      if (run.ended) return;
      // Another attempt only while the lease surely still holds.
      if (performance.now() + periodMs >= run.heldUntil) {
        return this.#loseLease(message, run, 'extending the lease failed until it may have expired; the handler is aborted', {
          errorType: exceptionType(error),
        });
      }
    }
    if (!run.ended) run.timer = setTimeout(this.#extendTick, periodMs, message, run);
  }

  #loseLease(message: M, run: Run, reason: string, extra: Record<string, unknown> = {}): void {
    if (run.ended) return;
    run.leaseLost = true;
    this.#log('warn', reason, { queue: this.#queue.name, messageId: message.id, ...extra });
    run.abort(new Error('the message lease was lost'));
  }

  #retryDelay(deliveryCount: number): number {
    const { initialDelayMs, maxDelayMs } = this.#settings;
    return Math.min(maxDelayMs, MAX_INT32, initialDelayMs * 2 ** Math.min(31, Math.max(0, deliveryCount - 1)));
  }

  /**
   * ACKs or NACKs one message, batched with the settlements of handlers that finish close together
   * (one ackMany, or one nackMany per delay, per turn of the event loop; at most `concurrency` or
   * 1,000 messages a call). A transient reply (nothing ran) is retried for a few seconds; a lost
   * reply is never repeated (a repeated ACK would answer false and say nothing): it is reported
   * for every message of the batch.
   */
  async #settle(message: M, action: 'ack' | 'nack', delayMs: number): Promise<void> {
    const outcome = await this.#settler.settle(message, action === 'ack' ? ACK : { action, delayMs });
    if (outcome.ok && outcome.settled) return;
    const context = { queue: this.#queue.name, messageId: message.id, action };
    if (outcome.ok) {
      if (!outcome.settled) this.#log('warn', `the ${action} found the lease gone (expired or superseded): the message may be redelivered`, context);
      return;
    }
    const { error, index } = outcome;
    if (isRespireError(error, 'NOT_DURABLE')) {
      // The durability option's wait fell short; the ACK or NACK itself ran (its reply says, per message, whether it settled).
      const reply = safeGet(error, 'reply');
      const settled = Array.isArray(reply) && Number(reply[index]) === 1;
      const what = settled ? 'was applied' : 'found the lease gone (expired or superseded)';
      this.#log('warn', `the ${action} ${what}, and has not reached the replicas or AOF the durability option asks for`, {
        ...context,
        errorType: exceptionType(error),
        code: safeGet(error, 'code'),
      });
      return;
    }
    const unknown = safeGet(error, 'outcomeUnknown') === true;
    this.#log(
      unknown ? 'warn' : 'error',
      unknown
        ? `the ${action} reply was lost: its outcome is unknown and it is not repeated`
        : `the ${action} failed: the message is redelivered after its lease`,
      { ...context, errorType: exceptionType(error), code: safeGet(error, 'code') },
    );
  }

  #log(level: 'warn' | 'error', message: string, context: Readonly<Record<string, unknown>>): void {
    try {
      const logger = this.#settings.logger;
      const method = safeGet(logger, level);
      if (typeof method === 'function') ignoreRejection((method as (m: string, c: unknown) => unknown).call(logger, message, context));
    } catch {
      // A logger never changes an outcome.
    }
  }
}
