// One handler run of consume(): its abort state, made cheap for the common handler that never reads its signal.
import type { ConsumeContext } from './consumer.js';

const ignore = () => {};

/**
 * One handler run: why it was aborted, its lease-extension state and the signal its handler sees.
 * The AbortController and the promise that ends the race with the handler are made only when
 * asked for: a handler that returns at once and never reads `signal` costs neither.
 */
export class Run {
  /** Set when the lease was lost (a failed or stale extension): the result is not acknowledged. */
  leaseLost = false;
  /** Set when stop() aborted it: the message is released at once. */
  stopped = false;
  /** Settles when the run has settled its message (or given it up). */
  done: Promise<void> = Promise.resolve();
  /** The lease extension's next timer; undefined once the handler ended. */
  timer: NodeJS.Timeout | undefined;
  /** True once the handler's race ended: late extension results change nothing. */
  ended = false;
  /** The lease's deadline as this process can bound it (performance.now() ms): from before the call that set it. */
  heldUntil = 0;
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  #rejectAborted: ((reason: unknown) => void) | undefined;
  #whenAborted: Promise<never> | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  /** The handler's signal, made on first read (already aborted if the run was). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts the signal (if made) and ends the race with the handler; repeated calls do nothing. */
  abort(reason: Error): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.#rejectAborted?.(reason);
  }

  /** Rejects with the abort reason when the run is aborted (at once if it already was). */
  whenAborted(): Promise<never> {
    if (this.#whenAborted === undefined) {
      this.#whenAborted = this.#aborted
        ? Promise.reject(this.#reason)
        : new Promise<never>((_, reject) => {
            this.#rejectAborted = reject;
          });
      this.#whenAborted.catch(ignore);
    }
    return this.#whenAborted;
  }
}

/** What a handler receives: only the signal, read through to its run (user code never sees the run). */
export class RunContext implements ConsumeContext {
  readonly #run: Run;
  constructor(run: Run) {
    this.#run = run;
  }
  get signal(): AbortSignal {
    return this.#run.signal;
  }
}
