export { StreamWorker } from './worker.js';
export type { StreamWorkerState } from './worker.js';
export { StreamWorkerHost } from './host.js';
export type { StreamWorkerHostOptions, StreamWorkerFaultPolicy } from './host.js';
export { StreamWorkerResult, MAX_DEAD_LETTER_FIELD_PAIRS } from './options.js';
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
export type {
  StreamWorkerInstrumentation,
  DeliveryStart,
  DeliveryScope,
  DeliveryOutcome,
  DeadLetterReason,
  WorkerInfo,
} from './instrumentation.js';
export { StreamProducer } from './producer.js';
export type { StreamProducerOptions, StreamFields } from './producer.js';
