// Every instrument, span and attribute name this package emits.
/**
 * Every name this package emits (README "Instruments" and "Spans"). Names starting `respire.` are
 * Respire's own (the stream worker's contract for the worker, this package for the queue); names
 * starting `messaging.` follow the OpenTelemetry messaging semantic conventions.
 */

/** The meter and tracer name, shared by the worker's and the queue's instruments and spans. */
export const INSTRUMENTATION_NAME = 'Respire.Streaming';

/** The stream worker's instruments. */
export const WORKER_PROCESSING_DURATION = 'respire.stream.worker.processing.duration';
export const WORKER_GROUP_LAG = 'respire.stream.worker.group.lag';
export const WORKER_GROUP_PENDING = 'respire.stream.worker.group.pending';
export const WORKER_DEAD_LETTERS = 'respire.stream.worker.dead_letters';

/** Reliable-queue instruments (this package's own, beyond the worker's contract). */
export const QUEUE_OPERATION_DURATION = 'respire.queue.operation.duration';
export const QUEUE_MESSAGES = 'respire.queue.messages';
export const QUEUE_DEAD_LETTERS = 'respire.queue.dead_letters';

/** Respire attributes. */
export const ATTR_WORKER_NAME = 'respire.worker.name';
export const ATTR_WORKER_OUTCOME = 'respire.worker.outcome';
export const ATTR_WORKER_REASON = 'respire.worker.reason';
export const ATTR_QUEUE_NAME = 'respire.queue.name';
export const ATTR_QUEUE_OPERATION = 'respire.queue.operation';
export const ATTR_QUEUE_OUTCOME = 'respire.queue.outcome';
/** A topic subscription's name on its operations' metrics (a few per topic, chosen by the application). */
export const ATTR_QUEUE_SUBSCRIPTION = 'respire.queue.subscription';
export const ATTR_DELIVERY_COUNT = 'respire.delivery_count';

/** OpenTelemetry messaging semantic-convention attributes (spans only). */
export const ATTR_MESSAGING_SYSTEM = 'messaging.system';
export const ATTR_MESSAGING_OPERATION_NAME = 'messaging.operation.name';
export const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
export const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
export const ATTR_MESSAGING_CONSUMER_GROUP_NAME = 'messaging.consumer.group.name';
export const ATTR_MESSAGING_MESSAGE_ID = 'messaging.message.id';
export const ATTR_MESSAGING_BATCH_MESSAGE_COUNT = 'messaging.batch.message_count';
/** OpenTelemetry's `error.type` (spans only): the exception type, never its message. */
export const ATTR_ERROR_TYPE = 'error.type';
export const MESSAGING_SYSTEM = 'redis';

/** The consumer span of every worker delivery attempt. */
export const WORKER_SPAN_NAME = 'stream process';
