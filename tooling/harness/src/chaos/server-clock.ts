// The server's clock for chaos suites: TIME readings, the latest time seen, and an estimate to pace by.

/** A TIME reply (`[seconds, microseconds]`, as strings or numbers) in milliseconds with the microseconds as a fraction. */
export function timeReplyMs(reply: unknown): number {
  if (!Array.isArray(reply) || reply.length !== 2) throw new Error(`not a TIME reply: ${String(reply)}`);
  const ms = Number(String(reply[0])) * 1000 + Number(String(reply[1])) / 1000;
  if (!Number.isFinite(ms)) throw new Error(`not a TIME reply: ${String(reply)}`);
  return ms;
}

/**
 * What a suite knows of the server's clock. Judging uses only server readings: {@link ServerClock.floorMs}
 * is the latest TIME reply received so far, so any command sent after reading it runs at or after
 * that time. {@link ServerClock.estimateMs} extrapolates the latest reading with this process's
 * monotonic clock: good enough to pace actions (aim at a deadline), never to judge them.
 */
export class ServerClock {
  #floorMs = 0;
  #offsetMs: number | undefined;

  /** Records a TIME reading (ms) received just now. */
  observe(serverMs: number): void {
    if (serverMs > this.#floorMs) this.#floorMs = serverMs;
    this.#offsetMs = serverMs - performance.now();
  }

  /** The latest server time seen, in ms (0 before the first reading). */
  get floorMs(): number {
    return this.#floorMs;
  }

  /** The server's clock now, extrapolated from the latest reading (ms): for pacing only. */
  estimateMs(): number {
    return this.#offsetMs === undefined ? this.#floorMs : Math.max(this.#floorMs, performance.now() + this.#offsetMs);
  }
}
