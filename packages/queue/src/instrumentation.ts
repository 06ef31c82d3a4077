// The queue's side of the instrumentation seam: an operation run inside its hooks, shielded from them.
import type { QueueInstrumentation, QueueOperationEnd, QueueOperationScope, QueueOperationStart } from '@respire/core-scripts';
import { ignoreRejection, isWellFormedText } from '@respire/core-scripts/internal';

export type { QueueInstrumentation, QueueOperationEnd, QueueOperationName, QueueOperationScope, QueueOperationStart } from '@respire/core-scripts';

/**
 * The seam's types are declared once in `@respire/core-scripts`; `@respire/otel` implements them.
 * With no hooks configured the queue does no extra work. Hooks never affect an operation: anything
 * they throw, return or reject with is swallowed.
 */

type Scope = QueueOperationScope | undefined;

/** Headers a scope offers for the messages of a send, read once and guarded: only well-formed string pairs. */
export type InjectedHeaders = readonly (readonly [string, string])[] | undefined;

/**
 * Runs `operation` inside the hooks, shielding it from anything the hooks throw. `operation` gets
 * the headers the scope offers for a send's messages (`messageHeaders`), if any.
 */
export async function instrumented<R>(
  instrumentation: QueueInstrumentation | undefined,
  start: QueueOperationStart,
  operation: (injected: InjectedHeaders) => Promise<R>,
  describe: (result: R) => QueueOperationEnd,
  describeError: (error: unknown) => QueueOperationEnd = (error) => ({ error }),
): Promise<R> {
  if (!instrumentation) return operation(undefined);
  let scope: Scope;
  try {
    scope = instrumentation.startOperation(start);
    ignoreRejection(scope); // an async startOperation: its rejection must not go unhandled
  } catch {
    scope = undefined;
  }
  const injected = start.operation === 'send' ? offeredHeaders(scope) : undefined;
  try {
    const result = await operation(injected);
    safeEnd(scope, () => describe(result));
    return result;
  } catch (error) {
    safeEnd(scope, () => describeError(error));
    throw error;
  }
}

/**
 * An ack, nack or extend of `messages` (already validated into receipt `pairs`) inside the hooks:
 * one event for the call, its count of receipts that took effect at the end.
 */
export function instrumentedSettle(
  instrumentation: QueueInstrumentation | undefined,
  start: Omit<QueueOperationStart, 'messageCount' | 'messageIds'>,
  messages: readonly { readonly id: string }[],
  run: () => Promise<boolean[]>,
): Promise<boolean[]> {
  return instrumented(instrumentation, { ...start, messageCount: messages.length, messageIds: messages.map((m) => m.id) }, run, (results) => ({
    completed: results.filter(Boolean).length,
  }));
}

function offeredHeaders(scope: Scope): InjectedHeaders {
  try {
    const offered: unknown = scope?.messageHeaders;
    if (typeof offered !== 'object' || offered === null) return undefined;
    const pairs = Object.entries(offered).filter(
      (pair): pair is [string, string] => pair[0].length > 0 && isWellFormedText(pair[0]) && typeof pair[1] === 'string' && isWellFormedText(pair[1]),
    );
    return pairs.length > 0 ? pairs : undefined;
  } catch {
    return undefined; // a hostile scope never changes a send
  }
}

function safeEnd(scope: Scope, result: () => QueueOperationEnd): void {
  try {
    ignoreRejection(scope?.end(result()));
  } catch {
    // Telemetry never changes an outcome.
  }
}
