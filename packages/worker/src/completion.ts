// Fenced completion: a reader's decided deliveries sent to Redis in batches, each told its own outcome.
import type { DeadLetterReason } from '@respire/core-scripts';
import { RespireNotDurableError } from '@respire/core-scripts';
import {
  compareEntryIds,
  deadLetterExceptionType,
  decodeWorkerCompleteReply,
  isConnectionFailure,
  replyWithin,
  scriptCalls,
  type CommandTarget,
  type WorkerCompleteReply,
} from '@respire/core-scripts/internal';
import type { OwnedConnection } from './connections.js';
import { safeLog } from './logger.js';
import type { ResolvedOptions } from './options.js';
import { retryingAfter } from './retry.js';

/**
 * The one place the worker sends deliveries' results to Redis (README "Fenced completion" and
 * "Batched completion"). A reader's completions that are decided close together go as ONE
 * `worker-complete` script call, which fences them together (one XPENDING over the batch's ID
 * range for this consumer, each delivery count compared) and acknowledges, releases or
 * dead-letters those still pending to this consumer at their delivery count; the others are
 * `stale`. Each request is still told its own outcome, through the {@link CompletionListener}.
 *
 * A batch is sent when the reader has dispatched its whole read (the usual case: it calls
 * {@link Completions.flush}), when it holds `batchSize` completions, or {@link FLUSH_WINDOW_MS}
 * after the reader began to wait for a handler (or a scope) with completions queued
 * ({@link Completions.flushSoon}), so no completion waits longer than that for a slow handler
 * further down the read. (While handlers return directly, the reader never waits: nothing can be
 * sent earlier than at the end of the read, and no timer is armed.) It goes on the reader's own
 * connection, which no read holds while its batch is handled: the end-of-read batch is written
 * together with the next read, and Redis runs it first, so the group never shows more than
 * `batchSize` of the reader's entries in flight, for one round trip per read. After a NOSCRIPT
 * reply the script is loaded over the caller's client instead, never behind a parked read.
 *
 * A batch is repeated only when it provably did not run, always over the caller's client (never
 * behind the reader's next read): after a reply that proves it (`BUSY`, `LOADING`, `TRYAGAIN`,
 * `MASTERDOWN`, `CLUSTERDOWN`), with backoff for up to 10 s (retry.ts), then every request of it
 * fails with the reply; and at once when it was never written because the reader's connection had
 * already closed. Any other failure, above all a lost reply (the connection dropped, or was closed
 * at the read's deadline, or silent past {@link COMPLETION_DEADLINE_MS}, while the batch was
 * unanswered: its outcome is uncertain for every delivery of the batch, README "Faults"), fails
 * every request of the batch; it is never repeated.
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

/**
 * What a delivery asks of `worker-complete`: `ack` (XACK, or XACKDEL ACKED with
 * `deleteAcknowledgedEntries` on Redis 8.2+); `release` (XNACK FAIL on Redis 8.8+ once its idle time
 * has elapsed, else left pending for idle recovery); `dead-letter` (the record appended and the
 * source acknowledged, atomically).
 */
export type CompletionAction = 'ack' | 'release' | 'dead-letter';

/** One delivery's completion, as the reader hands it over. */
export interface CompletionRequest {
  /** The entry ID. */
  readonly id: string;
  /** The delivery count Redis gave this delivery: the fence compares it. */
  readonly deliveryCount: number;
  /** Always set on a request handed to {@link Completions.add}. */
  readonly action: CompletionAction | undefined;
  /** The record's `_respire.reason`, with action `dead-letter`. */
  readonly reason: DeadLetterReason | undefined;
  /** The record's `_respire.exception_type` (cut to 256 bytes); empty when undefined. */
  readonly exceptionType: string | undefined;
}

/**
 * What the batch's reply says of one request: `ack` (acknowledged), `nack` (released, or left
 * pending for idle recovery), `dead-letter` (record appended, source acknowledged), `deleted` (a
 * dead letter whose source body was gone: acknowledged without a record), `stale` (not pending to
 * this consumer at this delivery count: recovered by another owner or attempt; nothing was done).
 */
export type CompletionOutcome = 'ack' | 'nack' | 'dead-letter' | 'deleted' | 'stale';

/** Told the outcome of each request, once: by the batch's reply, or the batch's failure. */
export interface CompletionListener<R extends CompletionRequest> {
  completed(request: R, outcome: CompletionOutcome): void;
  /** The batch failed; unless the failure proves it did not run, its outcome is unknown. */
  failed(request: R, error: unknown): void;
}

/** What {@link Completions} reads of the worker's options. */
export type CompletionOptions = Pick<
  ResolvedOptions,
  'target' | 'completionTarget' | 'stream' | 'deadLetterStream' | 'group' | 'deleteAcknowledgedEntries' | 'minimumIdleTimeMs' | 'batchSize' | 'logger'
>;

/** Sends one batch: `worker-complete` over `target` (a seam for tests; see {@link sendWorkerComplete}). */
export type SendBatch = (target: CommandTarget, batch: scriptCalls.WorkerCompleteArgs, options: CompletionOptions) => Promise<WorkerCompleteReply>;

/**
 * Runs `worker-complete`; after NOSCRIPT the script is loaded over the caller's client. A batch
 * whose `durability` wait fell short was applied: a warning, and its reply as if confirmed (a
 * failover that loses it only makes its entries pending again, to be delivered again).
 */
export const sendWorkerComplete: SendBatch = async (target, batch, o) => {
  try {
    return await scriptCalls.workerComplete(target, batch, { operation: 'StreamWorker completion', noScriptTarget: o.completionTarget });
  } catch (error) {
    if (!(error instanceof RespireNotDurableError)) throw error;
    safeLog(o.logger, 'warn', 'completion not confirmed durable', {
      consumer: batch.consumer,
      replicasRequired: error.replicasRequired,
      replicasReached: error.replicasReached,
      localAofReached: error.localAofReached,
    });
    return decodeWorkerCompleteReply(error.reply, 'StreamWorker completion');
  }
};

/** One reader's completions: queued per request, sent to Redis in batches. */
export class Completions<R extends CompletionRequest> {
  readonly #options: CompletionOptions;
  readonly #consumer: string;
  readonly #connection: () => OwnedConnection | undefined;
  readonly #listener: CompletionListener<R>;
  readonly #send: SendBatch;
  #args: string[] = [];
  #queued: R[] = [];
  /** True when a queued completion is a dead letter. */
  #letters = false;
  /** The lowest and highest entry IDs queued: the range the script's one XPENDING covers. */
  #first = '';
  #last = '';
  #timer: NodeJS.Timeout | undefined;
  /** Settles when the last batch sent on the reader's connection has its reply (or failed): see {@link Completions.answered}. */
  #lastAttempt: Promise<unknown> = Promise.resolve();
  /** Settles when the last batch's requests have their outcomes: see {@link Completions.completed}. */
  #lastOutcome: Promise<unknown> = Promise.resolve();

  /**
   * @param consumer - the reader's consumer name: the fence requires each entry pending to it.
   * @param connection - the reader's open connection, where batches go while there is one (else the caller's client).
   * @param send - how a batch is sent; {@link sendWorkerComplete} but in tests.
   */
  constructor(
    options: CompletionOptions,
    consumer: string,
    connection: () => OwnedConnection | undefined,
    listener: CompletionListener<R>,
    send: SendBatch = sendWorkerComplete,
  ) {
    this.#options = options;
    this.#consumer = consumer;
    this.#connection = connection;
    this.#listener = listener;
    this.#send = send;
  }

  /** Queues a decided request (its `action` set); a batch of `batchSize` goes at once. */
  add(request: R): void {
    const id = request.id;
    if (this.#queued.length === 0) this.#first = this.#last = id;
    else if (compareEntryIds(id, this.#first) < 0) this.#first = id;
    else if (compareEntryIds(id, this.#last) > 0) this.#last = id;
    this.#queued.push(request);
    const action = request.action!;
    this.#args.push(id, String(request.deliveryCount), action);
    if (action === 'dead-letter') {
      this.#letters = true;
      this.#args.push(request.reason!, deadLetterExceptionType(request.exceptionType ?? ''));
    }
    if (this.#queued.length >= this.#options.batchSize) this.flush();
  }

  /** The reader is about to wait for a handler: what is queued goes within {@link FLUSH_WINDOW_MS}. */
  flushSoon(): void {
    if (this.#queued.length > 0) this.#timer ??= setTimeout(() => this.flush(), FLUSH_WINDOW_MS);
  }

  /** Sends the queued completions now, as one script call (nothing when none is queued). */
  flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const queued = this.#queued;
    if (queued.length === 0) return;
    const o = this.#options;
    const batch: scriptCalls.WorkerCompleteArgs = {
      stream: o.stream,
      // A batch without dead letters names only the source (in both KEYS), so a user whose grant on
      // the dead-letter stream is read-only (%R~) still acknowledges: Redis checks every key of EVALSHA.
      deadLetter: this.#letters ? o.deadLetterStream! : o.stream,
      group: o.group,
      consumer: this.#consumer,
      deleteAcknowledged: o.deleteAcknowledgedEntries,
      minimumIdleTimeMs: o.minimumIdleTimeMs,
      first: this.#first,
      last: this.#last,
      completions: this.#args,
    };
    this.#queued = [];
    this.#args = [];
    this.#letters = false;
    const listener = this.#listener;
    const send = (target: CommandTarget) => this.#send(target, batch, o);
    const completed = (reply: WorkerCompleteReply) => {
      for (let i = 0; i < queued.length; i++) listener.completed(queued[i]!, outcomeOf(reply[i]));
    };
    // A lost reply leaves every request of the batch uncertain: each one fails, none is repeated.
    const failed = (error: unknown) => {
      for (const request of queued) listener.failed(request, error);
    };
    this.#lastOutcome = this.#sendFirst(send).then(completed, (error: unknown) =>
      retryingAfter(o.logger, 'StreamWorker completion', error, () => send(o.completionTarget), { consumer: this.#consumer }).then(completed, failed),
    );
  }

  /** Settles once the batches sent so far have told each request its outcome. */
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
    const o = this.#options;
    const connection = this.#connection();
    if (connection === undefined || connection.closed) return send(o.completionTarget);
    const held = connection.heldByServer(o.target, o.stream, COMPLETION_DEADLINE_MS);
    const attempt = replyWithin(send(connection.completionTarget), COMPLETION_DEADLINE_MS, 'StreamWorker completion', held).catch((error: unknown) => {
      // A silent or lost connection is closed (failing a read written behind the batch too): the reader replaces it.
      if (isConnectionFailure(error)) connection.close();
      throw error;
    });
    this.#lastAttempt = attempt.catch(() => {});
    return attempt;
  }
}

/**
 * One request's outcome from its element of `worker-complete`'s reply: acknowledged; left pending
 * for idle recovery or released with XNACK FAIL (both `nack`); dead-lettered; a dead letter whose
 * source body was deleted; stale (also for a reply with no element for it).
 */
export function outcomeOf(element: WorkerCompleteReply[number] | undefined): CompletionOutcome {
  switch (element) {
    case 'acknowledged':
      return 'ack';
    case 'pending':
    case 'released':
      return 'nack';
    case 'deadLettered':
      return 'dead-letter';
    case 'deleted':
      return 'deleted';
    default:
      return 'stale';
  }
}
