/**
 * The instrumentation seams of `@respire/worker` and `@respire/queue` (DESIGN decision 9), as this
 * package uses them. They are structural copies rather than imports, so this package's types
 * never name either package: a service that installs only one of them (both are optional peers)
 * type-checks with `skipLibCheck: false`. A type test checks that they match the packages' own.
 */

/** How one worker delivery attempt ended (seed 002 `respire.worker.outcome`). */
export type DeliveryOutcome = 'ack' | 'nack' | 'dead-letter' | 'deleted' | 'stale' | 'canceled' | 'error';

/** The reason of a dead-letter record (seed 002 `_respire.reason`). */
export type DeadLetterReason = 'explicit' | 'nack' | 'processing-failed' | 'delivery-limit';

/** A worker delivery attempt as it starts, before deserialization. */
export interface DeliveryStart {
  readonly telemetryName: string;
  readonly stream: string;
  readonly destination: string;
  readonly group: string;
  readonly entryId: string;
  readonly deliveryCount: number;
  readonly traceParent: string | undefined;
  readonly traceState: string | undefined;
}

/** A live delivery attempt. */
export interface DeliveryScope {
  /**
   * @param errorType - the type (class name, never the message) of what was thrown when the
   *   attempt failed because something threw; the span is then marked ERROR with `error.type`.
   */
  end(outcome: DeliveryOutcome, errorType?: string): void;
}

/** What a worker exposes to the gauges while it runs. */
export interface WorkerInfo {
  readonly telemetryName: string;
  readonly stream: string;
  readonly group: string;
  readonly metricsPollIntervalMs: number;
  readonly metricsPollTimeoutMs: number;
  queryGroup(): Promise<{ lag: number | null; pending: number } | null>;
}

/** The worker's hooks (`StreamWorkerInstrumentation` of `@respire/worker`). */
export interface StreamWorkerInstrumentation {
  startDelivery?(start: DeliveryStart): DeliveryScope | undefined | void;
  deadLettered?(event: { readonly telemetryName: string; readonly reason: DeadLetterReason }): void;
  workerStarted?(info: WorkerInfo): void;
  workerStopped?(info: WorkerInfo): void;
}

/** A reliable-queue operation. */
export type QueueOperationName = 'send' | 'receive' | 'ack' | 'nack';

/** What a queue operation is about to do. */
export interface QueueOperationStart {
  readonly operation: QueueOperationName;
  readonly queue: string;
  /** 1 for send, the number of receipts for ack/nack, the requested `max` for receive. */
  readonly messageCount: number;
  readonly messageIds?: readonly string[];
}

/** How a queue operation ended. */
export interface QueueOperationEnd {
  readonly error?: unknown;
  readonly messageId?: string;
  readonly duplicate?: boolean;
  /** Messages received, or receipts acknowledged / released; absent when the operation failed. */
  readonly completed?: number;
  readonly deadLettered?: number;
}

/** The queue's hooks (`QueueInstrumentation` of `@respire/queue`). */
export interface QueueInstrumentation {
  startOperation(start: QueueOperationStart): { end(result: QueueOperationEnd): void } | undefined;
}
