// The public entry: what applications need beside @respire/queue and @respire/worker (errors, client
// types, the instrumentation seam's types). What the packages share among themselves (transport,
// scripts, validation) is in ./internal.
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
  RespireCodecError,
  RespireScopeError,
  RespireCanceledError,
  isRespireError,
} from './errors.js';
export type { RespireErrorCode, RespireErrorOptions } from './errors.js';
export { MAX_DURATION_MS } from './options.js';
export { MAX_BULK_BYTES } from './bulk-limit.js';
export type { RedisArg, RedisClientLike, StandaloneClientLike, ClusterClientLike } from './client.js';
export type {
  DeadLetterReason,
  DeliveryOutcome,
  DeliveryScope,
  DeliveryStart,
  QueueInstrumentation,
  QueueOperationEnd,
  QueueOperationScope,
  QueueOperationName,
  QueueOperationStart,
  StreamWorkerInstrumentation,
  WorkerInfo,
} from './instrumentation.js';
