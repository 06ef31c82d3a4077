// The failed sign-in limiter of the standalone server: per address, with each user's share, so one user's success never clears another's failures.
import { setTimeout as sleep } from 'node:timers/promises';

/** Failed sign-ins (form or Authorization header) one address may make per window before it is locked out. */
export const MAX_FAILURES = 10;
export const FAILURE_WINDOW_MS = 60_000;
/** Every failed sign-in is answered after this delay, so guesses cannot be made at wire speed. */
export const FAILURE_DELAY_MS = 250;
/** Addresses remembered at most (the oldest are forgotten first), so a flood of addresses cannot fill memory. */
const MAX_ADDRESSES = 10_000;
/** User names remembered per address at most: guesses at many names count on the address all the same. */
const MAX_NAMES = 64;

/** The failures of one address in its window: in all, and per user name tried (`''` for a bearer token). */
interface Window {
  sinceMs: number;
  total: number;
  byName: Map<string, number>;
  /** Sign-ins being checked now: they count against the limit until they end, so a burst of guesses sent at once gets no more than the limit. */
  inFlight: number;
}

/**
 * Counts failed sign-ins per client address (the socket's, never X-Forwarded-For): after
 * {@link MAX_FAILURES} in {@link FAILURE_WINDOW_MS}, that address is refused (429) until the
 * window ends. A sign-in is counted from the moment it is checked ({@link begin}), so many sent at
 * once cannot all slip under the limit. A successful sign-in of a user takes back only the
 * failures against that same user name from that address (a mistyped token before the right
 * one); failures against other users stay counted, so signing in with one's own token never buys
 * more guesses at another's.
 */
export class FailureLimiter {
  readonly #failures = new Map<string, Window>();

  /** Seconds until `address` may try again, or 0 when it may try now. */
  lockedFor(address: string, nowMs = Date.now()): number {
    const entry = this.#current(address, nowMs);
    if (!entry) return 0;
    return entry.total + entry.inFlight >= MAX_FAILURES ? Math.ceil((entry.sinceMs + FAILURE_WINDOW_MS - nowMs) / 1000) : 0;
  }

  /** A sign-in of `address` is being checked: it counts against the limit until it fails, succeeds or ends. */
  begin(address: string, nowMs = Date.now()): void {
    this.#window(address, nowMs).inFlight++;
  }

  /** The sign-in that {@link begin} counted failed, against user `name` (`''` when none was given); waits the fixed delay. */
  async fail(address: string, name = '', nowMs = Date.now()): Promise<void> {
    const entry = this.#window(address, nowMs);
    entry.inFlight = Math.max(0, entry.inFlight - 1);
    entry.total++;
    if (entry.byName.has(name) || entry.byName.size < MAX_NAMES) entry.byName.set(name, (entry.byName.get(name) ?? 0) + 1);
    await sleep(FAILURE_DELAY_MS);
  }

  /** The sign-in of user `name` succeeded: its own failures from this address no longer count; others' do. */
  succeed(address: string, name: string, nowMs = Date.now()): void {
    const entry = this.#current(address, nowMs);
    if (!entry) return;
    entry.inFlight = Math.max(0, entry.inFlight - 1);
    const own = entry.byName.get(name);
    if (own === undefined) return;
    entry.total -= own;
    entry.byName.delete(name);
  }

  /** The sign-in ended neither way (a request authenticated by a token, an error): it no longer counts. */
  end(address: string, nowMs = Date.now()): void {
    const entry = this.#current(address, nowMs);
    if (entry) entry.inFlight = Math.max(0, entry.inFlight - 1);
  }

  #window(address: string, nowMs: number): Window {
    let entry = this.#current(address, nowMs);
    if (!entry) {
      if (this.#failures.size >= MAX_ADDRESSES) this.#failures.delete(this.#failures.keys().next().value!);
      entry = { sinceMs: nowMs, total: 0, byName: new Map(), inFlight: 0 };
      this.#failures.set(address, entry);
    }
    return entry;
  }

  /** The address's window, or undefined once it ended. */
  #current(address: string, nowMs: number): Window | undefined {
    const entry = this.#failures.get(address);
    if (entry && nowMs - entry.sinceMs >= FAILURE_WINDOW_MS && entry.inFlight === 0) {
      this.#failures.delete(address);
      return undefined;
    }
    return entry;
  }
}
