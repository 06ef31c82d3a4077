// The public entry of @respire/admin.
export { RespireAdmin } from './admin.js';
export type { RespireAdminOptions, QueueConfig, StreamConfig, DiscoveryOptions } from './admin.js';
export { HistorySampler, DEFAULT_HISTORY_INTERVAL_MS } from './history-sampler.js';
export type { HistorySamplerOptions } from './history-sampler.js';
export { historyKeys } from './history.js';
export type { HistorySettings } from './history.js';
export type { JobSettings } from './jobs.js';
export { describeBytes } from './payload.js';
export { DEFAULT_AUDIT_STREAM, DEFAULT_AUDIT_STREAM_MAX_LENGTH } from './audit.js';
export { isUnknownResource } from './resources.js';
export type {
  GroupBacklog,
  GroupDetail,
  GroupedKeys,
  GroupedQueueConfig,
  GroupedQueueResource,
  GroupedQueueStatus,
  GroupedQueueSummary,
  GroupedStatusOptions,
  InFlightHead,
  LargestBacklogs,
  ReadyGroup,
} from './grouped.js';
export { MAX_GROUPS_WALKED } from './grouped.js';
export type {
  MasterTotals,
  PartitionStatus,
  PartitionGeneration,
  PartitionTotals,
  PartitionedDeadLetter,
  PartitionedDeadLetterOptions,
  PartitionedQueueResource,
  PartitionedQueueStatus,
  PartitionedQueueSummary,
  UnavailablePartitionedQueue,
} from './partitioned.js';
export { MAX_PARTITIONS } from './redis.js';
export type { SeekResult, SeekTarget, SubscriptionRetryResult, SubscriptionStatus, TopicConfig, TopicResource, TopicStatus, TopicSummary } from './topics.js';
export { RespireNotFoundError, isNotFound, nearest } from './not-found.js';
export type { NotFoundDetail, NotFoundKind } from './not-found.js';
// The errors the admin API throws, for faces that validate their own options the same way.
export { RespireError, RespirePermissionError, RespireValidationError, isRespireError } from './redis.js';
export type { PayloadView, DescribeBytesOptions } from './payload.js';
export type {
  AdminApi,
  Actor,
  AuditRecord,
  BulkOptions,
  BulkProgress,
  BulkResult,
  ConsumerInfo,
  ConsumerList,
  ConsumerOptions,
  DeadLetterFilter,
  DeadLetterOptions,
  DeadLetterPage,
  DeadLetterRecord,
  DeleteResult,
  EntryBody,
  EntryInGroup,
  FindResult,
  ForeignRecord,
  GroupStatus,
  History,
  HistoryOptions,
  HistoryPoint,
  HistoryRecordResult,
  HistorySeries,
  IdleConsumerResult,
  Job,
  JobSpec,
  Overview,
  OverviewOptions,
  Page,
  PageOptions,
  PendingActionResult,
  PendingEntry,
  PendingExpectation,
  PendingOptions,
  QueueDeadLetter,
  QueueDelivery,
  QueueMessage,
  QueueMessageActionResult,
  QueueMessageExpectation,
  QueueResource,
  QueueStatus,
  Resource,
  ResourceId,
  RetryResult,
  RunningJob,
  StreamResource,
  StreamStatus,
  UnavailableResource,
  WorkerDeadLetter,
} from './api.js';
