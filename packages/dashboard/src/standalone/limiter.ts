// The failed sign-in limiter of the standalone server.
import { setTimeout as sleep } from 'node:timers/promises';

/** Failed sign-ins (form or Authorization header) one address may make per window before it is locked out. */
export const MAX_FAILURES = 10;
export const FAILURE_WINDOW_MS = 60_000;
/** Every failed sign-in is answered after this delay, so guesses cannot be made at wire speed. */
export const FAILURE_DELAY_MS = 250;
/** Addresses remembered at most (the oldest are forgotten first), so a flood of addresses cannot fill memory. */
const MAX_ADDRESSES = 10_000;

/**
 * Counts failed sign-ins per client address (the socket's, never X-Forwarded-For): after
 * {@link MAX_FAILURES} in {@link FAILURE_WINDOW_MS}, that address is refused (429) until the
 * window ends. A successful sign-in clears its count.
 */
export class FailureLimiter {
  readonly #failures = new Map<string, { count: number; sinceMs: number }>();

  /** Seconds until `address` may try again, or 0 when it may try now. */
  lockedFor(address: string, nowMs = Date.now()): number {
    const entry = this.#failures.get(address);
    if (!entry) return 0;
    if (nowMs - entry.sinceMs >= FAILURE_WINDOW_MS) {
      this.#failures.delete(address);
      return 0;
    }
    return entry.count >= MAX_FAILURES ? Math.ceil((entry.sinceMs + FAILURE_WINDOW_MS - nowMs) / 1000) : 0;
  }

  /** Records a failure of `address` and waits the fixed delay. */
  async fail(address: string, nowMs = Date.now()): Promise<void> {
    const entry = this.#failures.get(address);
    if (entry && nowMs - entry.sinceMs < FAILURE_WINDOW_MS) entry.count++;
    else {
      this.#failures.delete(address);
      if (this.#failures.size >= MAX_ADDRESSES) this.#failures.delete(this.#failures.keys().next().value!);
      this.#failures.set(address, { count: 1, sinceMs: nowMs });
    }
    await sleep(FAILURE_DELAY_MS);
  }

  succeed(address: string): void {
    this.#failures.delete(address);
  }
}
