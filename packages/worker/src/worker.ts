// StreamWorker: the public class, its life cycle and its start() and stop().
import { randomBytes } from 'node:crypto';
import { RespireStateError } from '@respire/core-scripts';
import { toDurationMs } from '@respire/core-scripts/internal';
import type { StreamEntry } from './entry.js';
import { resolveOptions, type ResolvedOptions, type StreamWorkerOptions } from './options.js';
import { Run } from './run.js';

/** The worker's life cycle. */
export type StreamWorkerState = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

/**
 * Hosted Redis Streams consumer (this package's README): `consumerCount` readers, each
 * on its own blocking connection (a duplicate of your client that the worker owns and closes), read
 * the consumer group in batches of `batchSize`, hand each entry to the handler in sequence, and
 * complete each batch by its results with one fenced script call: each entry is acknowledged,
 * dead-lettered or released only while it is still pending to that reader at that delivery count, and
 * reports its own outcome. Idle pending entries are recovered with
 * XAUTOCLAIM (XREADGROUP CLAIM on Redis 8.4+), one page per reader per `recoveryPollIntervalMs`.
 *
 * Faults (scope creation or disposal, read, acknowledgement and dead-letter failures, a lost reply)
 * stop the worker: {@link StreamWorker.done} rejects with the cause, a `RespireError`.
 *
 * Failover and restarts (nothing is lost in any case: entries are unread or pending):
 * - a reader whose connection drops, or whose read gets no reply within BLOCK + 2 s, closes it
 *   and reconnects with a fresh duplicate (which never reconnects by itself), repeating refused
 *   connects for up to 10 s;
 * - `UNBLOCKED` (CLIENT UNBLOCK ... ERROR) delivered nothing: read again;
 * - `BUSY`, `LOADING`, `TRYAGAIN`, `MASTERDOWN` and `CLUSTERDOWN` prove the command did not run:
 *   reads, recovery, replay, group creation and completions repeat it with backoff for up to 10 s,
 *   then fault with the reply;
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
 * @throws {@link RespireValidationError} from the constructor for any invalid option.
 * @throws {@link RespireCrossSlotError} from the constructor when `deadLetterStream` equals `stream` or is in another slot.
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
   * @throws {@link RespireStateError} when the worker is starting, running or stopping.
   * @throws {@link RespireServerError} when `createGroup` is false and the group does not exist.
   * @throws {@link RespireError} for other server or transport failures; nothing is left running.
   */
  async start(): Promise<void> {
    if (this.#state === 'starting' || this.#state === 'running' || this.#state === 'stopping') {
      throw new RespireStateError(`StreamWorker.start: the worker is ${this.#state}`);
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
   * and aborts their signals (reason: a `RespireCanceledError`) when `timeoutMs` expires; a handler
   * that ignores the abort keeps its scope until it finishes and its result is not acknowledged.
   * Undispatched entries stay pending. Closes the worker's connections, never the caller's client.
   * Resolves when stopped (also after a fault); the fault itself is reported by {@link StreamWorker.done}.
   * @param timeoutMs - drain time in ms (1..2^31-1). @defaultValue the `shutdownTimeoutMs` option (30000)
   * @throws {@link RespireValidationError} for an invalid `timeoutMs`; nothing is stopped.
   */
  async stop(timeoutMs?: number): Promise<void> {
    const drainMs = timeoutMs === undefined ? this.#o.shutdownTimeoutMs : toDurationMs('timeoutMs', timeoutMs);
    await this.#run?.stop(drainMs);
  }
}
