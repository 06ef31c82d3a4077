export { createStreamWorkerTelemetry } from './worker-telemetry.js';
export type { StreamWorkerTelemetry, TelemetryOptions } from './worker-telemetry.js';
export { createQueueTelemetry } from './queue-telemetry.js';
export type { QueueTelemetryOptions } from './queue-telemetry.js';
export { traceContextFields, parseTraceParent, parseTraceState, extractParentContext } from './trace-context.js';
export type { ParsedTraceParent, TraceContextFieldOptions } from './trace-context.js';
export { GroupPoller } from './group-gauges.js';
export type { GroupSample, GroupSource } from './group-gauges.js';
export * from './names.js';
