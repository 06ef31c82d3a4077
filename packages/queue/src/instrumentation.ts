// The queue's side of the instrumentation seam: an operation run inside its hooks, shielded from them.
import type { QueueInstrumentation, QueueOperationEnd, QueueOperationStart } from '@respire/core-scripts';
import { ignoreRejection } from '@respire/core-scripts/internal';

export type { QueueInstrumentation, QueueOperationEnd, QueueOperationName, QueueOperationStart } from '@respire/core-scripts';

/**
 * The seam's types are declared once in `@respire/core-scripts`; `@respire/otel` implements them.
 * With no hooks configured the queue does no extra work. Hooks never affect an operation: anything
 * they throw, return or reject with is swallowed.
 */

type Scope = { end(result: QueueOperationEnd): void } | undefined;

/** Runs `operation` inside the hooks, shielding it from anything the hooks throw. */
export async function instrumented<R>(
  instrumentation: QueueInstrumentation | undefined,
  start: QueueOperationStart,
  operation: () => Promise<R>,
  describe: (result: R) => QueueOperationEnd,
  describeError: (error: unknown) => QueueOperationEnd = (error) => ({ error }),
): Promise<R> {
  if (!instrumentation) return operation();
  let scope: Scope;
  try {
    scope = instrumentation.startOperation(start);
    ignoreRejection(scope); // an async startOperation: its rejection must not go unhandled
  } catch {
    scope = undefined;
  }
  try {
    const result = await operation();
    safeEnd(scope, () => describe(result));
    return result;
  } catch (error) {
    safeEnd(scope, () => describeError(error));
    throw error;
  }
}

function safeEnd(scope: Scope, result: () => QueueOperationEnd): void {
  try {
    ignoreRejection(scope?.end(result()));
  } catch {
    // Telemetry never changes an outcome.
  }
}
