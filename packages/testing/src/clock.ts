// The fake server's clock: the wall clock, or a virtual one tests move by hand.
/** Options of the server clock. */
export interface ClockOptions {
  /**
   * `'real'` follows the wall clock; `'virtual'` stands still until {@link FakeClock.advance}.
   * @defaultValue `'real'`
   */
  mode?: 'real' | 'virtual';
  /**
   * Start of a virtual clock, in Unix milliseconds.
   * @defaultValue the wall clock at start
   */
  startMs?: number;
}

interface Timer {
  readonly dueMs: number;
  readonly callback: () => void;
  handle: NodeJS.Timeout | undefined;
  cancelled: boolean;
}

/**
 * The server's clock. TIME, key expiries, stream IDs (`*`), idle times and blocking-read timeouts
 * follow it. A virtual clock moves only when a test calls {@link advance}, so visibility timeouts
 * and idle recovery need no sleeps. A real clock may also be advanced: the offset adds to the wall
 * clock.
 */
export class FakeClock {
  /** `'real'` or `'virtual'`. */
  readonly mode: 'real' | 'virtual';
  private offsetMs = 0;
  private virtualMs: number;
  private readonly timers = new Set<Timer>();

  constructor(options: ClockOptions = {}) {
    this.mode = options.mode ?? 'real';
    this.virtualMs = options.startMs ?? Date.now();
  }

  /** Current server time in Unix milliseconds, with a fraction (microsecond resolution). */
  nowMs(): number {
    if (this.mode === 'virtual') return this.virtualMs;
    return performance.timeOrigin + performance.now() + this.offsetMs;
  }

  /**
   * Moves the clock forward by `ms` milliseconds (fractions allowed) and fires blocking-read
   * timeouts that fall due.
   * @throws {@link RangeError} when `ms` is negative or not finite.
   */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advance(ms) takes a finite, non-negative number of milliseconds, got ${ms}`);
    if (this.mode === 'virtual') this.virtualMs += ms;
    else this.offsetMs += ms;
    this.fireDue();
  }

  /**
   * Sets a virtual clock to `unixMs` (may move backwards, as a server clock can).
   * @throws {@link Error} on a real clock.
   */
  set(unixMs: number): void {
    if (this.mode !== 'virtual') throw new Error('set() needs a virtual clock; start the server with clock: { mode: "virtual" }');
    this.virtualMs = unixMs;
    this.fireDue();
  }

  /** Runs `callback` once `delayMs` of server time has passed. Returns a cancel function. @internal */
  schedule(delayMs: number, callback: () => void): () => void {
    const timer: Timer = { dueMs: this.nowMs() + delayMs, callback, handle: undefined, cancelled: false };
    this.timers.add(timer);
    this.arm(timer);
    return () => {
      timer.cancelled = true;
      if (timer.handle) clearTimeout(timer.handle);
      this.timers.delete(timer);
    };
  }

  /** Cancels every pending timer (server shutdown). @internal */
  dispose(): void {
    for (const timer of this.timers) if (timer.handle) clearTimeout(timer.handle);
    this.timers.clear();
  }

  private arm(timer: Timer): void {
    if (timer.handle) clearTimeout(timer.handle);
    timer.handle = undefined;
    if (this.mode === 'virtual') return;
    const wait = Math.max(0, timer.dueMs - this.nowMs());
    timer.handle = setTimeout(() => this.fire(timer), Math.min(wait, 2 ** 31 - 1));
  }

  private fire(timer: Timer): void {
    if (timer.cancelled) return;
    if (timer.dueMs > this.nowMs() + 0.5) {
      this.arm(timer);
      return;
    }
    this.timers.delete(timer);
    timer.callback();
  }

  private fireDue(): void {
    const due = [...this.timers].filter((t) => t.dueMs <= this.nowMs()).sort((a, b) => a.dueMs - b.dueMs);
    for (const timer of due) {
      if (timer.handle) clearTimeout(timer.handle);
      this.fire(timer);
    }
    if (this.mode === 'real') for (const timer of this.timers) this.arm(timer);
  }
}
