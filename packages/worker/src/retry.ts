// The worker's policy for transient replies: which commands repeat, with what backoff, for how long.
import { isNotSent, retryTransient, transientReplyCode, TransientBackoff } from '@respire/core-scripts/internal';
import { safeLog, type StreamWorkerLogger } from './logger.js';

/**
 * The worker's policy for replies that prove a command did not run (`BUSY`, `LOADING`,
 * `TRYAGAIN`, `MASTERDOWN`, `CLUSTERDOWN`): reads, recovery pages, the startup replay, group
 * creation and completions repeat the command with backoff (50 ms doubling to 1 s) for up to
 * {@link TRANSIENT_RETRY_DEADLINE_MS} after the first such reply, measured with
 * `performance.now()`, and only then fault with the reply. A lost reply is never repeated.
 */

/** How long the worker keeps repeating a command answered with a transient reply before it faults (ms). */
export const TRANSIENT_RETRY_DEADLINE_MS = 10_000;

/** A backoff for a series of attempts that reset after each success (a reader's reads). */
export function transientBackoff(): TransientBackoff {
  return new TransientBackoff({ deadlineMs: TRANSIENT_RETRY_DEADLINE_MS });
}

/**
 * Runs `operation`, repeating it after transient replies (see above); the first repeat is logged
 * as a warning. `signal` (the run's stop) ends the waiting: the last reply is then thrown.
 */
export function retryingTransient<R>(
  logger: StreamWorkerLogger,
  what: string,
  operation: () => Promise<R>,
  signal?: AbortSignal,
  context: Readonly<Record<string, unknown>> = {},
): Promise<R> {
  return retryTransient(operation, {
    deadlineMs: TRANSIENT_RETRY_DEADLINE_MS,
    signal,
    onRetry: (error, delayMs, attempt) => {
      if (attempt === 1) safeLog(logger, 'warn', `${what}: the server answered ${transientReplyCode(error)}; retrying`, { ...context, delayMs });
    },
  });
}

/**
 * Repeats an operation whose first attempt already failed with `first` (a batch of completions):
 * after a transient reply it waits the backoff first and goes on as {@link retryingTransient}; a
 * failure that proves the command was never written (its connection had closed: `isNotSent`) is
 * repeated at once; anything else, above all a lost reply, is thrown as it is.
 */
export function retryingAfter<R>(
  logger: StreamWorkerLogger,
  what: string,
  first: unknown,
  operation: () => Promise<R>,
  context: Readonly<Record<string, unknown>> = {},
): Promise<R> {
  let replayFirst = !isNotSent(first);
  return retryingTransient(
    logger,
    what,
    () => {
      if (!replayFirst) return operation();
      replayFirst = false;
      return Promise.reject(first);
    },
    undefined,
    context,
  );
}
