// The queue's instrumentation seam: hooks @respire/otel implements, shielded from what they throw.
/**
 * The queue's instrumentation seam: dependency-free hooks that
 * `@respire/otel` implements. With none configured the queue does no extra work.
 * Hooks never affect an operation: anything they throw, return or reject with is swallowed.
 */
import { ignoreRejection } from '@respire/core-scripts/internal';

export type QueueOperationName = 'send' | 'receive' | 'ack' | 'nack';

/** What an operation is about to do. Carries no payloads. */
export interface QueueOperationStart {
  readonly operation: QueueOperationName;
  /** The logical queue name (no prefix, no hash tag). */
  readonly queue: string;
  /** Messages in the call: 1 for send, the number of receipts for ack/nack, `max` for receive. */
  readonly messageCount: number;
  /** Entry IDs for ack/nack. */
  readonly messageIds?: readonly string[];
}

/** How an operation ended. */
export interface QueueOperationEnd {
  /** The error it threw, if it did. */
  readonly error?: unknown;
  /** The entry ID appended by send (the original one for a duplicate). */
  readonly messageId?: string;
  /** True when send was suppressed as a duplicate. */
  readonly duplicate?: boolean;
  /** Messages received, or receipts that were acknowledged / released. */
  readonly completed?: number;
  /** Exhausted messages this receive moved to the dead-letter stream. */
  readonly deadLettered?: number;
}

/** Receives operation events from a {@link ReliableQueue}. */
export interface QueueInstrumentation {
  /** Called as an operation starts; `end` of the returned scope when it settles. */
  startOperation(start: QueueOperationStart): { end(result: QueueOperationEnd): void } | undefined;
}

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
