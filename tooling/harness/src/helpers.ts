// Small test helpers: waiting on a condition, unique names and keys, stopping what a test started.
import { randomBytes } from 'node:crypto';
import { afterEach } from 'vitest';

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `stepMs` until it returns a truthy value (returned) or `timeoutMs` passes (throws). */
export async function eventually<R>(check: () => Promise<R> | R, timeoutMs = 8000, stepMs = 25): Promise<R> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(stepMs);
  }
}

/** A name no other test uses: `<label>-<12 hex digits>`. */
export function uniqueName(label = 'q'): string {
  return `${label}-${randomBytes(6).toString('hex')}`;
}

/** Stream keys no other test uses, sharing one hash tag: `{tag}:events` and `{tag}:dead`. */
export function uniqueKeys(label = 's'): { stream: string; dead: string; tag: string } {
  const tag = uniqueName(label);
  return { tag, stream: `{${tag}}:events`, dead: `{${tag}}:dead` };
}

/**
 * Registers an `afterEach` that stops everything handed to the returned function during a test
 * (workers, hosts: anything with `stop(timeoutMs)`), so a failing test leaves nothing running.
 * Call it at a test file's or `describe`'s top level.
 */
export function stopAfterEach<T extends { stop(timeoutMs?: number): Promise<unknown> }>(timeoutMs = 1000): (item: T) => T {
  const running: T[] = [];
  afterEach(async () => {
    await Promise.allSettled(running.splice(0).map((item) => item.stop(timeoutMs)));
  });
  return (item) => {
    running.push(item);
    return item;
  };
}
