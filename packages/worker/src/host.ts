// StreamWorkerHost: runs several workers as one service, with signals, a shutdown timeout and a fault policy.
import { RespireStateError, RespireValidationError } from '@respire/core-scripts';
import { describeValue, toDurationMs } from '@respire/core-scripts/internal';
import type { StreamEntry } from './entry.js';
import { consoleLogger, exceptionType, safeLog, type StreamWorkerLogger } from './logger.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, type StreamWorkerOptions } from './options.js';
import { StreamWorker } from './worker.js';

/** What a {@link StreamWorkerHost} does when one worker faults. */
export type StreamWorkerFaultPolicy = 'stop-all' | 'ignore';

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
   * that fault; `'ignore'` logs the fault and keeps the other workers running. @defaultValue `'stop-all'`
   */
  faultPolicy?: StreamWorkerFaultPolicy;
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
    if (policy !== 'stop-all' && policy !== 'ignore') {
      throw new RespireValidationError('faultPolicy', `must be 'stop-all' or 'ignore', got ${describeValue(policy)}`);
    }
    this.#policy = policy;
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

  /** Settles when every worker has stopped; rejects with the first fault under `'stop-all'`. */
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
    for (const worker of this.#workers) {
      worker.done.catch((error: unknown) => {
        safeLog(this.#logger, 'error', 'stream worker faulted', { telemetryName: worker.telemetryName, exceptionType: exceptionType(error) });
        if (this.#policy === 'stop-all') {
          this.#fault ??= error;
          void this.stop();
        }
      });
    }
    void Promise.allSettled(this.#workers.map((w) => w.done)).then(() => {
      this.#removeSignals();
      if (this.#fault !== undefined) this.#reject(this.#fault);
      else this.#resolve();
    });
  }

  /**
   * Stops every worker, each draining for the shorter of its own `shutdownTimeoutMs` and the
   * host's. Resolves when all have stopped.
   */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#removeSignals();
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
