// ReliableQueue's metrics and spans, on @opentelemetry/api.
import { SpanKind, SpanStatusCode, context, metrics, trace, type Attributes, type Context } from '@opentelemetry/api';
import {
  RespireValidationError,
  type QueueInstrumentation,
  type QueueOperationEnd,
  type QueueOperationName,
  type QueueOperationStart,
} from '@respire/core-scripts';
import { describeValue, exceptionType } from '@respire/core-scripts/internal';
import * as names from './names.js';
import { extractParentContext, traceContextFields } from './trace-context.js';
import type { TelemetryOptions } from './worker-telemetry.js';

/** Span kind and semantic-convention operation type of each queue operation. */
const OPERATIONS: Record<QueueOperationName, { kind: SpanKind; type: string; name: string }> = {
  send: { kind: SpanKind.PRODUCER, type: 'send', name: 'send' },
  receive: { kind: SpanKind.CLIENT, type: 'receive', name: 'receive' },
  ack: { kind: SpanKind.CLIENT, type: 'settle', name: 'ack' },
  nack: { kind: SpanKind.CLIENT, type: 'settle', name: 'nack' },
  // Semantic conventions have no operation type for a visibility change; the span is named for it.
  extend: { kind: SpanKind.CLIENT, type: 'settle', name: 'extend' },
};

/**
 * The parent context of a consumer's span for a received queue message (README "Queue trace
 * context"): the remote parent from its `traceparent` header when valid (its `tracestate` kept
 * only when valid too, the seed's rules: strict traceparent, at most 512 bytes and 32 members of
 * tracestate), else the root context — never the host's active span. No baggage is read.
 *
 * @example
 * ```ts
 * for (const message of await queue.receive(30_000)) {
 *   await tracer.startActiveSpan('process order', { kind: SpanKind.CONSUMER }, queueMessageContext(message), async (span) => {
 *     await handle(message.payload);
 *     span.end();
 *   });
 * }
 * ```
 */
export function queueMessageContext(message: { readonly headers?: Readonly<Record<string, unknown>> }): Context {
  const headers = message?.headers;
  const read = (name: string): string | undefined => {
    const value = headers?.[name];
    return typeof value === 'string' ? value : undefined;
  };
  return extractParentContext(read('traceparent'), read('tracestate'));
}

/** Queue instrumentation: pass it as `ReliableQueue`'s or `ReliableTopic`'s `instrumentation`. */
export type QueueTelemetry = QueueInstrumentation;

export interface QueueTelemetryOptions extends TelemetryOptions {
  /**
   * Low-cardinality name of this queue's role for the `respire.queue.name` metric attribute
   * (`[A-Za-z0-9._-]{1,128}`), as the worker's telemetryName; never a tenant or message ID.
   * @defaultValue 'default'
   */
  telemetryName?: string;
}

/**
 * Metrics and tracing for `ReliableQueue` (this package's own names; pass it as the queue's
 * `instrumentation`). Same rules as the worker's: no keys, entry IDs or payloads in metrics.
 *
 * - `respire.queue.operation.duration` (histogram, s): each send, receive, ack, nack and extend call,
 *   tagged `respire.queue.name`, `respire.queue.operation` and `respire.queue.outcome` (ok | error).
 * - `respire.queue.messages` (counter, `{message}`): messages sent (duplicates excluded), received,
 *   acked, nacked and extended, tagged `respire.queue.name` and `respire.queue.operation`.
 * - `respire.queue.dead_letters` (counter, `{message}`): messages a receive moved to the dead-letter stream.
 * - Each send (and each message of a sendMany) carries the send span's W3C trace context in the
 *   message's `traceparent` and `tracestate` headers, unless the message already has them;
 *   {@link queueMessageContext} makes a received message's span a child of it.
 * - A `ReliableTopic`: publish is a `send` on the topic's name; a subscription's operations add its
 *   name as `respire.queue.subscription` to their metrics and `messaging.consumer.group.name` to their spans.
 * - Spans `<queue> send` (PRODUCER), `<queue> receive`, `<queue> ack`, `<queue> nack`,
 *   `<queue> extend` (CLIENT) with the messaging semantic-convention attributes (extend's
 *   `messaging.operation.type` is `settle`: the conventions name no visibility change).
 *   `messaging.batch.message_count` is the number of receipts for ack, nack and extend, and for receive the number of messages received — absent
 *   when the receive failed (never the requested `max`). A failed operation's span has status
 *   ERROR and `error.type` = the error's class name, never its message.
 *
 * @throws {@link RespireValidationError} when `telemetryName` does not match `[A-Za-z0-9._-]{1,128}`.
 */
export function createQueueTelemetry(options: QueueTelemetryOptions = {}): QueueTelemetry {
  const telemetryName = options.telemetryName ?? 'default';
  if (typeof telemetryName !== 'string' || !/^[A-Za-z0-9._-]{1,128}$/.test(telemetryName)) {
    throw new RespireValidationError('telemetryName', `must match [A-Za-z0-9._-]{1,128}, got ${describeValue(telemetryName)}`);
  }
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(names.INSTRUMENTATION_NAME);
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(names.INSTRUMENTATION_NAME);
  const duration = meter.createHistogram(names.QUEUE_OPERATION_DURATION, { unit: 's', description: 'Each reliable-queue operation.' });
  const messages = meter.createCounter(names.QUEUE_MESSAGES, { unit: '{message}', description: 'Messages sent, received, acked and nacked.' });
  const deadLetters = meter.createCounter(names.QUEUE_DEAD_LETTERS, { unit: '{message}', description: 'Messages moved to the dead-letter stream by receive.' });

  return {
    startOperation(start: QueueOperationStart) {
      const started = performance.now();
      const operation = OPERATIONS[start.operation];
      const attributes: Attributes = {
        [names.ATTR_MESSAGING_SYSTEM]: names.MESSAGING_SYSTEM,
        [names.ATTR_MESSAGING_OPERATION_NAME]: operation.name,
        [names.ATTR_MESSAGING_OPERATION_TYPE]: operation.type,
        [names.ATTR_MESSAGING_DESTINATION_NAME]: start.queue,
        [names.ATTR_QUEUE_NAME]: telemetryName,
      };
      // A topic subscription's operations: its name is the consumer group's (it is one on the topic's stream).
      const subscription = typeof start.subscription === 'string' ? start.subscription : undefined;
      if (subscription !== undefined) attributes[names.ATTR_MESSAGING_CONSUMER_GROUP_NAME] = subscription;
      // A receive's messageCount is the requested max: its batch size is known only at the end.
      if (start.operation !== 'send' && start.operation !== 'receive') attributes[names.ATTR_MESSAGING_BATCH_MESSAGE_COUNT] = start.messageCount;
      if (start.messageIds?.length === 1) attributes[names.ATTR_MESSAGING_MESSAGE_ID] = start.messageIds[0];
      const span = tracer.startSpan(`${start.queue} ${operation.name}`, { kind: operation.kind, attributes });
      // A send carries its span's W3C trace context in each message's headers: the consumer's span joins this trace.
      const messageHeaders = start.operation === 'send' ? traceContextFields({ context: trace.setSpan(context.active(), span) }) : undefined;
      return {
        messageHeaders,
        end(result: QueueOperationEnd) {
          const metricAttributes: Attributes = { [names.ATTR_QUEUE_NAME]: telemetryName, [names.ATTR_QUEUE_OPERATION]: start.operation };
          if (subscription !== undefined) metricAttributes[names.ATTR_QUEUE_SUBSCRIPTION] = subscription;
          try {
            duration.record((performance.now() - started) / 1000, {
              ...metricAttributes,
              [names.ATTR_QUEUE_OUTCOME]: result.error === undefined ? 'ok' : 'error',
            });
            const count =
              start.operation === 'send' ? (result.completed ?? (result.error === undefined && !result.duplicate ? 1 : 0)) : (result.completed ?? 0);
            if (count > 0) messages.add(count, metricAttributes);
            if (result.deadLettered) {
              deadLetters.add(
                result.deadLettered,
                subscription === undefined
                  ? { [names.ATTR_QUEUE_NAME]: telemetryName }
                  : { [names.ATTR_QUEUE_NAME]: telemetryName, [names.ATTR_QUEUE_SUBSCRIPTION]: subscription },
              );
            }
          } catch {
            // A failing exporter never changes an outcome.
          }
          try {
            if (result.messageId) span.setAttribute(names.ATTR_MESSAGING_MESSAGE_ID, result.messageId);
            if (start.operation === 'receive' && result.error === undefined && result.completed !== undefined) {
              span.setAttribute(names.ATTR_MESSAGING_BATCH_MESSAGE_COUNT, result.completed);
            }
            if (result.error !== undefined) {
              span.setStatus({ code: SpanStatusCode.ERROR });
              span.setAttribute(names.ATTR_ERROR_TYPE, exceptionType(result.error));
            }
            span.end();
          } catch {
            // Likewise.
          }
        },
      };
    },
  };
}
