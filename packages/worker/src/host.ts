// StreamWorkerHost: runs several workers as one service, with signals, a shutdown timeout and a fault policy.
import { RespireStateError, RespireValidationError } from '@respire/core-scripts';
import { MAX_INT32, describeValue, toDurationMs, toIntegerInRange, toOptions } from '@respire/core-scripts/internal';
import type { StreamEntry } from './entry.js';
import { consoleLogger, exceptionType, safeLog, type StreamWorkerLogger } from './logger.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, type StreamWorkerOptions } from './options.js';
import { StreamWorker } from './worker.js';

/** What a {@link StreamWorkerHost} does when one worker faults. */
export type StreamWorkerFaultPolicy = 'stop-all' | 'ignore' | 'restart';

/** Default first delay before a faulted worker is restarted, in ms. */
export const DEFAULT_RESTART_INITIAL_DELAY_MS = 1_000;
/** Default longest delay between restarts, in ms. */
export const DEFAULT_RESTART_MAX_DELAY_MS = 30_000;
/** Default number of restarts in a row before the host gives up and stops every worker. */
export const DEFAULT_MAX_RESTARTS = 10;

/**
 * How the `'restart'` fault policy restarts a faulted worker (beyond the contract: CONFORMANCE.md).
 * The delays double from `initialDelayMs` up to `maxDelayMs`; a worker that then runs for
 * `maxDelayMs` without a fault starts its count again.
 */
export interface StreamWorkerRestartOptions {
  /** First delay, in ms (1..2^31-1). @defaultValue {@link DEFAULT_RESTART_INITIAL_DELAY_MS} (1000) */
  initialDelayMs?: number;
  /** Longest delay, in ms (1..2^31-1, at least `initialDelayMs`). @defaultValue {@link DEFAULT_RESTART_MAX_DELAY_MS} (30000) */
  maxDelayMs?: number;
  /**
   * Restarts in a row (a failed `start()` counts as one) before the host gives up: it then stops
   * every worker and rejects {@link StreamWorkerHost.done} with the last fault, as `'stop-all'`
   * does. 0..2^31-1. @defaultValue {@link DEFAULT_MAX_RESTARTS} (10)
   */
  maxRestarts?: number;
}

/** Options of {@link StreamWorkerHost}. */
export interface StreamWorkerHostOptions {
  /**
   * Drain time for in-flight handlers on stop, in ms (1..2^31-1); then their signals abort.
   * Set it to cover normal handler duration (README "Faults, shutdown and failover"). It caps the workers' own
   * `shutdownTimeoutMs`: each worker drains for the shorter of the two.
   * @defaultValue {@link DEFAULT_SHUTDOWN_TIMEOUT_MS} (30000)
   */
  shutdownTimeoutMs?: number;
  /**
   * `'stop-all'` stops every worker when one faults and rejects {@link StreamWorkerHost.done} with
   * that fault; `'ignore'` logs the fault and keeps the other workers running; `'restart'` (beyond
   * the contract) logs it and starts the faulted worker again after a backoff (`restart`), the
   * others running on, until its restarts in a row exceed `restart.maxRestarts`. Every fault is
   * logged and counted ({@link StreamWorkerHost.faultCount}). @defaultValue `'stop-all'`
   */
  faultPolicy?: StreamWorkerFaultPolicy;
  /** Backoff and limit of the `'restart'` policy; refused with another policy. */
  restart?: StreamWorkerRestartOptions;
  /** Stop all workers on SIGINT and SIGTERM (listeners are removed on stop). @defaultValue true */
  handleSignals?: boolean;
  /** Where the host logs faults. @defaultValue warnings and errors to the console */
  logger?: StreamWorkerLogger;
}

/**
 * Runs several {@link StreamWorker}s as one service, like a .NET host runs hosted services: starts
 * them, wires SIGINT/SIGTERM to a graceful stop, applies the shutdown timeout and a fault policy.
 * The host is the telemetry registry: `telemetryName` must be unique among its workers
 * (including the default), and a duplicate fails in {@link StreamWorkerHost.add}.
 *
 * @example
 * ```ts
 * const host = new StreamWorkerHost({ shutdownTimeoutMs: 10_000 });
 * host.add({ client, stream: '{orders}:events', group: 'fulfillment', handler });
 * await host.start();
 * await host.done; // resolves after SIGTERM, rejects when a worker faults
 * ```
 */
export class StreamWorkerHost {
  readonly #workers: StreamWorker<unknown>[] = [];
  readonly #names = new Set<string>();
  readonly #shutdownTimeoutMs: number;
  readonly #policy: StreamWorkerFaultPolicy;
  readonly #restart: Required<StreamWorkerRestartOptions>;
  /** Workers whose run has not ended for good (a worker waiting for its restart still counts). */
  #running = 0;
  #faults = 0;
  readonly #restartTimers = new Map<StreamWorker<unknown>, NodeJS.Timeout>();
  readonly #handleSignals: boolean;
  readonly #logger: StreamWorkerLogger;
  #done: Promise<void> = Promise.resolve();
  #resolve: () => void = () => {};
  #reject: (error: unknown) => void = () => {};
  #fault: unknown;
  #started = false;
  #stopping: Promise<void> | undefined;
  readonly #onSignal = (signal: NodeJS.Signals) => {
    safeLog(this.#logger, 'info', `received ${signal}; stopping stream workers`);
    void this.stop();
  };

  /** @throws {@link RespireValidationError} for an invalid option. */
  constructor(options: StreamWorkerHostOptions = {}) {
    this.#shutdownTimeoutMs =
      options.shutdownTimeoutMs === undefined ? DEFAULT_SHUTDOWN_TIMEOUT_MS : toDurationMs('shutdownTimeoutMs', options.shutdownTimeoutMs);
    const policy = options.faultPolicy ?? 'stop-all';
    if (policy !== 'stop-all' && policy !== 'ignore' && policy !== 'restart') {
      throw new RespireValidationError('faultPolicy', `must be 'stop-all', 'ignore' or 'restart', got ${describeValue(policy)}`);
    }
    this.#policy = policy;
    if (options.restart !== undefined && policy !== 'restart') {
      throw new RespireValidationError('restart', `applies to faultPolicy 'restart' only, not '${policy}'`);
    }
    const restart = toOptions('restart', options.restart, ['initialDelayMs', 'maxDelayMs', 'maxRestarts']);
    const initialDelayMs = toDurationMs('restart.initialDelayMs', restart.initialDelayMs ?? DEFAULT_RESTART_INITIAL_DELAY_MS);
    const maxDelayMs = toDurationMs('restart.maxDelayMs', restart.maxDelayMs ?? Math.max(DEFAULT_RESTART_MAX_DELAY_MS, initialDelayMs));
    if (maxDelayMs < initialDelayMs) {
      throw new RespireValidationError('restart.maxDelayMs', `must be at least initialDelayMs (${initialDelayMs} ms), got ${maxDelayMs}`);
    }
    const maxRestarts = toIntegerInRange('restart.maxRestarts', restart.maxRestarts ?? DEFAULT_MAX_RESTARTS, 0, MAX_INT32);
    this.#restart = { initialDelayMs, maxDelayMs, maxRestarts };
    this.#handleSignals = options.handleSignals ?? true;
    this.#logger = options.logger ?? consoleLogger;
  }

  /**
   * Creates a worker and registers it with the host.
   * @throws {@link RespireValidationError} for invalid options, or `telemetryName` already used by another worker of this host.
   * @throws {@link RespireStateError} when the host has already started.
   */
  add<T = StreamEntry>(options: StreamWorkerOptions<T>): StreamWorker<T> {
    if (this.#started) throw new RespireStateError('StreamWorkerHost.add: the host has already started');
    const worker = new StreamWorker<T>(options);
    if (this.#names.has(worker.telemetryName)) {
      throw new RespireValidationError('telemetryName', `'${worker.telemetryName}' is already used by another worker of this host`);
    }
    this.#names.add(worker.telemetryName);
    this.#workers.push(worker as StreamWorker<unknown>);
    return worker;
  }

  /** The registered workers. */
  get workers(): readonly StreamWorker<unknown>[] {
    return this.#workers;
  }

  /** Faults of this host's workers since it started, restarts that failed to start included. */
  get faultCount(): number {
    return this.#faults;
  }

  /**
   * Settles when every worker has stopped; rejects with the first fault under `'stop-all'`, and
   * under `'restart'` with the fault after which a worker's restarts ran out.
   */
  get done(): Promise<void> {
    return this.#done;
  }

  /**
   * Starts every worker (all or none: when one fails to start, the started ones are stopped and the
   * error is thrown) and installs the signal handlers.
   * @throws {@link RespireStateError} when the host has already started.
   * @throws {@link RespireError} what the failing worker's `start()` threw.
   */
  async start(): Promise<void> {
    if (this.#started) throw new RespireStateError('StreamWorkerHost.start: already started');
    this.#started = true;
    this.#done = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#done.catch(() => {});
    const started: StreamWorker<unknown>[] = [];
    try {
      for (const worker of this.#workers) {
        await worker.start();
        started.push(worker);
      }
    } catch (error) {
      await Promise.allSettled(started.map((w) => this.#stopWorker(w)));
      this.#reject(error);
      throw error;
    }
    if (this.#handleSignals) {
      process.on('SIGINT', this.#onSignal);
      process.on('SIGTERM', this.#onSignal);
    }
    this.#running = this.#workers.length;
    for (const worker of this.#workers) this.#watch(worker, 0, performance.now());
  }

  /** Follows one run of `worker`, started at `startedAt` after `restarts` restarts in a row. */
  #watch(worker: StreamWorker<unknown>, restarts: number, startedAt: number): void {
    worker.done.then(
      () => this.#ended(),
      (error: unknown) => this.#faulted(worker, error, restarts, startedAt),
    );
  }

  #faulted(worker: StreamWorker<unknown>, error: unknown, restarts: number, startedAt: number): void {
    this.#faults++;
    safeLog(this.#logger, 'error', 'stream worker faulted', { telemetryName: worker.telemetryName, exceptionType: exceptionType(error) });
    if (this.#policy === 'restart' && this.#stopping === undefined) {
      // A run that lasted a full backoff period was healthy: the count starts again.
      const inARow = performance.now() - startedAt >= this.#restart.maxDelayMs ? 0 : restarts;
      if (inARow < this.#restart.maxRestarts) {
        const delayMs = Math.min(this.#restart.maxDelayMs, this.#restart.initialDelayMs * 2 ** Math.min(inARow, 30));
        safeLog(this.#logger, 'warn', 'restarting stream worker', { telemetryName: worker.telemetryName, delayMs, restart: inARow + 1 });
        this.#restartTimers.set(
          worker,
          setTimeout(() => this.#restartWorker(worker, inARow + 1), delayMs),
        );
        return;
      }
      safeLog(this.#logger, 'error', 'stream worker restarts exhausted; stopping every worker', {
        telemetryName: worker.telemetryName,
        maxRestarts: this.#restart.maxRestarts,
      });
    }
    if (this.#policy !== 'ignore') {
      this.#fault ??= error;
      void this.stop();
    }
    this.#ended();
  }

  #restartWorker(worker: StreamWorker<unknown>, restarts: number): void {
    this.#restartTimers.delete(worker);
    const startedAt = performance.now();
    worker.start().then(
      () => {
        // stop() began while it started: it stops again, so this run ends too.
        if (this.#stopping !== undefined) void this.#stopWorker(worker);
        this.#watch(worker, restarts, startedAt);
      },
      (error: unknown) => this.#faulted(worker, error, restarts, startedAt),
    );
  }

  /** One worker's run ended for good; the last one settles {@link done}. */
  #ended(): void {
    if (--this.#running > 0) return;
    this.#removeSignals();
    if (this.#fault !== undefined) this.#reject(this.#fault);
    else this.#resolve();
  }

  /**
   * Stops every worker, each draining for the shorter of its own `shutdownTimeoutMs` and the
   * host's. Resolves when all have stopped.
   */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#removeSignals();
      // A worker waiting for its restart is not started again: its run has ended.
      for (const [worker, timer] of this.#restartTimers) {
        clearTimeout(timer);
        this.#restartTimers.delete(worker);
        this.#ended();
      }
      await Promise.allSettled(this.#workers.map((w) => this.#stopWorker(w)));
    })();
    return this.#stopping;
  }

  #stopWorker(worker: StreamWorker<unknown>): Promise<void> {
    return worker.stop(Math.min(worker.shutdownTimeoutMs, this.#shutdownTimeoutMs));
  }

  #removeSignals(): void {
    process.off('SIGINT', this.#onSignal);
    process.off('SIGTERM', this.#onSignal);
  }
}
