// A delivery's DI scope: created before its handler runs, disposed once its completion is settled.
import { RespireScopeError } from '@respire/core-scripts';
import type { StreamEntry } from './entry.js';
import { exceptionType } from './logger.js';
import type { StreamHandler, StreamWorkerScope } from './options.js';

/**
 * Creates a delivery's scope and reads its handler once. Everything read from what the factory
 * returned is read inside a guard: it is user code.
 * @throws {@link RespireScopeError} when the factory throws or rejects, or resolves without a
 *   `handler` function (that scope is disposed first: it is still the caller's to release).
 */
export async function createScope(
  factory: (entry: StreamEntry) => StreamWorkerScope<unknown> | PromiseLike<StreamWorkerScope<unknown>>,
  entry: StreamEntry,
): Promise<{ scope: StreamWorkerScope<unknown>; handler: StreamHandler<unknown> }> {
  let scope: StreamWorkerScope<unknown> | undefined;
  let handler: unknown;
  try {
    scope = await factory(entry);
    handler = (scope as { handler?: unknown } | null | undefined)?.handler;
  } catch (error) {
    throw new RespireScopeError(`StreamWorker: scope creation failed (${exceptionType(error)})`, { cause: error });
  }
  if (typeof handler === 'function') return { scope: scope!, handler: handler as StreamHandler<unknown> };
  await disposeScope(scope).catch(() => {}); // the creation failure is the fault that matters
  throw new RespireScopeError('StreamWorker: scope creation failed (createScope must resolve to { handler })');
}

/**
 * Disposes a delivery's scope (README "Results": after handling and completion).
 * @throws {@link RespireScopeError} when `dispose` throws or rejects (a throwing `dispose` getter too).
 */
export async function disposeScope(scope: StreamWorkerScope<unknown> | undefined): Promise<void> {
  try {
    const method = (scope as { dispose?: unknown } | null | undefined)?.dispose;
    if (method) await (method as () => unknown).call(scope);
  } catch (error) {
    throw new RespireScopeError(`StreamWorker: scope disposal failed (${exceptionType(error)})`, { cause: error });
  }
}
