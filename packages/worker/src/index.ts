// The public entry of @respire/worker.
export { StreamWorker } from './worker.js';
export type { StreamWorkerState } from './worker.js';
export { StreamWorkerHost, DEFAULT_MAX_RESTARTS, DEFAULT_RESTART_INITIAL_DELAY_MS, DEFAULT_RESTART_MAX_DELAY_MS } from './host.js';
export type { StreamWorkerHostOptions, StreamWorkerFaultPolicy, StreamWorkerRestartOptions } from './host.js';
export {
  StreamWorkerResult,
  MAX_DEAD_LETTER_FIELD_PAIRS,
  DEFAULT_CONSUMER_COUNT,
  DEFAULT_BATCH_SIZE,
  MAX_CONSUMER_COUNT,
  MAX_BATCH_SIZE,
  DEFAULT_READ_WAIT_MS,
  DEFAULT_MINIMUM_IDLE_TIME_MS,
  DEFAULT_RECOVERY_POLL_INTERVAL_MS,
  TRIM_ACKNOWLEDGED_PER_PAGE,
  DEFAULT_GROUP_START,
  DEFAULT_TELEMETRY_NAME,
  DEFAULT_METRICS_POLL_INTERVAL_MS,
  DEFAULT_METRICS_POLL_TIMEOUT_MS,
  DEFAULT_TRACE_PARENT_FIELD,
  DEFAULT_TRACE_STATE_FIELD,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  MAX_WORKER_DURABILITY_TIMEOUT_MS,
} from './options.js';
export type {
  StreamHandler,
  StreamHandlerResult,
  StreamWorkerScope,
  StreamWorkerOptions,
  StreamWorkerBaseOptions,
  StreamWorkerHandlerOptions,
} from './options.js';
export type { StreamEntry } from './entry.js';
export type { StreamWorkerLogger } from './logger.js';
export type { StreamWorkerInstrumentation, DeliveryStart, DeliveryScope, DeliveryOutcome, DeadLetterReason, WorkerInfo } from '@respire/core-scripts';
export { StreamProducer, DEFAULT_PRODUCER_RETRIES, MAX_PRODUCER_RETRIES } from './producer.js';
export type { StreamProducerOptions, StreamFields } from './producer.js';
export {
  RespireError,
  RespireValidationError,
  RespireStateError,
  RespireCrossSlotError,
  RespireKeyTypeError,
  RespirePermissionError,
  RespireUnsupportedServerError,
  RespireTooManyFieldsError,
  RespireServerError,
  RespireTransportError,
  RespireNotDurableError,
  RespireCodecError,
  RespireScopeError,
  RespireCanceledError,
  isRespireError,
} from '@respire/core-scripts';
export type { RespireErrorCode, RedisClientLike } from '@respire/core-scripts';
