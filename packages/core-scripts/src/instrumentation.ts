// The instrumentation seam: the hooks StreamWorker and ReliableQueue call, and @respire/otel implements (types only).
/*
 * Declared once, here, and exported as types by the package's main entry, so that `@respire/queue`,
 * `@respire/worker` and `@respire/otel` name the same types: the queue and the worker call these
 * hooks, `@respire/otel` implements them on `@opentelemetry/api`, and none of the three imports
 * another. They carry no payloads and depend on nothing. The queue and the worker never let a hook
 * affect an operation: whatever a hook throws, returns or rejects with is swallowed. Types only.
 */

/**
 * How one worker delivery attempt ended (the `respire.worker.outcome` of `@respire/otel`):
 * `ack`, `nack` (left pending or released), `dead-letter` (confirmed append), `deleted` (source
 * body gone; acknowledged without a record), `stale` (fenced out: recovered by another owner or
 * attempt), `canceled` (aborted at shutdown, not completed), `error` (a thrown handler or
 * deserializer that left the entry pending, or a fault: scope, completion or transport failure).
 */
export type DeliveryOutcome = 'ack' | 'nack' | 'dead-letter' | 'deleted' | 'stale' | 'canceled' | 'error';

/** The reason of a worker dead-letter record (its `_respire.reason` field). */
export type DeadLetterReason = 'explicit' | 'nack' | 'processing-failed' | 'delivery-limit';

/** A worker delivery attempt as it starts, before deserialization. Carries no payload. */
export interface DeliveryStart {
  /** The worker's `telemetryName`. */
  readonly telemetryName: string;
  /** The resolved stream key (with the key prefix), for spans only; never a metric dimension. */
  readonly stream: string;
  /** The stream as configured, without the key prefix (the messaging destination name). */
  readonly destination: string;
  /** The consumer group (spans only). */
  readonly group: string;
  readonly entryId: string;
  /** The Redis delivery count of this attempt (1 for a first read). */
  readonly deliveryCount: number;
  /**
   * The raw value of the worker's `traceParentField` when the entry has exactly one such field (a
   * parent written twice starts a new root, so it is passed as `undefined`). Validating the W3C
   * format is the instrumentation's job. `undefined` when extraction is disabled.
   */
  readonly traceParent: string | undefined;
  /** The raw value of the `traceStateField` when present exactly once; `undefined` otherwise or when disabled. */
  readonly traceState: string | undefined;
}

/** A live worker delivery attempt: `end` is called once when it settles (including fenced completion). */
export interface DeliveryScope {
  /**
   * @param outcome - how the attempt ended.
   * @param errorType - the type of what was thrown when the attempt failed because something threw
   *   (the handler, the deserializer, the scope, a completion): its class name as the worker logs
   *   it, never its message. With outcome `error` for a thrown handler or deserializer failure that
   *   left the entry pending; with the outcome that followed when it did (`dead-letter` for a
   *   failure on the final attempt). `@respire/otel` marks the span ERROR with `error.type` set to
   *   it (`_OTHER` for outcome `error` without it).
   */
  end(outcome: DeliveryOutcome, errorType?: string): void;
}

/** What a worker exposes to gauges while it runs. */
export interface WorkerInfo {
  readonly telemetryName: string;
  readonly stream: string;
  readonly group: string;
  /** How often the gauges may query (ms). */
  readonly metricsPollIntervalMs: number;
  /** How long one query may take (ms). */
  readonly metricsPollTimeoutMs: number;
  /**
   * Runs XINFO GROUPS on the stream and returns this group's `lag` (`null` when Redis reports it
   * unknown or is older than 7.0) and `pending`, or `null` when the group or stream is missing.
   */
  queryGroup(): Promise<{ lag: number | null; pending: number } | null>;
}

/**
 * Receives events from a `StreamWorker` (its `instrumentation` option). Every member is optional;
 * with none configured the worker does no extra work.
 */
export interface StreamWorkerInstrumentation {
  /**
   * A delivery attempt starts (also for delivery-limit completion without a handler call). Return
   * `undefined` when nothing is to be recorded for it: the worker then skips its `end`.
   */
  startDelivery?(start: DeliveryStart): DeliveryScope | undefined | void;
  /** A dead-letter append was confirmed (not for deleted source bodies or lost replies). */
  deadLettered?(event: { readonly telemetryName: string; readonly reason: DeadLetterReason }): void;
  /** The worker started; gauges may begin polling `info.queryGroup`. */
  workerStarted?(info: WorkerInfo): void;
  /** The worker stopped (or faulted); gauges must clear their samples. */
  workerStopped?(info: WorkerInfo): void;
}

/** A reliable-queue operation (`extend` is a lease extension: `extend` and `extendMany`). */
export type QueueOperationName = 'send' | 'receive' | 'ack' | 'nack' | 'extend';

/** What a queue operation is about to do. Carries no payloads. */
export interface QueueOperationStart {
  readonly operation: QueueOperationName;
  /** The logical queue name (no prefix, no hash tag); for a `ReliableTopic`, the topic's name. */
  readonly queue: string;
  /**
   * A topic subscription's name, for its receive, ack, nack and extend (queue README "Reliable
   * topic"); absent for a queue and for a topic's publish (`send`). Subscription names are chosen by
   * the application, a few per topic: a bounded dimension.
   */
  readonly subscription?: string;
  /** Messages in the call: 1 for send, the items of a sendMany, the number of receipts for ack/nack/extend, `max` for receive. */
  readonly messageCount: number;
  /** Entry IDs for ack/nack/extend. */
  readonly messageIds?: readonly string[];
}

/** How a queue operation ended. */
export interface QueueOperationEnd {
  /** The error it threw, if it did. */
  readonly error?: unknown;
  /** The entry ID appended by send (the original one for a duplicate). */
  readonly messageId?: string;
  /** True when send was suppressed as a duplicate. */
  readonly duplicate?: boolean;
  /**
   * Messages received, or receipts that were acknowledged / released / extended, or messages a
   * `sendMany` appended (duplicates excluded); absent when the operation failed, and for a single send.
   */
  readonly completed?: number;
  /** Exhausted messages this receive moved to the dead-letter stream. */
  readonly deadLettered?: number;
}

/** What {@link QueueInstrumentation.startOperation} returns: ended once when the operation settles. */
export interface QueueOperationScope {
  end(result: QueueOperationEnd): void;
  /**
   * For a send or sendMany: headers the queue adds to each message (`@respire/otel` puts the send
   * span's W3C trace context here). A message that already has a header of that name keeps its
   * own; names or values that are not well-formed strings are skipped, and none are added to a
   * message when they would take it past the header bounds (64 headers, 64 KiB encoded).
   */
  readonly messageHeaders?: Readonly<Record<string, string>>;
}

/** Receives operation events from a `ReliableQueue` or a `ReliableTopic` and its subscriptions (their `instrumentation` option). */
export interface QueueInstrumentation {
  /** Called as an operation starts; `end` of the returned scope when it settles. */
  startOperation(start: QueueOperationStart): QueueOperationScope | undefined;
}
