import { randomBytes } from 'node:crypto';
import {
  RespireServerError,
  RespireTransportError,
  RespireValidationError,
  isErrorReply,
  isRespireError,
  toDurationMs,
  toRespireError,
} from '@respire/core-scripts';
import { allValues, toEntry, type StreamEntry } from './entry.js';
import {
  safeHook,
  type DeadLetterReason,
  type DeliveryOutcome,
  type DeliveryScope,
  type WorkerInfo,
} from './instrumentation.js';
import { exceptionType, safeLog } from './logger.js';
import {
  MAX_DEAD_LETTER_FIELD_PAIRS,
  resolveOptions,
  type ResolvedOptions,
  type StreamHandler,
  type StreamWorkerOptions,
  type StreamWorkerScope,
} from './options.js';
import { OwnedConnection, infoField, parseReadReply, replyCode, replyString, sendRaw, workerScripts, type RawEntry } from './redis.js';

/** Extra client-side time beyond BLOCK before a read that never returns is abandoned (ms). */
const READ_DEADLINE_MARGIN_MS = 2000;
/** The longest delay a Node.js timer takes. */
const MAX_TIMER_MS = 2_147_483_647;
/** How long a reader waits for a new blocking connection before it faults (ms). */
const CONNECT_DEADLINE_MS = 10_000;
/** Backoff after a dropped read or a LOADING reply before reading again (ms). */
const RETRY_BACKOFF_MS = 100;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The worker's life cycle. */
export type StreamWorkerState = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

/**
 * Hosted Redis Streams consumer (seed 002 "Hosted stream consumers"): `consumerCount` readers, each
 * on its own blocking connection (a duplicate of your client that the worker owns and closes), read
 * the consumer group in batches of `batchSize`, hand each entry to the handler in sequence, and
 * complete it by its result with a fenced script: acknowledged, dead-lettered or released only while
 * it is still pending to that reader at that delivery count. Idle pending entries are recovered with
 * XAUTOCLAIM (XREADGROUP CLAIM on Redis 8.4+), one page per reader per `recoveryPollIntervalMs`.
 *
 * Faults (scope creation or disposal, read, acknowledgement and dead-letter failures, a lost reply)
 * stop the worker: {@link StreamWorker.done} rejects with the cause, a `RespireError`.
 *
 * Failover and restarts (nothing is lost in any case: entries are unread or pending):
 * - a reader whose connection drops, or whose read gets no reply within BLOCK + 2 s, reconnects
 *   with a fresh duplicate and reads again;
 * - `UNBLOCKED` (CLIENT UNBLOCK ... ERROR) and `LOADING` replies delivered nothing: read again;
 * - `READONLY` (a demoted master) and other error replies fault the worker;
 * - `NOGROUP` (group destroyed, or stream deleted): recreated at `groupStart` when `createGroup`,
 *   else a fault. Respire never runs XGROUP DELCONSUMER.
 *
 * @example
 * ```ts
 * const worker = new StreamWorker({
 *   client, stream: '{orders}:events', group: 'fulfillment',
 *   handler: async (entry) => { await fulfil(entry.getString('order-id')); return 'ack'; },
 * });
 * await worker.start();
 * ```
 * @throws {RespireValidationError} from the constructor for any invalid option.
 * @throws {RespireCrossSlotError} from the constructor when `deadLetterStream` equals `stream` or is in another slot.
 */
export class StreamWorker<T = StreamEntry> {
  readonly #o: ResolvedOptions;
  #state: StreamWorkerState = 'idle';
  #run: Run | undefined;
  #done: Promise<void> = Promise.resolve();

  constructor(options: StreamWorkerOptions<T>) {
    this.#o = resolveOptions(options as StreamWorkerOptions<unknown>);
  }

  /** The resolved stream key (with the key prefix). */
  get stream(): string {
    return this.#o.stream;
  }

  /** The consumer group. */
  get group(): string {
    return this.#o.group;
  }

  /** The metric and span dimension. */
  get telemetryName(): string {
    return this.#o.telemetryName;
  }

  /** Drain time `stop()` uses by default, in ms (the `shutdownTimeoutMs` option). */
  get shutdownTimeoutMs(): number {
    return this.#o.shutdownTimeoutMs;
  }

  /** The worker's state. */
  get state(): StreamWorkerState {
    return this.#state;
  }

  /** The consumer names of the current (or last) run, one per reader: `<base>-<index>`. */
  get consumerNames(): readonly string[] {
    return this.#run?.readers.map((r) => r.consumer) ?? [];
  }

  /**
   * Settles when the current run stops: resolves after `stop()`, rejects with the fault that stopped
   * the worker. A new promise is created by every `start()`.
   */
  get done(): Promise<void> {
    return this.#done;
  }

  /**
   * Creates the stream and group when `createGroup` (keeping an existing group's position), opens one
   * blocking connection per reader and starts reading. Resolves once the readers run.
   * @throws {RespireServerError} when `createGroup` is false and the group does not exist.
   * @throws {RespireError} for other server or transport failures; nothing is left running.
   */
  async start(): Promise<void> {
    if (this.#state === 'starting' || this.#state === 'running' || this.#state === 'stopping') {
      throw new Error(`StreamWorker.start: the worker is ${this.#state}`);
    }
    this.#state = 'starting';
    const run = new Run(this.#o, this.#o.consumerName ?? `respire-${randomBytes(6).toString('hex')}`);
    this.#run = run;
    this.#done = run.done;
    this.#done.catch(() => {});
    try {
      await run.start();
    } catch (error) {
      this.#state = 'stopped';
      throw error;
    }
    this.#state = 'running';
    void run.done.then(
      () => void (this.#state = 'stopped'),
      () => void (this.#state = 'stopped'),
    );
    run.onStopping = () => {
      if (this.#state === 'running') this.#state = 'stopping';
    };
  }

  /**
   * Stops reading at once (parked reads are ended with CLIENT UNBLOCK), lets in-flight handlers drain,
   * and aborts their signals when `timeoutMs` expires; a handler that ignores the abort keeps its scope
   * until it finishes and its result is not acknowledged. Undispatched entries stay pending. Closes
   * the worker's connections, never the caller's client. Resolves when stopped (also after a fault);
   * the fault itself is reported by {@link StreamWorker.done}.
   * @param timeoutMs - drain time in ms (1..2^31-1). @defaultValue the `shutdownTimeoutMs` option (30000)
   * @throws {RespireValidationError} for an invalid `timeoutMs`; nothing is stopped.
   */
  async stop(timeoutMs?: number): Promise<void> {
    const drainMs = timeoutMs === undefined ? this.#o.shutdownTimeoutMs : toDurationMs('timeoutMs', timeoutMs);
    const run = this.#run;
    if (!run) return;
    await run.stop(drainMs);
  }
}

/** One start..stop of a worker. */
class Run {
  readonly readers: Reader[] = [];
  readonly done: Promise<void>;
  onStopping: (() => void) | undefined;
  readonly #o: ResolvedOptions;
  #resolve!: () => void;
  #reject!: (error: unknown) => void;
  #stopping = false;
  #stopPromise: Promise<void> | undefined;
  #fault: unknown;
  #loops: Promise<void>[] = [];
  #starting: Promise<void> = Promise.resolve();
  readonly inflight = new Set<AbortController>();
  /**
   * Entry ID → the newest delivery count any reader of this run received, and how many readers
   * still hold a delivery of it (so the map stays bounded by the prefetch).
   */
  readonly newestDelivery = new Map<string, { count: number; holders: number }>();
  #hardAborted = false;
  readonly info: WorkerInfo;

  constructor(options: ResolvedOptions, base: string) {
    this.#o = options;
    this.done = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    for (let i = 0; i < options.consumerCount; i++) this.readers.push(new Reader(this, options, `${base}-${i}`, options.consumerName !== undefined));
    const o = options;
    this.info = {
      telemetryName: o.telemetryName,
      stream: o.stream,
      group: o.group,
      metricsPollIntervalMs: o.metricsPollIntervalMs,
      metricsPollTimeoutMs: o.metricsPollTimeoutMs,
      queryGroup: () => queryGroup(o),
    };
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  get hardAborted(): boolean {
    return this.#hardAborted;
  }

  start(): Promise<void> {
    this.#starting = this.#start();
    return this.#starting;
  }

  async #start(): Promise<void> {
    try {
      await ensureGroup(this.#o, false);
      await Promise.all(this.readers.map((r) => r.connect()));
    } catch (error) {
      for (const r of this.readers) r.closeConnection();
      const failure = toRespireError(error, 'StreamWorker.start');
      this.#reject(failure);
      throw failure;
    }
    // stop() during start: the connections just opened are closed by #stop, and nothing runs.
    if (this.#stopping) return;
    safeHook(() => this.#o.instrumentation?.workerStarted?.(this.info));
    this.#loops = this.readers.map((r) => r.run());
  }

  /** Records the first fault and stops the run. */
  fault(error: unknown): void {
    if (this.#fault === undefined) {
      this.#fault = isRespireError(error) ? error : toRespireError(error, 'StreamWorker');
      safeLog(this.#o.logger, 'error', 'stream worker faulted; stopping', {
        stream: this.#o.stream,
        group: this.#o.group,
        exceptionType: exceptionType(error),
        code: (this.#fault as { code?: string }).code,
      });
    }
    void this.stop(this.#o.shutdownTimeoutMs);
  }

  stop(timeoutMs: number): Promise<void> {
    this.#stopPromise ??= this.#stop(timeoutMs);
    return this.#stopPromise;
  }

  async #stop(timeoutMs: number): Promise<void> {
    this.#stopping = true;
    this.onStopping?.();
    // A stop during start() waits for it, so every connection it opened is known and closed here.
    await this.#starting.catch(() => {});
    // Readers stop at once: end parked reads deliberately, so no entry is taken after stop().
    const interrupts = this.readers.map((r) => r.interrupt());
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      Promise.allSettled(this.#loops).then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.#hardAborted = true;
      for (const controller of this.inflight) controller.abort(new Error('StreamWorker shutdown timeout expired'));
      safeLog(this.#o.logger, 'warn', 'shutdown timeout expired; in-flight handlers were aborted and their results will not be acknowledged', {
        stream: this.#o.stream,
        group: this.#o.group,
        inflight: this.inflight.size,
      });
    }
    await Promise.allSettled(interrupts);
    for (const r of this.readers) r.closeConnection();
    safeHook(() => this.#o.instrumentation?.workerStopped?.(this.info));
    if (this.#fault !== undefined) this.#reject(this.#fault);
    else this.#resolve();
  }
}

/** One reader: a consumer name, a blocking connection, a recovery cursor. */
class Reader {
  readonly consumer: string;
  readonly #run: Run;
  readonly #o: ResolvedOptions;
  readonly #replay: boolean;
  #connection: OwnedConnection | undefined;
  #clientId: string | undefined;
  #parked: Promise<unknown> | undefined;
  #cursor = '0-0';
  #nextRecovery = 0;

  constructor(run: Run, options: ResolvedOptions, consumer: string, replay: boolean) {
    this.#run = run;
    this.#o = options;
    this.consumer = consumer;
    this.#replay = replay;
  }

  async connect(): Promise<void> {
    this.#connection = await OwnedConnection.open(this.#o.client, CONNECT_DEADLINE_MS, (error) =>
      safeLog(this.#o.logger, 'debug', 'reader connection error', { consumer: this.consumer, exceptionType: exceptionType(error) }),
    );
  }

  closeConnection(): void {
    this.#connection?.close();
    this.#connection = undefined;
    this.#clientId = undefined;
  }

  async run(): Promise<void> {
    try {
      if (this.#replay) await this.#replayOwn();
      this.#nextRecovery = Date.now();
      while (!this.#run.stopping) {
        const now = Date.now();
        if (now >= this.#nextRecovery) {
          this.#nextRecovery = now + this.#o.recoveryPollIntervalMs;
          await this.#recoverPage();
          continue;
        }
        // Bound BLOCK by the time left until the next recovery page (DESIGN.md open point).
        const block = Math.max(1, Math.min(this.#o.readWaitMs, this.#nextRecovery - now, MAX_TIMER_MS - READ_DEADLINE_MARGIN_MS));
        const entries = await this.#read(block);
        await this.#handleAll(entries);
      }
    } catch (error) {
      this.#run.fault(error);
    } finally {
      // A connection replaced while stopping would otherwise outlive stop().
      if (this.#run.stopping) this.closeConnection();
    }
  }

  async #handleAll(entries: readonly RawEntry[]): Promise<void> {
    const newest = this.#run.newestDelivery;
    for (const raw of entries) {
      const seen = newest.get(raw.id) ?? { count: 0, holders: 0 };
      seen.count = Math.max(seen.count, raw.deliveryCount);
      seen.holders++;
      newest.set(raw.id, seen);
    }
    // Handlers run one after another; the completion of one (ack, release or dead-letter script)
    // overlaps the next handler, and the batch's completions all settle before the next read,
    // so prefetch stays bounded by consumerCount × batchSize.
    const completions: Promise<unknown>[] = [];
    let next = 0;
    try {
      for (; next < entries.length; next++) {
        const raw = entries[next]!;
        // Undispatched entries stay pending when the worker stops.
        if (this.#run.stopping) return;
        // A sibling reader recovered this prefetched entry while it waited here: that newer delivery
        // is (or was) handled, so this one would only run the handler twice and fail the fence.
        if (newest.get(raw.id)!.count > raw.deliveryCount) {
          safeLog(this.#o.logger, 'debug', 'prefetched entry superseded by a newer delivery in this worker; skipped', { entryId: raw.id, consumer: this.consumer });
          this.#release(raw.id);
          continue;
        }
        let handled!: () => void;
        const handlerReturned = new Promise<void>((resolve) => (handled = resolve));
        const delivery = handleDelivery(this.#run, this.#o, this.consumer, raw, handled).finally(() => this.#release(raw.id));
        const settled = delivery.catch((error: unknown) => this.#run.fault(error));
        completions.push(settled);
        await Promise.race([handlerReturned, settled]);
      }
    } finally {
      for (; next < entries.length; next++) if (this.#run.stopping) this.#release(entries[next]!.id);
      await Promise.all(completions);
    }
  }

  /** Forgets one reader's hold on an entry's newest delivery count once it is handled or skipped. */
  #release(id: string): void {
    const seen = this.#run.newestDelivery.get(id);
    if (seen && --seen.holders <= 0) this.#run.newestDelivery.delete(id);
  }

  /** Seed 002: a stable name replays its own pending entries once at startup, before new entries. */
  async #replayOwn(): Promise<void> {
    let after = '-';
    while (!this.#run.stopping) {
      const page = await this.#withGroup(() =>
        workerScripts.replay(this.#o.target, this.#o.stream, this.#o.group, this.consumer, after, this.#o.batchSize),
      );
      if (page.last === '') return;
      after = page.last;
      await this.#handleAll(page.entries);
    }
  }

  async #recoverPage(): Promise<void> {
    const page = await this.#withGroup(() =>
      workerScripts.recover(this.#o.target, this.#o.stream, this.#o.group, this.consumer, this.#o.minimumIdleTimeMs, this.#cursor, this.#o.batchSize),
    );
    this.#cursor = page.cursor === '' ? '0-0' : page.cursor;
    if (page.removed > 0) {
      safeLog(this.#o.logger, 'debug', 'removed pending IDs whose bodies were deleted', { consumer: this.consumer, removed: page.removed });
    }
    await this.#handleAll(page.entries);
  }

  /** Runs a group operation; on NOGROUP recreates the group (createGroup) and retries once, else faults. */
  async #withGroup<R>(operation: () => Promise<R>): Promise<R> {
    try {
      return await operation();
    } catch (error) {
      if (replyCode(error) !== 'NOGROUP') throw error;
      await ensureGroup(this.#o, true);
      return await operation();
    }
  }

  async #read(block: number): Promise<RawEntry[]> {
    if (!this.#connection || this.#connection.closed) {
      try {
        await this.connect();
      } catch (error) {
        throw new RespireTransportError(`StreamWorker read: could not reconnect the reader (${exceptionType(error)})`, { cause: error });
      }
    }
    if (this.#run.stopping) {
      this.closeConnection();
      return [];
    }
    const connection = this.#connection!;
    const key = this.#o.stream;
    const idPromise = connection.send(key, ['CLIENT', 'ID']).then(
      (id) => replyString(id),
      () => undefined,
    );
    // Timers take at most 2^31-1 ms (a larger value fires at once): BLOCK is bounded so this fits.
    const deadlineMs = block + READ_DEADLINE_MARGIN_MS;
    const read = connection.send(
      key,
      ['XREADGROUP', 'GROUP', this.#o.group, this.consumer, 'COUNT', String(this.#o.batchSize), 'BLOCK', String(block), 'STREAMS', key, '>'],
      { binary: true, timeout: deadlineMs },
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
      this.#clientId = await Promise.race([idPromise, deadline]);
      return parseReadReply(await Promise.race([read, deadline]));
    } catch (error) {
      if (isErrorReply(error)) {
        const code = replyCode(error);
        if (code === 'UNBLOCKED') return []; // ended deliberately (ours on stop, or an operator's): nothing was delivered
        if (code === 'LOADING') {
          // The server is loading its data after a restart: the read did not run; nothing was delivered.
          safeLog(this.#o.logger, 'warn', 'server is loading; reading again', { consumer: this.consumer });
          await sleep(RETRY_BACKOFF_MS);
          return [];
        }
        if (code === 'NOGROUP') {
          if (this.#run.stopping) return [];
          if (!this.#o.createGroup) {
            throw new RespireServerError(
              `StreamWorker read: consumer group '${this.#o.group}' on stream '${key}' does not exist and createGroup is false`,
              { cause: error },
            );
          }
          safeLog(this.#o.logger, 'warn', 'consumer group missing (stream or group deleted); recreating it', { stream: key, group: this.#o.group });
          await ensureGroup(this.#o, true);
          return [];
        }
        // READONLY, NOPERM and other replies: a read failure faults the worker (seed 002 "Faults").
        throw toRespireError(error, 'StreamWorker read');
      }
      if (this.#run.stopping) return [];
      // The connection dropped or the read never returned within BLOCK + margin: entries it may have
      // taken stay pending to this consumer and are recovered after the minimum idle time.
      safeLog(this.#o.logger, 'warn', 'reader connection lost; reconnecting', { consumer: this.consumer, exceptionType: exceptionType(error) });
      this.closeConnection();
      await sleep(RETRY_BACKOFF_MS);
      return [];
    } finally {
      clearTimeout(timer);
      this.#parked = undefined;
    }
  }

  /** Ends a parked read with CLIENT UNBLOCK of this reader's connection ID (sent on the caller's client). */
  async interrupt(): Promise<void> {
    for (let attempt = 0; this.#parked && attempt < 40; attempt++) {
      const parked = this.#parked;
      const id = this.#clientId;
      if (id !== undefined) {
        try {
          await sendRaw(this.#o.client, this.#o.stream, ['CLIENT', 'UNBLOCK', id]);
        } catch {
          break; // not permitted or failed: fall back to closing the connection
        }
      }
      await Promise.race([parked.catch(() => {}), sleep(25)]);
    }
    if (this.#parked) this.closeConnection();
  }
}

/** Seed 002 "Results": runs one delivery, completes it by its result, disposes its scope. */
/**
 * One delivery: handler (inside its scope), fenced completion, scope disposal, telemetry.
 * `handled` is called as soon as the handler has returned (or when no handler will run), so the
 * reader can start the next handler while this completion is in flight.
 */
async function handleDelivery(run: Run, o: ResolvedOptions, consumer: string, raw: RawEntry, handled: () => void): Promise<void> {
  const entry = toEntry(raw.id, raw.fields, raw.deliveryCount);
  if (o.deadLetterStream !== undefined && entry.fields.length > MAX_DEAD_LETTER_FIELD_PAIRS) {
    // Seed 002 "1,024-field limit": fault before the handler; the entry stays pending.
    throw new RespireValidationError(
      'entry',
      `entry ${entry.id} has ${entry.fields.length} field/value pairs; with deadLetterStream at most ${MAX_DEAD_LETTER_FIELD_PAIRS} are allowed. Resolve it manually.`,
    );
  }
  const scope = startDelivery(o, entry);
  let outcome: DeliveryOutcome = 'error';
  try {
    if (o.deliveryLimit !== undefined && entry.deliveryCount > o.deliveryLimit) {
      // An abandoned final attempt: dead-letter without calling the handler again.
      outcome = await deadLetter(o, consumer, entry, 'delivery-limit', '');
      return;
    }
    outcome = await handleWithScope(run, o, consumer, entry, handled);
  } finally {
    handled();
    safeHook(() => scope?.end(outcome));
  }
}

async function handleWithScope(run: Run, o: ResolvedOptions, consumer: string, entry: StreamEntry, handled: () => void): Promise<DeliveryOutcome> {
  let scope: StreamWorkerScope<unknown> | undefined;
  let handler: StreamHandler<unknown>;
  if (o.createScope) {
    try {
      scope = await o.createScope(entry);
      if (!scope || typeof scope.handler !== 'function') throw new TypeError('createScope must resolve to { handler }');
      handler = scope.handler;
    } catch (error) {
      // A scope that came back without a handler is still the caller's to release.
      try {
        await scope?.dispose?.();
      } catch {
        // The creation failure is the fault that matters.
      }
      throw new RespireServerError(`StreamWorker: scope creation failed (${exceptionType(error)})`, { cause: error });
    }
  } else {
    handler = o.handler!;
  }
  let settled: { outcome: DeliveryOutcome } | { error: unknown };
  try {
    settled = { outcome: await invoke(run, o, consumer, entry, handler, handled) };
  } catch (error) {
    settled = { error };
  }
  if (scope?.dispose) {
    try {
      await scope.dispose();
    } catch (error) {
      // A completion fault already in flight wins; otherwise the disposal failure is the fault.
      if ('outcome' in settled) {
        throw new RespireServerError(`StreamWorker: scope disposal failed (${exceptionType(error)})`, { cause: error });
      }
    }
  }
  if ('error' in settled) throw settled.error;
  return settled.outcome;
}

type Attempt = { kind: 'result'; value: unknown } | { kind: 'threw'; error: unknown };

async function invoke(
  run: Run,
  o: ResolvedOptions,
  consumer: string,
  entry: StreamEntry,
  handler: StreamHandler<unknown>,
  handled: () => void,
): Promise<DeliveryOutcome> {
  // A delivery whose scope was still being created when the shutdown timeout expired never starts.
  if (run.hardAborted) return 'canceled';
  const controller = new AbortController();
  run.inflight.add(controller);
  let attempt: Attempt;
  try {
    const message = o.deserialize ? o.deserialize(entry) : entry;
    attempt = { kind: 'result', value: await handler(message, controller.signal) };
  } catch (error) {
    attempt = { kind: 'threw', error };
  } finally {
    run.inflight.delete(controller);
    handled();
  }
  if (controller.signal.aborted || run.hardAborted) {
    // Seed 002 "Shutdown": after the timeout a handler's result is not acknowledged; the entry stays pending.
    safeLog(o.logger, 'warn', 'handler finished after the shutdown timeout; its result is not acknowledged', {
      entryId: entry.id,
      consumer,
    });
    return 'canceled';
  }
  if (attempt.kind === 'threw') {
    const type = exceptionType(attempt.error);
    safeLog(o.logger, 'warn', 'stream handler failed; the entry stays pending', { entryId: entry.id, consumer, exceptionType: type });
    return fail(o, consumer, entry, 'processing-failed', type);
  }
  switch (attempt.value) {
    case 'ack': {
      const acked = await complete(() =>
        workerScripts.ack(o.target, o.stream, o.group, consumer, entry.id, entry.deliveryCount, o.deleteAcknowledgedEntries),
      );
      if (!acked) logStale(o, consumer, entry);
      return acked ? 'ack' : 'stale';
    }
    case 'nack':
      return fail(o, consumer, entry, 'nack', '');
    case 'dead-letter':
      if (o.deadLetterStream !== undefined) return deadLetter(o, consumer, entry, 'explicit', '');
      safeLog(o.logger, 'warn', 'handler returned dead-letter but no deadLetterStream is set; counted as a handler failure', {
        entryId: entry.id,
        consumer,
      });
      return fail(o, consumer, entry, 'processing-failed', '');
    default:
      safeLog(o.logger, 'warn', 'handler returned an unknown result; counted as a handler failure', { entryId: entry.id, consumer });
      return fail(o, consumer, entry, 'processing-failed', '');
  }
}

/** A failed attempt: dead-letter on the final attempt, else release (XNACK FAIL on 8.8+) or leave pending. */
async function fail(
  o: ResolvedOptions,
  consumer: string,
  entry: StreamEntry,
  reason: 'nack' | 'processing-failed',
  type: string,
): Promise<DeliveryOutcome> {
  if (o.deliveryLimit !== undefined && entry.deliveryCount >= o.deliveryLimit) {
    return deadLetter(o, consumer, entry, reason, type);
  }
  const released = await complete(() =>
    workerScripts.release(o.target, o.stream, o.group, consumer, entry.id, entry.deliveryCount, o.minimumIdleTimeMs),
  );
  if (released < 0) logStale(o, consumer, entry);
  return released < 0 ? 'stale' : 'nack';
}

async function deadLetter(o: ResolvedOptions, consumer: string, entry: StreamEntry, reason: DeadLetterReason, type: string): Promise<DeliveryOutcome> {
  const result = await complete(() =>
    workerScripts.deadLetter(o.target, o.stream, o.deadLetterStream!, {
      group: o.group,
      consumer,
      id: entry.id,
      count: entry.deliveryCount,
      reason,
      exceptionType: truncateBytes(type, 256),
    }),
  );
  if (result.status === 'appended') {
    safeHook(() => o.instrumentation?.deadLettered?.({ telemetryName: o.telemetryName, reason }));
    return 'dead-letter';
  }
  if (result.status === 'deleted') return 'deleted';
  logStale(o, consumer, entry);
  return 'stale';
}

/**
 * Runs a completion script. Any failure faults the worker; a transport failure is a lost reply
 * (the outcome is uncertain) and is never repeated.
 */
async function complete<R>(operation: () => Promise<R>): Promise<R> {
  return operation();
}

function logStale(o: ResolvedOptions, consumer: string, entry: StreamEntry): void {
  safeLog(o.logger, 'debug', 'delivery was recovered by another owner or attempt; not completed', {
    entryId: entry.id,
    consumer,
    deliveryCount: entry.deliveryCount,
  });
}

function startDelivery(o: ResolvedOptions, entry: StreamEntry): DeliveryScope | undefined {
  const hooks = o.instrumentation;
  if (!hooks?.startDelivery) return undefined;
  const single = (field: string | undefined): string | undefined => {
    if (field === undefined) return undefined;
    const values = allValues(entry, field);
    return values.length === 1 ? values[0]!.toString('latin1') : undefined;
  };
  return (
    safeHook(() =>
      hooks.startDelivery!({
        telemetryName: o.telemetryName,
        stream: o.stream,
        destination: o.logicalStream,
        group: o.group,
        entryId: entry.id,
        deliveryCount: entry.deliveryCount,
        traceParent: single(o.traceParentField),
        traceState: o.traceParentField === undefined ? undefined : single(o.traceStateField),
      }),
    ) ?? undefined
  );
}

/** Cuts a UTF-8 string to at most `max` bytes without splitting a character. */
function truncateBytes(value: string, max: number): string {
  if (Buffer.byteLength(value) <= max) return value;
  let out = '';
  for (const ch of value) {
    if (Buffer.byteLength(out + ch) > max) break;
    out += ch;
  }
  return out;
}

/**
 * Seed 002 "Group creation": with `createGroup` creates the stream and group (MKSTREAM) at
 * `groupStart`, keeping an existing group (BUSYGROUP); without it requires the group to exist.
 */
async function ensureGroup(o: ResolvedOptions, recreate: boolean): Promise<void> {
  if (o.createGroup) {
    try {
      await sendRaw(o.client, o.stream, ['XGROUP', 'CREATE', o.stream, o.group, o.groupStart, 'MKSTREAM']);
    } catch (error) {
      if (replyCode(error) === 'BUSYGROUP') return;
      throw toRespireError(error, recreate ? 'StreamWorker: recreate consumer group' : 'StreamWorker.start: create consumer group');
    }
    return;
  }
  const missing = () =>
    new RespireServerError(`StreamWorker.start: consumer group '${o.group}' on stream '${o.stream}' does not exist and createGroup is false`);
  if (recreate) throw missing();
  let groups: unknown;
  try {
    groups = await sendRaw(o.client, o.stream, ['XINFO', 'GROUPS', o.stream]);
  } catch (error) {
    if (isErrorReply(error) && /no such key/i.test((error as Error).message)) throw missing();
    throw toRespireError(error, 'StreamWorker.start: XINFO GROUPS');
  }
  const found = Array.isArray(groups) && groups.some((g) => replyString(infoField(g, 'name')) === o.group);
  if (!found) throw missing();
}

async function queryGroup(o: ResolvedOptions): Promise<{ lag: number | null; pending: number } | null> {
  let groups: unknown;
  try {
    groups = await sendRaw(o.client, o.stream, ['XINFO', 'GROUPS', o.stream], { timeout: o.metricsPollTimeoutMs });
  } catch (error) {
    if (isErrorReply(error) && /no such key/i.test((error as Error).message)) return null;
    throw error;
  }
  if (!Array.isArray(groups)) return null;
  const group = groups.find((g) => replyString(infoField(g, 'name')) === o.group);
  if (group === undefined) return null;
  const lag = infoField(group, 'lag');
  return {
    lag: lag === null || lag === undefined ? null : Number(lag),
    pending: Number(infoField(group, 'pending')),
  };
}
