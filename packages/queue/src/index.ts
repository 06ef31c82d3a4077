export {
  ReliableQueue,
  DEFAULT_RECEIVE_MAX,
  DEFAULT_DELIVERY_LIMIT,
  DEFAULT_DEDUPLICATION_WINDOW_MS,
  MAX_BATCH,
  MAX_DEDUPLICATION_ID_BYTES,
  MAX_PAYLOAD_BYTES,
} from './queue.js';
export type { ReliableQueueOptions, SendOptions, SendResult, ReceiveOptions, ReceivedMessage, MessageReceipt } from './queue.js';
export { bytesCodec, utf8Codec, jsonCodec } from './codec.js';
export type { Codec } from './codec.js';
export type { QueueInstrumentation, QueueOperationName, QueueOperationStart, QueueOperationEnd } from './instrumentation.js';
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
} from '@respire/core-scripts';
export type { RespireErrorCode, RedisClientLike } from '@respire/core-scripts';
