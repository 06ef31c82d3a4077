import { setMaxListeners } from 'node:events';
import { MAX_DURATION_MS, RespireTransportError } from '@respire/core-scripts';
import { parseReadReply, replyCode, replyString, scriptCalls, parseEntries, type RawEntry } from '@respire/core-scripts/internal';
import { Completions } from './completion.js';
import type { OwnedConnection } from './connections.js';
import type { RunContext } from './context.js';
import { Countdown, deliver } from './delivery.js';
import { recoverMissingGroup, withGroup } from './group.js';
import { exceptionType, safeLog } from './logger.js';

/** Extra client-side time beyond BLOCK before a read that never returns is abandoned (ms). */
const READ_DEADLINE_MARGIN_MS = 2000;
/** How long a reader waits for a new blocking connection before it faults (ms). */
export const CONNECT_DEADLINE_MS = 10_000;
/** Backoff after a dropped read or a LOADING reply before reading again (ms). */
const RETRY_BACKOFF_MS = 100;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One reader: a consumer name, a blocking connection, a recovery cursor. It replays its own
 * pending entries once (stable names), then alternates recovery pages and blocking reads, and
 * hands each batch to the delivery pipeline one entry after another.
 *
 * Failover and restarts (nothing is lost: entries are unread or pending):
 * - a connection that drops, or a read with no reply within BLOCK + 2 s, is replaced;
 * - `UNBLOCKED` (CLIENT UNBLOCK ... ERROR) and `LOADING` replies delivered nothing: read again;
 * - `NOGROUP`: the group is recreated when `createGroup`, else the worker faults;
 * - other error replies (`READONLY`, `NOPERM`, ...) fault the worker (seed 002 "Faults").
 */
export class Reader {
  readonly consumer: string;
  readonly #ctx: RunContext;
  readonly #replay: boolean;
  readonly #completions: Completions;
  /** The deliveries of the last batch, settled once their completions are (see {@link Reader.#handleAll}). */
  #previous: Promise<void> = Promise.resolve();
  /** True when the last batch had several entries: the next read need not wait for its completion. */
  #readAhead = false;
  #connection: OwnedConnection | undefined;
  #parked: Promise<unknown> | undefined;
  #cursor = '0-0';
  #nextRecovery = 0;

  constructor(ctx: RunContext, consumer: string, replay: boolean) {
    this.#ctx = ctx;
    this.consumer = consumer;
    this.#replay = replay;
    // Completions go on this reader's connection while it has one (see completion.ts).
    this.#completions = new Completions(ctx.options, consumer, () =>
      this.#connection && !this.#connection.closed ? this.#connection.target : ctx.options.target,
    );
  }

  async connect(): Promise<void> {
    this.#connection = await this.#ctx.connections.open(CONNECT_DEADLINE_MS, (error) =>
      safeLog(this.#ctx.options.logger, 'debug', 'reader connection error', { consumer: this.consumer, exceptionType: exceptionType(error) }),
    );
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
      this.#nextRecovery = Date.now();
      while (!this.#ctx.stopping) {
        const now = Date.now();
        if (now >= this.#nextRecovery) {
          this.#nextRecovery = now + o.recoveryPollIntervalMs;
          await this.#recoverPage();
          continue;
        }
        // Bound BLOCK by the time left until the next recovery page (DESIGN.md open point).
        const block = Math.max(1, Math.min(o.readWaitMs, this.#nextRecovery - now, MAX_DURATION_MS - READ_DEADLINE_MARGIN_MS));
        // A read of several entries (a backlog) has its completion written together with the next
        // read. A single entry (batchSize 1, or a stream that has caught up) is completed before the
        // next read, so its acknowledgement never waits while Redis serves that read.
        if (!this.#readAhead) await this.#previous;
        await this.#handleAll(await this.#read(block));
      }
    } catch (error) {
      this.#ctx.fault(error);
    } finally {
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
        const handling = deliver(ctx, this.#completions, raw, controller.signal, finishing);
        if (handling) {
          this.#completions.flushSoon();
          await handling;
        }
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

  /** Seed 002: a stable name replays its own pending entries once at startup, before new entries. */
  async #replayOwn(): Promise<void> {
    const o = this.#ctx.options;
    let after = '-';
    while (!this.#ctx.stopping) {
      await this.#previous; // the last page's completions apply before the next page is claimed
      const reply = (await withGroup(o, () =>
        scriptCalls.workerReplay(
          o.target,
          { stream: o.stream, group: o.group, consumer: this.consumer, after, count: o.batchSize },
          { binary: true, operation: 'StreamWorker startup replay' },
        ),
      )) as unknown[];
      const last = replyString(reply[0]);
      if (last === '') return;
      after = last;
      await this.#handleAll(parseEntries(reply[1]));
    }
  }

  /** One recovery page (seed 002: at most one per interval, of up to `batchSize` entries). */
  async #recoverPage(): Promise<void> {
    const o = this.#ctx.options;
    // A claim must not meet this reader's own completions still in flight: they apply first.
    await this.#previous;
    const reply = (await withGroup(o, () =>
      scriptCalls.workerRecover(
        o.target,
        { stream: o.stream, group: o.group, consumer: this.consumer, minimumIdleTimeMs: o.minimumIdleTimeMs, cursor: this.#cursor, count: o.batchSize },
        { binary: true, operation: 'StreamWorker recovery' },
      ),
    )) as unknown[];
    const cursor = replyString(reply[0]);
    this.#cursor = cursor === '' ? '0-0' : cursor;
    const removed = Number(reply[2]);
    if (removed > 0) safeLog(o.logger, 'debug', 'removed pending IDs whose bodies were deleted', { consumer: this.consumer, removed });
    await this.#handleAll(parseEntries(reply[1]));
  }

  async #read(block: number): Promise<RawEntry[]> {
    const o = this.#ctx.options;
    if (!this.#connection || this.#connection.closed) {
      try {
        await this.connect();
      } catch (error) {
        if (this.#ctx.stopping) return []; // stop() closed it while it connected
        throw new RespireTransportError(`StreamWorker read: could not reconnect the reader (${exceptionType(error)})`, { cause: error });
      }
    }
    if (this.#ctx.stopping) {
      this.closeConnection();
      return [];
    }
    const connection = this.#connection!;
    const target = connection.target;
    const key = o.stream;
    // CLIENT UNBLOCK needs the connection's ID: asked once per socket, in the same write as the read.
    const idPromise =
      connection.clientId === undefined
        ? target.send(key, ['CLIENT', 'ID']).then(
            (id) => void (connection.clientId = replyString(id)),
            () => undefined,
          )
        : undefined;
    // Timers take at most 2^31-1 ms (a larger value fires at once): BLOCK is bounded so this fits.
    const deadlineMs = block + READ_DEADLINE_MARGIN_MS;
    // No node-redis timeout (it would arm a timer per read): the deadline below covers the read
    // whether or not it was written.
    const read = target.send(
      key,
      ['XREADGROUP', 'GROUP', o.group, this.consumer, 'COUNT', String(o.batchSize), 'BLOCK', String(block), 'STREAMS', key, '>'],
      { binary: true, timeoutMs: 0, operation: 'StreamWorker read' },
    );
    this.#parked = read;
    read.catch(() => {});
    // node-redis drops a command's timeout once it is written, so the client-side deadline of a
    // parked read is ours: BLOCK plus a margin, then the connection is destroyed and replaced.
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RespireTransportError(`StreamWorker read: no reply within BLOCK ${block} ms + ${READ_DEADLINE_MARGIN_MS} ms`)),
        deadlineMs,
      );
    });
    try {
      if (idPromise) await Promise.race([idPromise, deadline]);
      return parseReadReply(await Promise.race([read, deadline]));
    } catch (error) {
      const code = replyCode(error);
      if (code !== undefined) return this.#onReadReply(code, error);
      if (this.#ctx.stopping) return [];
      // The connection dropped or the read never returned within BLOCK + margin: entries it may have
      // taken stay pending to this consumer and are recovered after the minimum idle time.
      safeLog(o.logger, 'warn', 'reader connection lost; reconnecting', { consumer: this.consumer, exceptionType: exceptionType(error) });
      this.closeConnection();
      await sleep(RETRY_BACKOFF_MS);
      return [];
    } finally {
      clearTimeout(timer);
      this.#parked = undefined;
    }
  }

  /** A read answered with an error reply: read again when it delivered nothing, else fault. */
  async #onReadReply(code: string, error: unknown): Promise<RawEntry[]> {
    const o = this.#ctx.options;
    if (code === 'UNBLOCKED') return []; // ended deliberately (ours on stop, or an operator's): nothing was delivered
    if (code === 'LOADING') {
      // The server is loading its data after a restart: the read did not run; nothing was delivered.
      safeLog(o.logger, 'warn', 'server is loading; reading again', { consumer: this.consumer });
      await sleep(RETRY_BACKOFF_MS);
      return [];
    }
    if (code === 'NOGROUP') {
      if (this.#ctx.stopping) return [];
      if (o.createGroup) safeLog(o.logger, 'warn', 'consumer group missing (stream or group deleted); recreating it', { stream: o.stream, group: o.group });
      await recoverMissingGroup(o, error);
      return [];
    }
    // READONLY, NOPERM and other replies: a read failure faults the worker (seed 002 "Faults").
    throw error;
  }

  /** Ends a parked read with CLIENT UNBLOCK of this reader's connection ID (sent on the caller's client). */
  async interrupt(): Promise<void> {
    const o = this.#ctx.options;
    for (let attempt = 0; this.#parked && attempt < 40; attempt++) {
      const parked = this.#parked;
      const id = this.#connection?.clientId;
      if (id !== undefined) {
        try {
          await o.target.send(o.stream, ['CLIENT', 'UNBLOCK', id]);
        } catch {
          break; // not permitted or failed: fall back to closing the connection
        }
      }
      await Promise.race([parked.catch(() => {}), sleep(25)]);
    }
    if (this.#parked) this.closeConnection();
  }
}
