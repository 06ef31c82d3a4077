// One reader: its connection, reads, recovery pages and startup replay, and the settling of each delivery.
import { setMaxListeners } from 'node:events';
import { MAX_DURATION_MS, type DeliveryOutcome } from '@respire/core-scripts';
import { TransientBackoff, isConnectionFailure, isTransient, replyCode, replyWithin, scriptCalls, sleep, type RawEntry } from '@respire/core-scripts/internal';
import { Completions, type CompletionListener } from './completion.js';
import { parseReadReply } from './read-reply.js';
import { settledWithin } from './settled.js';
import type { OwnedConnection } from './connections.js';
import type { RunContext } from './context.js';
import { TRIM_ACKNOWLEDGED_PER_PAGE } from './options.js';
import { deliver, type Delivery, type FinishedListener } from './delivery.js';
import { recoverMissingGroup, withGroup } from './group.js';
import { endDeliveryTelemetry, safeHook } from './instrumentation.js';
import { exceptionType, safeLog } from './logger.js';
import { retryingTransient, transientBackoff } from './retry.js';
import { disposeScope } from './scope.js';

/** Extra client-side time beyond BLOCK before a read that never returns is abandoned (ms). */
const READ_DEADLINE_MARGIN_MS = 2000;
/** The longest BLOCK: BLOCK + margin (+ the transport's few ms) must fit a timer, at most 2^31-1 ms. */
const MAX_BLOCK_MS = MAX_DURATION_MS - READ_DEADLINE_MARGIN_MS - 1000;
/**
 * How long a reader keeps trying to replace a lost connection (refused or dropped connects,
 * transient replies) before it faults (ms); at start() a refused connection fails at once.
 */
export const CONNECT_DEADLINE_MS = 10_000;
/** The longest stop() waits for a batch unanswered on a connection it must close, or for its outcome once closed (ms). */
export const ANSWER_WAIT_MS = 1000;
/** Wait after a dropped read before reconnecting (ms). */
const RECONNECT_DELAY_MS = 100;

/**
 * One reader: a consumer name, a blocking connection, a recovery cursor. It replays its own
 * pending entries once (stable names), then alternates recovery pages and blocking reads. Each
 * entry it reads flows one way: the delivery runs the handler and decides its completion
 * (delivery.ts), the reader's completions send it with the read's others as one fenced batch on
 * the reader's own connection (completion.ts), and the batch's reply comes back here, where the
 * attempt is settled: its scope disposed, its telemetry ended, its hold released.
 *
 * Failover and restarts (nothing is lost: entries are unread or pending):
 * - a connection that drops, or a read with no reply within BLOCK + 2 s that the server does not
 *   hold (connections.ts `heldByServer`: a pause is waited for), is replaced (retrying
 *   refused connects for up to {@link CONNECT_DEADLINE_MS}); a batch of completions whose reply
 *   it took with it has an unknown outcome and faults the worker (completion.ts);
 * - `UNBLOCKED` (CLIENT UNBLOCK ... ERROR) delivered nothing: read again;
 * - transient replies (`BUSY`, `LOADING`, `TRYAGAIN`, `MASTERDOWN`, `CLUSTERDOWN`) delivered
 *   nothing: read again with backoff, faulting once they last past the deadline (retry.ts);
 * - `NOGROUP`: the group is recreated when `createGroup`, else the worker faults;
 * - other error replies (`READONLY`, `NOPERM`, ...) and failures that are neither replies nor a
 *   lost connection fault the worker (README "Faults, shutdown and failover").
 * All scheduling uses the monotonic clock (`performance.now()`), never the wall clock.
 */
export class Reader {
  readonly consumer: string;
  readonly #ctx: RunContext;
  readonly #replay: boolean;
  readonly #completions: Completions<Delivery>;
  /** The deliveries of the last batch, settled once their completions are (see {@link Reader.#handleAll}). */
  #previous: Promise<void> = Promise.resolve();
  /** True when the last batch had several entries: the next read need not wait for its completion. */
  #readAhead = false;
  #connection: OwnedConnection | undefined;
  #parked: Promise<unknown> | undefined;
  #cursor = '0-0';
  /** When the next recovery page is due, on the `performance.now()` clock. */
  #nextRecovery = 0;
  /** Transient replies to reads, in a row. */
  readonly #readBackoff = transientBackoff();

  constructor(ctx: RunContext, consumer: string, replay: boolean) {
    this.#ctx = ctx;
    this.consumer = consumer;
    this.#replay = replay;
    const settle: CompletionListener<Delivery> = {
      completed: (d, outcome) => this.#settle(d, outcome, undefined),
      failed: (d, error) => this.#settle(d, 'error', error),
    };
    // Completions go on this reader's connection while it has one (see completion.ts).
    this.#completions = new Completions(ctx.options, consumer, () => this.#connection, settle);
  }

  /** Opens this reader's blocking connection; a refusal fails at once with the server's reply. */
  async connect(deadlineMs = CONNECT_DEADLINE_MS): Promise<void> {
    this.#connection = await this.#ctx.connections.open(this.#ctx.options.stream, deadlineMs, (error) =>
      safeLog(this.#ctx.options.logger, 'debug', 'reader connection error', { consumer: this.consumer, exceptionType: exceptionType(error) }),
    );
  }

  /** Settles once every batch of completions sent so far has its outcome (acknowledged, stale or failed). */
  completed(): Promise<unknown> {
    return this.#completions.completed();
  }

  closeConnection(): void {
    this.#connection?.close();
    this.#connection = undefined;
  }

  /** The loop; a failure faults the run. Resolves when the run stops. */
  async run(): Promise<void> {
    const o = this.#ctx.options;
    try {
      if (this.#replay) await this.#replayOwn();
      this.#nextRecovery = performance.now();
      while (!this.#ctx.stopping) {
        const now = performance.now();
        if (now >= this.#nextRecovery) {
          this.#nextRecovery = now + o.recoveryPollIntervalMs;
          await this.#recoverPage();
          continue;
        }
        // Bound BLOCK by the time left until the next recovery page, so a parked reader still
        // recovers on time (CONFORMANCE.md); BLOCK and the read's deadline take whole milliseconds.
        const block = Math.max(1, Math.min(o.readWaitMs, Math.ceil(this.#nextRecovery - now), MAX_BLOCK_MS));
        // A read of several entries (a backlog) has its completion written together with the next
        // read. A single entry (batchSize 1, or a stream that has caught up) is completed before the
        // next read, so its acknowledgement never waits while Redis serves that read.
        if (!this.#readAhead) await this.#previous;
        await this.#handleAll(await this.#read(block));
      }
    } catch (error) {
      // A transient reply still being repeated when stop() came proves nothing ran: not a fault.
      if (!(this.#ctx.stopping && isTransient(error))) this.#ctx.fault(error);
    } finally {
      // The last batch's completions are answered before the connection they went on is closed.
      await this.#previous;
      // A connection replaced while stopping would otherwise outlive stop().
      if (this.#ctx.stopping) this.closeConnection();
    }
  }

  /**
   * Handlers run one after another. Their completions queue up and go to Redis as one batch once
   * the read is dispatched (completion.ts), written together with the next read when the batch had
   * several entries; the reader waits for that batch's deliveries to finish before it handles the
   * next batch, so it holds at most `batchSize` entries not yet handed to a handler and one batch
   * whose completion is in flight.
   */
  async #handleAll(entries: readonly RawEntry[]): Promise<void> {
    await this.#previous;
    if (entries.length === 0) return;
    const ctx = this.#ctx;
    const newest = ctx.newest;
    for (const raw of entries) newest.hold(raw.id, raw.deliveryCount);
    // One controller for the read's handlers (they run one at a time), aborted at the shutdown
    // timeout; the listener count that warns of a leak scales with the handlers sharing it.
    const controller = new AbortController();
    if (entries.length > 10) setMaxListeners(10 * entries.length, controller.signal);
    ctx.inflight.add(controller);
    const finishing = new Countdown();
    let next = 0;
    try {
      for (; next < entries.length; next++) {
        const raw = entries[next]!;
        // Undispatched entries stay pending when the worker stops.
        if (ctx.stopping) return;
        // A sibling reader recovered this prefetched entry while it waited here: that newer delivery
        // is (or was) handled, so this one would only run the handler twice and fail the fence.
        if (newest.superseded(raw.id, raw.deliveryCount)) {
          safeLog(ctx.options.logger, 'debug', 'prefetched entry superseded by a newer delivery in this worker; skipped', {
            entryId: raw.id,
            consumer: this.consumer,
          });
          newest.release(raw.id);
          continue;
        }
        finishing.add();
        let d = deliver(ctx, raw, this.consumer, controller.signal, finishing);
        if (d instanceof Promise) {
          this.#completions.flushSoon();
          d = await d;
        }
        if (d.action !== undefined) this.#completions.add(d);
        else this.#settle(d, d.fault === undefined ? 'canceled' : 'error', d.fault);
      }
    } finally {
      // Every handler dispatched from this read has returned by now.
      ctx.inflight.delete(controller);
      for (; next < entries.length; next++) if (ctx.stopping) newest.release(entries[next]!.id);
      this.#completions.flush();
      this.#previous = finishing.close();
      this.#readAhead = entries.length > 1;
    }
  }

  /**
   * A delivery's attempt ends: told its completion's outcome (or it needed none: `canceled`, or a
   * fault). Its scope is disposed after the completion (README "Results"), and a disposal failure
   * is the fault unless one is already in flight; then its telemetry ends and a fault stops the run.
   */
  #settle(d: Delivery, outcome: DeliveryOutcome, fault: unknown): void {
    const o = this.#ctx.options;
    if (outcome === 'dead-letter') safeHook(() => o.instrumentation?.deadLettered?.({ telemetryName: o.telemetryName, reason: d.reason! }));
    else if (outcome === 'stale') {
      safeLog(o.logger, 'debug', 'delivery was recovered by another owner or attempt; not completed', {
        entryId: d.id,
        consumer: this.consumer,
        deliveryCount: d.deliveryCount,
      });
    }
    if (d.scope !== undefined) void this.#disposeThenFinish(d, outcome, fault);
    else this.#finish(d, outcome, fault);
  }

  async #disposeThenFinish(d: Delivery, outcome: DeliveryOutcome, fault: unknown): Promise<void> {
    try {
      await disposeScope(d.scope);
    } catch (error) {
      if (fault === undefined) fault = error;
    }
    this.#finish(d, outcome, fault);
  }

  #finish(d: Delivery, outcome: DeliveryOutcome, fault: unknown): void {
    this.#ctx.newest.release(d.id);
    if (d.telemetry !== undefined) endDeliveryTelemetry(d.telemetry, outcome, d.exceptionType, fault);
    if (fault !== undefined) this.#ctx.fault(fault);
    d.finishing.finished();
  }

  /** A stable name replays its own pending entries once at startup, before new entries (README "Options": `consumerName`). */
  async #replayOwn(): Promise<void> {
    const o = this.#ctx.options;
    let after = '-';
    while (!this.#ctx.stopping) {
      await this.#previous; // the last page's completions apply before the next page is claimed
      const reply = await retryingTransient(
        o.logger,
        'StreamWorker startup replay',
        () =>
          withGroup(o, () =>
            scriptCalls.workerReplay(
              o.target,
              { stream: o.stream, group: o.group, consumer: this.consumer, after, count: o.batchSize },
              { operation: 'StreamWorker startup replay' },
            ),
          ),
        this.#ctx.stopSignal,
        { consumer: this.consumer },
      );
      if (reply.last === '') return;
      after = reply.last;
      await this.#handleAll(reply.entries);
    }
  }

  /** One recovery page: at most one per interval, of up to `batchSize` entries (README "Options": `recoveryPollIntervalMs`). */
  async #recoverPage(): Promise<void> {
    const o = this.#ctx.options;
    // A claim must not meet this reader's own completions still in flight: they apply first.
    await this.#previous;
    const reply = await retryingTransient(
      o.logger,
      'StreamWorker recovery',
      () =>
        withGroup(o, () =>
          scriptCalls.workerRecover(
            o.target,
            { stream: o.stream, group: o.group, consumer: this.consumer, minimumIdleTimeMs: o.minimumIdleTimeMs, cursor: this.#cursor, count: o.batchSize },
            { operation: 'StreamWorker recovery' },
          ),
        ),
      this.#ctx.stopSignal,
      { consumer: this.consumer },
    );
    this.#cursor = reply.cursor === '' ? '0-0' : reply.cursor;
    const removed = reply.removed;
    if (removed > 0) safeLog(o.logger, 'debug', 'removed pending IDs whose bodies were deleted', { consumer: this.consumer, removed });
    await this.#handleAll(reply.entries);
    if (o.trimAcknowledgedEntries) await this.#trimAcknowledged();
  }

  /**
   * One bounded trim of the entries every group of the stream has acknowledged (the
   * `trimAcknowledgedEntries` option). Retention is housekeeping: a failure is logged and the next
   * page tries again; it never faults the worker.
   */
  async #trimAcknowledged(): Promise<void> {
    const o = this.#ctx.options;
    try {
      const trimmed = await scriptCalls.workerTrim(o.target, { stream: o.stream, limit: TRIM_ACKNOWLEDGED_PER_PAGE }, { operation: 'StreamWorker trim' });
      if (trimmed > 0) safeLog(o.logger, 'debug', 'trimmed entries every group has acknowledged', { consumer: this.consumer, trimmed });
    } catch (error) {
      const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
      safeLog(o.logger, 'warn', 'trimming acknowledged entries failed; trying again at the next recovery page', {
        consumer: this.consumer,
        exceptionType: exceptionType(error),
        ...(code === undefined ? {} : { code }),
      });
    }
  }

  async #read(block: number): Promise<RawEntry[]> {
    const o = this.#ctx.options;
    if ((!this.#connection || this.#connection.closed) && !(await this.#reconnect())) return [];
    // Stopping: the loop ends, and closes the connection once the batch written on it is answered.
    if (this.#ctx.stopping) return [];
    const key = o.stream;
    // No node-redis timer per read (timeoutMs 0; node-redis drops a command's timeout once it is
    // written anyway): the deadline of a parked read is this one, BLOCK plus a margin, after which
    // the connection is destroyed and replaced.
    const connection = this.#connection!;
    const deadlineMs = block + READ_DEADLINE_MARGIN_MS;
    const read = replyWithin(
      connection.target.send(key, ['XREADGROUP', 'GROUP', o.group, this.consumer, 'COUNT', String(o.batchSize), 'BLOCK', String(block), 'STREAMS', key, '>'], {
        binary: true,
        timeoutMs: 0,
        operation: 'StreamWorker read',
      }),
      deadlineMs,
      'StreamWorker read',
      // Past BLOCK + margin the server holds the read only while it is paused or stalled.
      connection.heldByServer(o.target, key, deadlineMs),
    );
    this.#parked = read;
    try {
      const entries = parseReadReply(await read);
      this.#readBackoff.reset();
      return entries;
    } catch (error) {
      const code = replyCode(error);
      if (code !== undefined) return await this.#onReadReply(code, error);
      if (this.#ctx.stopping) return [];
      // Anything but a lost connection (a bad argument, a bug) is a fault naming it, not a reconnect loop.
      if (!isConnectionFailure(error)) throw error;
      // The connection dropped or the read never returned within BLOCK + margin: entries it may have
      // taken stay pending to this consumer and are recovered after the minimum idle time. A batch of
      // completions still unanswered on it fails with it (an unknown outcome: a fault, completion.ts).
      safeLog(o.logger, 'warn', 'reader connection lost; reconnecting', { consumer: this.consumer, exceptionType: exceptionType(error) });
      this.closeConnection();
      await sleep(RECONNECT_DELAY_MS, this.#ctx.stopSignal);
      return [];
    } finally {
      this.#parked = undefined;
    }
  }

  /**
   * Replaces a lost connection, repeating refused or dropped connects and transient replies with
   * backoff for up to {@link CONNECT_DEADLINE_MS}. False when the run stopped meanwhile.
   * @throws {@link RespireError} the server's reply (`WRONGPASS`, `NOAUTH`, ...) at once, or the last
   *   failure once the deadline has passed; nothing was sent.
   */
  async #reconnect(): Promise<boolean> {
    const began = performance.now();
    const backoff = new TransientBackoff({ deadlineMs: CONNECT_DEADLINE_MS, retryable: (e) => isConnectionFailure(e) || isTransient(e) });
    for (;;) {
      try {
        await this.connect(Math.max(1, Math.ceil(CONNECT_DEADLINE_MS - (performance.now() - began))));
        return true;
      } catch (error) {
        if (this.#ctx.stopping) return false;
        await sleep(backoff.next(error), this.#ctx.stopSignal);
        if (this.#ctx.stopping) return false;
      }
    }
  }

  /** A read answered with an error reply: read again when it delivered nothing, else fault. */
  async #onReadReply(code: string, error: unknown): Promise<RawEntry[]> {
    const o = this.#ctx.options;
    if (code === 'UNBLOCKED') return []; // ended deliberately (ours on stop, or an operator's): nothing was delivered
    if (code === 'NOGROUP') {
      if (this.#ctx.stopping) return [];
      if (o.createGroup) safeLog(o.logger, 'warn', 'consumer group missing (stream or group deleted); recreating it', { stream: o.stream, group: o.group });
      await recoverMissingGroup(o, error, this.#ctx.stopSignal);
      return [];
    }
    if (isTransient(error)) {
      // BUSY, LOADING, ...: the read did not run and delivered nothing. Read again after a backoff;
      // once such replies have lasted past the deadline, this throws the last one (a fault).
      const delay = this.#readBackoff.next(error);
      if (this.#readBackoff.attempts === 1)
        safeLog(o.logger, 'warn', `StreamWorker read: the server answered ${code}; reading again`, { consumer: this.consumer });
      await sleep(delay, this.#ctx.stopSignal);
      return [];
    }
    // READONLY, NOPERM and other replies: a read failure faults the worker (README "Faults, shutdown and failover").
    throw error;
  }

  /**
   * Ends a parked read with CLIENT UNBLOCK ... ERROR of this reader's connection ID (sent on the caller's
   * client), else closes the connection, after waiting up to `waitMs` (at most
   * {@link ANSWER_WAIT_MS}) for a batch of completions still unanswered on it.
   */
  async interrupt(waitMs: number): Promise<void> {
    const o = this.#ctx.options;
    for (let attempt = 0; this.#parked && attempt < 40; attempt++) {
      const parked = this.#parked;
      const id = this.#connection?.clientId;
      if (id !== undefined) {
        try {
          // ERROR, not the default TIMEOUT: Redis 7.0 and Valkey 8.0 crash on a TIMEOUT unblock of a
          // read held by CLIENT PAUSE WRITE; the read then ends with UNBLOCKED, which delivered nothing.
          await o.target.send(o.stream, ['CLIENT', 'UNBLOCK', id, 'ERROR'], { node: true });
        } catch {
          break; // not permitted or failed: fall back to closing the connection
        }
      }
      await Promise.race([parked.catch(() => {}), sleep(25)]);
    }
    if (this.#parked) {
      // The batch written ahead of the parked read is answered first: closing before its reply
      // would make its outcome unknown. A healthy connection answers within a round trip; a
      // silent one is closed after a short wait, its batch's outcome unknown either way.
      await settledWithin(this.#completions.answered(), Math.min(waitMs, ANSWER_WAIT_MS));
      this.closeConnection();
    }
  }
}

/** Counts a read's deliveries still finishing; {@link Countdown.close} gives the promise of the last one. */
class Countdown implements FinishedListener {
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
