// A history sampler: records every resource's sample on an interval, in the process that runs it.
import type { HistoryRecordResult } from './api.js';
import { RespireValidationError } from './redis.js';
import { toCount, toOptions } from './validate.js';

/** The default sampling interval, ms. */
export const DEFAULT_HISTORY_INTERVAL_MS = 60_000;

export interface HistorySamplerOptions {
  /** Between two recordings, ms, 1,000..86,400,000. @defaultValue 60_000 */
  readonly intervalMs?: number;
  /** Called with a recording that failed as a whole (a lost connection) or for some resources. */
  readonly onError?: (error: unknown, result?: HistoryRecordResult) => void;
}

/**
 * Records history every `intervalMs` through `recordHistory` (first at once), skipping a turn
 * while the previous recording still runs; its timer never keeps the process alive. Each
 * recording skips resources sampled in the last 90% of the interval, so samplers in several
 * processes keep about one sample per interval between them.
 */
export class HistorySampler {
  readonly intervalMs: number;
  readonly #admin: { recordHistory(options: { minIntervalMs: number }): Promise<HistoryRecordResult> };
  readonly #onError: (error: unknown, result?: HistoryRecordResult) => void;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<void> | undefined;
  /** The last recording's result, if one finished. */
  last: HistoryRecordResult | undefined;

  /** @throws {@link RespireValidationError} for a bad interval or `onError`. */
  constructor(admin: { recordHistory(options: { minIntervalMs: number }): Promise<HistoryRecordResult> }, options?: HistorySamplerOptions) {
    const o = toOptions('options', options, ['intervalMs', 'onError']);
    this.intervalMs = toCount('intervalMs', o.intervalMs, DEFAULT_HISTORY_INTERVAL_MS, 1000, 86_400_000);
    if (o.onError !== undefined && typeof o.onError !== 'function') throw new RespireValidationError('onError', 'must be a function');
    this.#admin = admin;
    this.#onError = o.onError ?? (() => {});
    this.#timer = setInterval(() => this.#tick(), this.intervalMs);
    this.#timer.unref?.();
    this.#tick();
  }

  #tick(): void {
    if (this.#running || !this.#timer) return;
    this.#running = this.#admin
      .recordHistory({ minIntervalMs: Math.floor(this.intervalMs * 0.9) })
      .then(
        (result) => {
          this.last = result;
          if (result.failed.length > 0) this.#report(undefined, result);
        },
        (error: unknown) => this.#report(error),
      )
      .finally(() => (this.#running = undefined));
  }

  #report(error: unknown, result?: HistoryRecordResult): void {
    try {
      this.#onError(error, result);
    } catch {
      // a throwing callback never stops the sampler
    }
  }

  /** Stops the timer; resolves once a recording in progress has finished. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
