// One start..stop of a worker: its readers and connections, its first fault, and the shutdown.
import { RespireCanceledError, RespireTransportError, isRespireError, type RespireError, type WorkerInfo } from '@respire/core-scripts';
import { describeError, safeGet, toRespireError } from '@respire/core-scripts/internal';
import { settledWithin } from './settled.js';
import { Connections } from './connections.js';
import { NewestDeliveries, type RunContext } from './context.js';
import { ensureGroup, queryGroup } from './group.js';
import { safeHook } from './instrumentation.js';
import { exceptionType, safeLog } from './logger.js';
import type { ResolvedOptions } from './options.js';
import { ANSWER_WAIT_MS, Reader } from './reader.js';
import { retryingTransient } from './retry.js';

/**
 * One start..stop of a worker: its readers, its connections, its first fault, and the shutdown
 * (README "Faults, shutdown and failover": readers stop at once, handlers drain, then are aborted).
 */
export class Run implements RunContext {
  readonly options: ResolvedOptions;
  readonly connections: Connections;
  readonly readers: Reader[] = [];
  readonly inflight = new Set<AbortController>();
  readonly newest: NewestDeliveries;
  readonly done: Promise<void>;
  readonly info: WorkerInfo;
  onStopping: (() => void) | undefined;
  #resolve!: () => void;
  #reject!: (error: unknown) => void;
  #stopping = false;
  readonly #stopController = new AbortController();
  #hardAborted = false;
  #stopPromise: Promise<void> | undefined;
  #fault: unknown;
  #loops: Promise<void>[] = [];
  #starting: Promise<void> = Promise.resolve();

  constructor(options: ResolvedOptions, consumerBase: string) {
    this.options = options;
    this.connections = new Connections(options.client, options.target.isCluster, options.durability);
    this.newest = new NewestDeliveries(options.consumerCount);
    this.done = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    const replay = options.consumerName !== undefined;
    for (let i = 0; i < options.consumerCount; i++) this.readers.push(new Reader(this, `${consumerBase}-${i}`, replay));
    this.info = {
      telemetryName: options.telemetryName,
      stream: options.stream,
      group: options.group,
      metricsPollIntervalMs: options.metricsPollIntervalMs,
      metricsPollTimeoutMs: options.metricsPollTimeoutMs,
      queryGroup: () => queryGroup(options),
    };
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  get stopSignal(): AbortSignal {
    return this.#stopController.signal;
  }

  get hardAborted(): boolean {
    return this.#hardAborted;
  }

  /** Ensures the group, opens every reader's connection and starts the readers. */
  start(): Promise<void> {
    this.#starting = this.#start();
    return this.#starting;
  }

  async #start(): Promise<void> {
    try {
      // A client that is not connected would hold our commands in its offline queue (node-redis 5
      // without a timeout: forever); nothing has been sent yet, so say so now.
      if (safeGet(this.options.client, 'isReady') === false) {
        throw new RespireTransportError('StreamWorker.start: not sent: the client is not connected (connecting, reconnecting or closed); connect it first', {
          outcomeUnknown: false,
        });
      }
      await ensureGroup(this.options, false, this.stopSignal);
      // A refusal fails at once with the server's reply; a transient one (LOADING) is repeated.
      const connect = (r: Reader) =>
        retryingTransient(this.options.logger, 'StreamWorker.start: opening a reader connection', () => r.connect(), this.stopSignal);
      await Promise.all(this.readers.map(connect));
    } catch (error) {
      // Readers still retrying a connection give up, and what they opened is closed.
      this.#stopController.abort();
      this.connections.closeAll();
      const failure = toRespireError(error, 'StreamWorker.start');
      this.#reject(failure);
      throw failure;
    }
    // stop() during start: the connections just opened are closed by #stop, and nothing runs.
    if (this.#stopping) return;
    safeHook(() => this.options.instrumentation?.workerStarted?.(this.info));
    this.#loops = this.readers.map((r) => r.run());
  }

  fault(error: unknown): void {
    if (this.#fault === undefined) {
      this.#fault = this.#describeFault(isRespireError(error) ? error : unexpected(error));
      safeLog(this.options.logger, 'error', 'stream worker faulted; stopping', {
        stream: this.options.stream,
        group: this.options.group,
        exceptionType: exceptionType(error),
        code: (this.#fault as { code?: string }).code,
      });
    }
    void this.stop(this.options.shutdownTimeoutMs);
  }

  /** A transport failure because the caller closed its client under the running worker says so. */
  #describeFault(fault: RespireError): RespireError {
    if (fault.code !== 'TRANSPORT_FAILED' || safeGet(this.options.client, 'isOpen') !== false) return fault;
    const message = `StreamWorker: the client was closed while the worker was running (stop the worker before closing its client): ${fault.message}`;
    return new RespireTransportError(message, { cause: fault, outcomeUnknown: safeGet(fault, 'outcomeUnknown') !== false });
  }

  stop(timeoutMs: number): Promise<void> {
    this.#stopPromise ??= this.#stop(timeoutMs);
    return this.#stopPromise;
  }

  async #stop(timeoutMs: number): Promise<void> {
    const o = this.options;
    this.#stopping = true;
    this.#stopController.abort();
    this.onStopping?.();
    // A stop during start() waits for it, so every connection it opened is known and closed here.
    await this.#starting.catch(() => {});
    // A reader replacing its connection gives up now.
    this.connections.closeOpening();
    // Readers stop at once: end parked reads deliberately, so no entry is taken after stop().
    const interrupts = this.readers.map((r) => r.interrupt(timeoutMs));
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
      for (const controller of this.inflight) controller.abort(new RespireCanceledError('StreamWorker shutdown timeout expired'));
      safeLog(o.logger, 'warn', 'shutdown timeout expired; in-flight handlers were aborted and their results will not be acknowledged', {
        stream: o.stream,
        group: o.group,
        inflight: this.inflight.size,
      });
    }
    await Promise.allSettled(interrupts);
    for (const r of this.readers) r.closeConnection();
    this.connections.closeAll();
    // A batch unanswered on a connection just closed fails now: its unknown outcome is this stop's fault.
    await settledWithin(Promise.all(this.readers.map((r) => r.completed())), ANSWER_WAIT_MS);
    safeHook(() => o.instrumentation?.workerStopped?.(this.info));
    if (this.#fault !== undefined) this.#reject(this.#fault);
    else this.#resolve();
  }
}

/**
 * A failure that is not a Respire error reached the run: every command's failure is mapped by the
 * transport and user code's are contained, so this is a defect. Named as such, with what it was.
 */
function unexpected(error: unknown): RespireError {
  const message = `StreamWorker: stopped by an unexpected error (${describeError(error)}); a command in flight, if any, may or may not have run`;
  return new RespireTransportError(message, { cause: error });
}
