export { RespireAdmin } from './admin.js';
export type { RespireAdminOptions, QueueConfig, StreamConfig, DiscoveryOptions } from './admin.js';
export { describeBytes } from './payload.js';
export type { PayloadView, DescribeBytesOptions } from './payload.js';
export type {
  AdminApi,
  Actor,
  AuditRecord,
  BulkOptions,
  BulkProgress,
  BulkResult,
  ConsumerInfo,
  DeadLetterRecord,
  DeleteResult,
  EntryBody,
  ForeignRecord,
  GroupStatus,
  IdleConsumerResult,
  Overview,
  Page,
  PageOptions,
  PendingActionResult,
  PendingEntry,
  QueueDeadLetter,
  QueueDelivery,
  QueueResource,
  QueueStatus,
  Resource,
  ResourceId,
  RetryResult,
  StreamResource,
  StreamStatus,
  WorkerDeadLetter,
} from './api.js';
