// The public entry of @respire/queue.
export {
  ReliableQueue,
  DEFAULT_RECEIVE_MAX,
  MAX_WAIT_MS,
  DEFAULT_DELIVERY_LIMIT,
  DEFAULT_DEDUPLICATION_WINDOW_MS,
  MAX_DEDUPLICATION_ID_BYTES,
  MAX_GROUP_ID_BYTES,
  MAX_GROUP_CONCURRENCY,
  MAX_PAYLOAD_BYTES,
  MAX_SEND_BATCH,
  MAX_SEND_BATCH_BYTES,
} from './queue.js';
export type { ReliableQueueOptions, GroupOptions, SendOptions, SendManyItem, SendResult, ReceiveOptions, ReceivedMessage } from './queue.js';
export {
  nackAfter,
  consoleConsumerLogger,
  DEFAULT_CONSUME_CONCURRENCY,
  DEFAULT_CONSUME_VISIBILITY_TIMEOUT_MS,
  DEFAULT_CONSUME_SHUTDOWN_TIMEOUT_MS,
  DEFAULT_RETRY_INITIAL_DELAY_MS,
  DEFAULT_RETRY_MAX_DELAY_MS,
} from './consumer.js';
export type { ConsumeOptions, ConsumeContext, ConsumeHandler, NackResult, QueueConsumer, QueueConsumerLogger } from './consumer.js';
export { MAX_BATCH } from './leases/leases.js';
export { MAX_HEADERS, MAX_HEADERS_BYTES } from '@respire/core-scripts/internal';
export type { MessageHeaders, ReceivedHeaders } from '@respire/core-scripts/internal';
export type { MessageReceipt } from './leases/leases.js';
export { bytesCodec, utf8Codec, jsonCodec } from './codec.js';
export type { Codec } from './codec.js';
export type { QueueInstrumentation, QueueOperationName, QueueOperationStart, QueueOperationEnd, QueueOperationScope } from './instrumentation.js';
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
export { ReliableTopic, TopicSubscription, TOPIC_TRIM_PER_PUBLISH } from './topic.js';
export type {
  ReliableTopicOptions,
  PublishOptions,
  PublishResult,
  PublishManyItem,
  PublishManyResult,
  SubscriptionStart,
  SubscriptionOptions,
  SubscriptionInfo,
  TrimOptions,
} from './topic.js';
export { PartitionedQueue, RespirePartitionCountError } from './partitions/partitioned-queue.js';
export type { PartitionedQueueOptions, PartitionedMessage, PartitionedSendResult } from './partitions/partitioned-queue.js';
export type { PartitionedConsumeHandler } from './partitions/partitioned-consume.js';
export { MAX_PARTITIONS } from './partitions/layout.js';
export { RespirePartitionGrowthError } from './partitions/grow.js';
export { RespirePartialSendError } from './partitions/partial-send.js';
export type { PartialSendItem } from './partitions/partial-send.js';
export type { GrowOptions, GrowResult } from './partitions/grow.js';
