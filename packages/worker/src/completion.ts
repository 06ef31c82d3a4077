import {
  compareEntryIds,
  deadLetterExceptionType,
  isConnectionFailure,
  replyWithin,
  scriptCalls,
  type CommandTarget,
  type WorkerCompleteReply,
} from '@respire/core-scripts/internal';
import type { OwnedConnection } from './connections.js';
import type { Delivery } from './delivery.js';
import type { DeadLetterReason } from './instrumentation.js';
import { safeLog } from './logger.js';
import type { ResolvedOptions } from './options.js';
import { retryingAfter } from './retry.js';

/**
 * Fenced completion (seed 002 "Pending messages and reliability"): the one place the worker sends
 * deliveries' results to Redis. A reader's completions that finish close together go as ONE
 * `worker-complete` script call, which fences them together (one XPENDING over the batch's ID
 * range for this consumer, each delivery count compared) and acknowledges, releases or
 * dead-letters those still pending to this consumer at their delivery count; the others are
 * `stale`. Each delivery still gets its own exact outcome.
 *
 * A batch is sent when the reader has dispatched its whole read (the usual case), when it holds
 * `batchSize` completions, or {@link FLUSH_WINDOW_MS} after the reader began to wait for a handler
 * (or a scope) with completions queued, so no completion waits longer than that for a slow handler
 * further down the read. (While handlers return directly, the reader never waits: nothing can be
 * sent earlier than at the end of the read, and no timer is armed.) It goes
 * on the reader's own connection, which no read holds while its batch is handled: the end-of-read
 * batch is written together with the next read, and Redis runs it first, so the group never shows
 * more than `batchSize` of the reader's entries in flight, for one round trip per read. After a
 * NOSCRIPT reply the script is loaded over the caller's client instead, never behind a parked read.
 *
 * A batch is repeated only when it provably did not run, always over the caller's client (never
 * behind the reader's next read): after a reply that proves it (`BUSY`, `LOADING`, `TRYAGAIN`,
 * `MASTERDOWN`, `CLUSTERDOWN`), with backoff for up to 10 s (retry.ts), then the worker faults
 * naming the reply; and at once when it was never written because the reader's connection had
 * already closed. Any other failure, above all a lost reply (the connection dropped, or was closed
 * at the read's deadline, or silent past {@link COMPLETION_DEADLINE_MS}, while the batch
 * was unanswered: its outcome is uncertain for every delivery of the batch, seed 002 "Faults"),
 * fails every delivery of the batch and faults the worker once; it is never repeated. Each delivery
 * learns its outcome through `settled` or `failed`.
 */

/** How long a queued completion may wait for more of the reader's completions (ms). */
export const FLUSH_WINDOW_MS = 1;

/**
 * How long a batch sent on the reader's connection may go unanswered before the server is asked
 * whether it still holds it, and the connection is closed if not (ms; connections.ts
 * `heldByServer`): a connection gone silent (a dropped flow with no reset) would otherwise hold
 * the reader for as long as the kernel keeps retransmitting, since no read follows a batch of one.
 */
export const COMPLETION_DEADLINE_MS = 10_000;

/** One reader's completions: queued per delivery, sent to Redis in batches. */
export class Completions {
  readonly consumer: string;
  readonly #options: ResolvedOptions;
  readonly #connection: () => OwnedConnection | undefined;
  #args: string[] = [];
  #queued: Delivery[] = [];
  /** The reason of each queued dead letter (undefined for the others), for the dead-letter hook. */
  #reasons: (DeadLetterReason | undefined)[] = [];
  /** True when a queued completion is a dead letter. */
  #letters = false;
  /** The lowest and highest entry IDs queued: the range the script's one XPENDING covers. */
  #first = '';
  #last = '';
  #timer: NodeJS.Timeout | undefined;
  /** Settles when the last batch sent on the reader's connection has its reply (or failed): see {@link Completions.answered}. */
  #lastAttempt: Promise<unknown> = Promise.resolve();
  /** Settles when the last batch's deliveries have their outcomes: see {@link Completions.completed}. */
  #lastOutcome: Promise<unknown> = Promise.resolve();

  /** @param connection - the reader's open connection, where batches go while there is one (else the caller's client). */
  constructor(options: ResolvedOptions, consumer: string, connection: () => OwnedConnection | undefined) {
    this.#options = options;
    this.consumer = consumer;
    this.#connection = connection;
  }

  /** Sends the queued completions now, as one script call (nothing when none is queued). */
  flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const queued = this.#queued;
    if (queued.length === 0) return;
    const args = this.#args;
    const reasons = this.#reasons;
    const first = this.#first;
    const last = this.#last;
    this.#queued = [];
    this.#args = [];
    this.#reasons = [];
    const letters = this.#letters;
    this.#letters = false;
    const o = this.#options;
    const call = {
      stream: o.stream,
      // A batch without dead letters names only the source (in both KEYS), so a user whose grant on
      // the dead-letter stream is read-only (%R~) still acknowledges: Redis checks every key of EVALSHA.
      deadLetter: letters ? o.deadLetterStream! : o.stream,
      group: o.group,
      consumer: this.consumer,
      deleteAcknowledged: o.deleteAcknowledgedEntries,
      minimumIdleTimeMs: o.minimumIdleTimeMs,
      first,
      last,
      completions: args,
    };
    const send = (target: CommandTarget) => scriptCalls.workerComplete(target, call, { operation: 'StreamWorker completion', noScriptTarget: o.target });
    const settled = (reply: WorkerCompleteReply) => settle(queued, reasons, reply);
    // A lost reply leaves every delivery of the batch uncertain: each one fails (one fault), none is repeated.
    const failed = (error: unknown) => {
      for (const d of queued) d.failed(error);
    };
    this.#lastOutcome = this.#sendFirst(send).then(settled, (error: unknown) =>
      retryingAfter(o.logger, 'StreamWorker completion', error, () => send(o.target), { consumer: this.consumer }).then(settled, failed),
    );
  }

  /** Settles once the batches sent so far have told each delivery its outcome (a failure faults the run). */
  completed(): Promise<unknown> {
    return this.#lastOutcome;
  }

  /**
   * Resolves once the batches sent on the reader's connection so far have their replies (or
   * failed), so that connection can be closed without losing one.
   */
  answered(): Promise<unknown> {
    return this.#lastAttempt;
  }

  /** The first attempt: on the reader's connection with a deadline that closes it, else over the caller's client. */
  #sendFirst(send: (target: CommandTarget) => Promise<WorkerCompleteReply>): Promise<WorkerCompleteReply> {
    const connection = this.#connection();
    if (connection === undefined || connection.closed) return send(this.#options.target);
    const held = connection.heldByServer(this.#options.target, this.#options.stream, COMPLETION_DEADLINE_MS);
    const attempt = replyWithin(send(connection.target), COMPLETION_DEADLINE_MS, 'StreamWorker completion', held).catch((error: unknown) => {
      // A silent or lost connection is closed (failing a read written behind the batch too): the reader replaces it.
      if (isConnectionFailure(error)) connection.close();
      throw error;
    });
    this.#lastAttempt = attempt.catch(() => {});
    return attempt;
  }

  #enqueue(d: Delivery, action: string, reason?: DeadLetterReason, exceptionType?: string): void {
    const id = d.entry.id;
    if (this.#queued.length === 0) this.#first = this.#last = id;
    else if (compareEntryIds(id, this.#first) < 0) this.#first = id;
    else if (compareEntryIds(id, this.#last) > 0) this.#last = id;
    this.#queued.push(d);
    this.#reasons.push(reason);
    if (reason !== undefined) this.#letters = true;
    this.#args.push(id, String(d.entry.deliveryCount), action);
    if (reason !== undefined) this.#args.push(reason, deadLetterExceptionType(exceptionType ?? ''));
    if (this.#queued.length >= this.#options.batchSize) this.flush();
  }

  /** The reader is about to wait for a handler: what is queued goes within {@link FLUSH_WINDOW_MS}. */
  flushSoon(): void {
    if (this.#queued.length > 0) this.#timer ??= setTimeout(() => this.flush(), FLUSH_WINDOW_MS);
  }

  /** Acknowledges (XACK, or XACKDEL ACKED with `deleteAcknowledgedEntries` on Redis 8.2+). */
  acknowledge(d: Delivery): void {
    this.#enqueue(d, 'ack');
  }

  /**
   * A failed attempt: dead-letters it on the final attempt, else releases it (XNACK FAIL on Redis
   * 8.8+ once its idle time has elapsed) or leaves it pending for idle recovery.
   */
  fail(d: Delivery, reason: 'nack' | 'processing-failed', exceptionType: string): void {
    const limit = this.#options.deliveryLimit;
    if (limit !== undefined && d.entry.deliveryCount >= limit) this.deadLetter(d, reason, exceptionType);
    else this.#enqueue(d, 'release');
  }

  /** Appends the dead-letter record and acknowledges the source atomically (seed 002). */
  deadLetter(d: Delivery, reason: DeadLetterReason, exceptionType: string): void {
    this.#enqueue(d, 'dead-letter', reason, exceptionType);
  }
}

/** Tells each delivery of a batch its outcome, from its entry in the script's reply. */
function settle(queued: readonly Delivery[], reasons: readonly (DeadLetterReason | undefined)[], reply: WorkerCompleteReply): void {
  for (let i = 0; i < queued.length; i++) {
    const d = queued[i]!;
    switch (reply[i]) {
      case 'acknowledged':
        d.settled('ack');
        break;
      case 'pending': // left pending for idle recovery
      case 'released': // released with XNACK FAIL
        d.settled('nack');
        break;
      case 'deadLettered':
        d.settled('dead-letter', reasons[i]);
        break;
      case 'deleted':
        d.settled('deleted'); // the source body was gone: acknowledged without a record
        break;
      default: // 'stale'
        safeLog(d.options.logger, 'debug', 'delivery was recovered by another owner or attempt; not completed', {
          entryId: d.entry.id,
          consumer: d.completions.consumer,
          deliveryCount: d.entry.deliveryCount,
        });
        d.settled('stale');
    }
  }
}
