// The public entry of @respire/otel.
export { createStreamWorkerTelemetry } from './worker-telemetry.js';
export type { StreamWorkerTelemetry, TelemetryOptions } from './worker-telemetry.js';
export { createQueueTelemetry, queueMessageContext } from './queue-telemetry.js';
export type { QueueTelemetry, QueueTelemetryOptions } from './queue-telemetry.js';
export { traceContextFields, parseTraceParent, parseTraceState, extractParentContext } from './trace-context.js';
export type { ParsedTraceParent, TraceContextFieldOptions } from './trace-context.js';
export type { GroupSample } from './group-gauges.js';
export {
  INSTRUMENTATION_NAME,
  WORKER_PROCESSING_DURATION,
  WORKER_GROUP_LAG,
  WORKER_GROUP_PENDING,
  WORKER_DEAD_LETTERS,
  QUEUE_OPERATION_DURATION,
  QUEUE_MESSAGES,
  QUEUE_DEAD_LETTERS,
  ATTR_WORKER_NAME,
  ATTR_WORKER_OUTCOME,
  ATTR_WORKER_REASON,
  ATTR_QUEUE_NAME,
  ATTR_QUEUE_OPERATION,
  ATTR_QUEUE_OUTCOME,
  ATTR_DELIVERY_COUNT,
  ATTR_MESSAGING_SYSTEM,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_CONSUMER_GROUP_NAME,
  ATTR_MESSAGING_MESSAGE_ID,
  ATTR_MESSAGING_BATCH_MESSAGE_COUNT,
  ATTR_ERROR_TYPE,
  MESSAGING_SYSTEM,
  WORKER_SPAN_NAME,
} from './names.js';
