// Bounded retries of commands a transient reply proves did not run, on the monotonic clock.
import { isTransient } from './classify.js';
import { describeError, safeGet } from './describe.js';
import { RespireServerError, RespireTransportError, isRespireError } from './errors.js';

/**
 * Bounded retries of commands that provably did not run (transient replies), measured on the
 * monotonic clock (`performance.now()`), so a wall-clock step never stretches or skips a deadline.
 */

/** Backoff of {@link retryTransient}: the first wait, doubling up to the longest. */
export const RETRY_INITIAL_DELAY_MS = 50;
export const RETRY_MAX_DELAY_MS = 1000;

export interface RetryOptions {
  /** Give up once this long has passed since the first retryable failure, in ms (monotonic). */
  readonly deadlineMs: number;
  /** Which failures are retried. @defaultValue `isTransient` (transient server replies) */
  readonly retryable?: (error: unknown) => boolean;
  /** First wait in ms, doubled after each failure. @defaultValue {@link RETRY_INITIAL_DELAY_MS} (50) */
  readonly initialDelayMs?: number;
  /** Longest wait in ms. @defaultValue {@link RETRY_MAX_DELAY_MS} (1000) */
  readonly maxDelayMs?: number;
  /** When aborted, a wait ends at once and the last failure is thrown. */
  readonly signal?: AbortSignal;
  /** Called before each wait (for a log line); anything it throws is ignored. */
  readonly onRetry?: (error: unknown, delayMs: number, attempt: number) => void;
}

/**
 * The state of one retried operation (or one reader's reads): when the failures began and how
 * long the next wait is. {@link next} returns the wait, or throws when the failure is not
 * retryable or the deadline has passed; {@link reset} after a success.
 */
export class TransientBackoff {
  readonly #options: RetryOptions;
  #since: number | undefined;
  #delay: number;
  #attempts = 0;

  constructor(options: RetryOptions) {
    this.#options = options;
    this.#delay = options.initialDelayMs ?? RETRY_INITIAL_DELAY_MS;
  }

  /** Failures since the last success. */
  get attempts(): number {
    return this.#attempts;
  }

  /**
   * Records a failure and returns how long to wait before the next attempt.
   * @throws `error` itself when it is not retryable; once the deadline has passed, a Respire error
   *   of the same kind naming the failure and how long it lasted (`cause`: the last failure).
   */
  next(error: unknown): number {
    if (!(this.#options.retryable ?? isTransient)(error)) throw error;
    const now = performance.now();
    this.#since ??= now;
    this.#attempts++;
    const elapsed = now - this.#since;
    if (elapsed >= this.#options.deadlineMs) throw gaveUp(error, elapsed);
    const delay = Math.min(this.#delay, Math.max(1, Math.ceil(this.#options.deadlineMs - elapsed)));
    this.#delay = Math.min(this.#delay * 2, this.#options.maxDelayMs ?? RETRY_MAX_DELAY_MS);
    return delay;
  }

  /** Forgets the failures after a success. */
  reset(): void {
    this.#since = undefined;
    this.#attempts = 0;
    this.#delay = this.#options.initialDelayMs ?? RETRY_INITIAL_DELAY_MS;
  }
}

/**
 * Runs `operation`, and repeats it while it fails retryably (a transient reply, by default), waiting
 * 50 ms, 100 ms, ... up to 1 s between attempts, until `deadlineMs` after the first failure.
 * Only for operations that are safe to repeat after such a failure: a transient reply proves the
 * command did not run; a lost reply (outcome unknown) is never retried by the default predicate.
 * @throws the first failure that is not retryable; after the deadline, a Respire error naming the
 *   last failure and how long the failures lasted; when `signal` aborts, the last failure.
 */
export async function retryTransient<R>(operation: () => Promise<R>, options: RetryOptions): Promise<R> {
  const backoff = new TransientBackoff(options);
  for (;;) {
    try {
      return await operation();
    } catch (error) {
      const delay = backoff.next(error);
      if (options.signal?.aborted) throw error;
      try {
        options.onRetry?.(error, delay, backoff.attempts);
      } catch {
        // a log line never changes the outcome
      }
      await sleep(delay, options.signal);
      if (options.signal?.aborted) throw error;
    }
  }
}

/** Waits `ms`, or less when `signal` aborts. Never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The failure that ended the retries, saying so: same kind (server reply or transport), `cause` the last failure. */
function gaveUp(error: unknown, elapsedMs: number): Error {
  const message = safeGet(error, 'message');
  const text = `${typeof message === 'string' ? message : describeError(error)} (still failing after ${Math.round(elapsedMs)} ms of retries)`;
  if (isRespireError(error, 'TRANSPORT_FAILED')) {
    const outcomeUnknown = safeGet(error, 'outcomeUnknown') !== false;
    return new RespireTransportError(text, { cause: error, outcomeUnknown, retryable: !outcomeUnknown && safeGet(error, 'retryable') === true });
  }
  return new RespireServerError(text, { cause: error, retryable: isTransient(error) });
}
