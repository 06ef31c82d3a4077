// Polls one worker's consumer group for the lag and pending gauges, never overlapping.
/** The latest XINFO GROUPS sample of one worker, refreshed only while a metric reader collects. */
export interface GroupSample {
  /** `null` when Redis reports lag as unknown (never reported as 0). */
  readonly lag: number | null;
  readonly pending: number;
}

export interface GroupSource {
  readonly telemetryName: string;
  readonly metricsPollIntervalMs: number;
  readonly metricsPollTimeoutMs: number;
  queryGroup(): Promise<GroupSample | null>;
}

/**
 * Polls one worker's group for the lag and pending gauges (README "Instruments"): a query runs only when a
 * reader observed the gauges (a listener exists), at most once per `metricsPollIntervalMs`, one at
 * a time and never overlapping (a query that outlives its `metricsPollTimeoutMs` clears the
 * sample, and no new query starts until it settles). Failures, timeouts and a missing group clear
 * the sample; `stop` clears it for good.
 *
 * The first observation waits for the first query, at most `metricsPollTimeoutMs` (observable
 * callbacks may be asynchronous), so the first collection after a worker starts already has its
 * gauges; later observations return the latest sample at once and refresh it in the background.
 */
export class GroupPoller {
  #sample: GroupSample | null = null;
  /** Settles when the query in flight settles or times out, whichever is first; undefined when none runs. */
  #current: Promise<void> | undefined;
  #inFlight = false;
  #polledOnce = false;
  #lastStart = Number.NEGATIVE_INFINITY;
  #stopped = false;
  #generation = 0;

  constructor(
    readonly source: GroupSource,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Called from the gauges' callback: the current sample, refreshed when due. Until a first query
   * has settled (or timed out) it waits for it, bounded by `metricsPollTimeoutMs`.
   */
  async observe(): Promise<GroupSample | null> {
    if (this.#stopped) return null;
    this.#refreshIfDue();
    if (!this.#polledOnce && this.#current !== undefined) await this.#current;
    return this.#sample;
  }

  stop(): void {
    this.#stopped = true;
    this.#generation++;
    this.#sample = null;
  }

  #refreshIfDue(): void {
    if (this.#inFlight || this.now() - this.#lastStart < this.source.metricsPollIntervalMs) return;
    this.#inFlight = true;
    this.#lastStart = this.now();
    const generation = this.#generation;
    let timedOut = false;
    let settle!: () => void;
    this.#current = new Promise<void>((resolve) => (settle = resolve));
    const done = () => {
      this.#polledOnce = true;
      settle();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      if (generation === this.#generation) this.#sample = null;
      done();
    }, this.source.metricsPollTimeoutMs);
    timer.unref?.();
    let query: Promise<GroupSample | null>;
    try {
      query = this.source.queryGroup();
    } catch (error) {
      query = Promise.reject(error);
    }
    query
      .then(
        (sample) => {
          if (!timedOut && generation === this.#generation) this.#sample = sample;
        },
        () => {
          if (generation === this.#generation) this.#sample = null;
        },
      )
      .finally(() => {
        clearTimeout(timer);
        this.#inFlight = false;
        this.#current = undefined;
        done();
      });
  }
}
