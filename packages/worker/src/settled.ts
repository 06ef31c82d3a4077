// Waiting for a promise to settle, for at most a while: how stop() bounds its waits for outcomes.
import { sleep } from '@respire/core-scripts/internal';

/** Waits until `promise` settles, or `ms` at most (its timer is then cleared). Never rejects. */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  const waited = new AbortController();
  await Promise.race([promise.then(noop, noop), sleep(ms, waited.signal)]);
  waited.abort();
}

function noop(): void {}
