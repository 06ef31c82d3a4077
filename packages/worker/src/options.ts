// StreamWorker's options: their types, defaults and limits, and their validation before any I/O.
import { RespireValidationError, type DurabilityOptions, type RedisClientLike, type StreamWorkerInstrumentation } from '@respire/core-scripts';
import {
  MAX_DEAD_LETTER_FIELD_PAIRS,
  MAX_DEAD_LETTER_GROUP_BYTES,
  MAX_INT32,
  assertSameSlot,
  commandTarget,
  describeValue,
  isEntryId,
  safeGet,
  toDurationMs,
  toIntegerInRange,
  toKeyPrefix,
  toDurability,
  toOptions,
  type CommandTarget,
} from '@respire/core-scripts/internal';
import type { StreamEntry } from './entry.js';
import { consoleLogger, type StreamWorkerLogger } from './logger.js';

/**
 * What a handler returns (README "Results"). Anything else is an "unknown
 * result" and counts as a handler failure: the entry stays pending for recovery.
 */
export type StreamWorkerResult = 'ack' | 'nack' | 'dead-letter';

/** The three results as constants: `StreamWorkerResult.Ack`, `.Nack`, `.DeadLetter`. */
export const StreamWorkerResult = {
  /** Processing succeeded: acknowledge (fenced) the delivery. Return it only after success. */
  Ack: 'ack',
  /** Processing failed: leave the entry pending (XNACK FAIL on Redis 8.8+ when its idle time has elapsed). */
  Nack: 'nack',
  /** Append a dead-letter record and acknowledge the source atomically. Requires `deadLetterStream`. */
  DeadLetter: 'dead-letter',
} as const satisfies Record<string, StreamWorkerResult>;

/**
 * Handles one delivery. `signal` aborts only when the shutdown timeout expires (README "Faults,
 * shutdown and failover"); a result returned after that is not acknowledged. Must be idempotent: Redis can
 * deliver an entry more than once.
 */
export type StreamHandler<T> = (message: T, signal: AbortSignal) => StreamHandlerResult | Promise<StreamHandlerResult>;

/**
 * What a handler may return: one of {@link StreamWorkerResult}. The type also admits other strings
 * (so `async () => 'ack'` type-checks without `as const`); any value other than the three results is an
 * unknown result, a handler failure.
 */
export type StreamHandlerResult = StreamWorkerResult | (string & Record<never, never>);

/**
 * A per-delivery scope (README "Typed payloads and per-delivery scopes": each entry gets a new async DI scope, disposed after handling and
 * acknowledgement"). Create it from your container (awilix `createScope()`, a NestJS module ref, ...).
 */
export interface StreamWorkerScope<T> {
  /** The handler resolved inside this scope. */
  readonly handler: StreamHandler<T>;
  /** Disposes the scope after handling and completion. A failure here faults the worker. */
  dispose?(): void | PromiseLike<void>;
}

/** Default `consumerCount`: 1. */
export const DEFAULT_CONSUMER_COUNT = 1;
/** Default `batchSize`: 1. */
export const DEFAULT_BATCH_SIZE = 1;
/** Most readers, and most entries per read. */
export const MAX_CONSUMER_COUNT = 1000;
export const MAX_BATCH_SIZE = 1000;
/** Default `readWaitMs`: 5 s. */
export const DEFAULT_READ_WAIT_MS = 5000;
/** Default `minimumIdleTimeMs`: 1 min. */
export const DEFAULT_MINIMUM_IDLE_TIME_MS = 60_000;
/** Default `recoveryPollIntervalMs`: 5 s. */
export const DEFAULT_RECOVERY_POLL_INTERVAL_MS = 5000;
/** Most entries one `trimAcknowledgedEntries` pass trims (one per recovery page and reader). */
export const TRIM_ACKNOWLEDGED_PER_PAGE = 1000;
/** Default `groupStart`: the beginning of the stream. */
export const DEFAULT_GROUP_START = '0';
/** Default `telemetryName`. */
export const DEFAULT_TELEMETRY_NAME = 'default';
/** Default `metricsPollIntervalMs`: 30 s. */
export const DEFAULT_METRICS_POLL_INTERVAL_MS = 30_000;
/** Default `metricsPollTimeoutMs`: 5 s. */
export const DEFAULT_METRICS_POLL_TIMEOUT_MS = 5000;
/** Default `traceParentField` and `traceStateField`: the W3C header names. */
export const DEFAULT_TRACE_PARENT_FIELD = 'traceparent';
export const DEFAULT_TRACE_STATE_FIELD = 'tracestate';
/** Default drain time of `stop()` (the worker's `shutdownTimeoutMs` and the host's): 30 s. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;

/** Options shared by every form of {@link StreamWorkerOptions}. */
export interface StreamWorkerBaseOptions {
  /** The caller's node-redis v5/v6 client (`createClient` or `createCluster`), connected. Never closed by the worker. */
  client: RedisClientLike;
  /** The logical stream key (the `keyPrefix` is prepended). */
  stream: string;
  /** The consumer group. At most 256 bytes when `deadLetterStream` is set (it is written into records). */
  group: string;
  /** Prefix of every key (a key-prefixed view of the client, which node-redis has none of). @defaultValue `''` */
  keyPrefix?: string;
  /**
   * Stable consumer-name base; each reader uses `<base>-<index>` (zero-based). A stable name replays
   * its own pending entries once at startup, before new entries. Active workers sharing a group must
   * use different names; keep `consumerCount` the same across restarts.
   * @defaultValue a random base at every `start()`
   */
  consumerName?: string;
  /** Readers, and therefore the maximum number of concurrent handlers (1..1000). @defaultValue {@link DEFAULT_CONSUMER_COUNT} (1) */
  consumerCount?: number;
  /**
   * Entries fetched per read (1..1000), handled sequentially by that reader; their completions go to
   * Redis as one fenced script call. Counts entries, not bytes. @defaultValue {@link DEFAULT_BATCH_SIZE} (1)
   */
  batchSize?: number;
  /** BLOCK time of each read in ms (1..2^31-1). @defaultValue {@link DEFAULT_READ_WAIT_MS} (5000) */
  readWaitMs?: number;
  /**
   * Visibility timeout in ms (1..2^31-1) before an idle pending entry is recovered. Set it above
   * `batchSize` × worst-case handler duration plus acknowledgement time.
   * @defaultValue {@link DEFAULT_MINIMUM_IDLE_TIME_MS} (60000)
   */
  minimumIdleTimeMs?: number;
  /** How often each reader runs one recovery page, in ms (1..2^31-1). @defaultValue {@link DEFAULT_RECOVERY_POLL_INTERVAL_MS} (5000) */
  recoveryPollIntervalMs?: number;
  /** Create the stream and group at startup (XGROUP CREATE ... MKSTREAM), keeping an existing group. @defaultValue true */
  createGroup?: boolean;
  /** Position of a newly created group: `'0'` (beginning), `'$'` (new entries only) or an entry ID. @defaultValue {@link DEFAULT_GROUP_START} (`'0'`) */
  groupStart?: string;
  /** Acknowledge with XACKDEL ACKED on Redis 8.2+ (older servers XACK and keep the body). @defaultValue false */
  deleteAcknowledgedEntries?: boolean;
  /**
   * Beyond the contract (README "Trimming acknowledged entries"): after each recovery page, the
   * reader trims up to {@link TRIM_ACKNOWLEDGED_PER_PAGE} (1,000) of the stream's oldest entries
   * that every consumer group of the stream has acknowledged (delivered and no longer pending), on
   * every server version (the `worker-trim` script, XTRIM MINID); never an entry some group still
   * needs, and nothing on a stream with no group. A failed trim is logged as a warning and retried
   * at the next page; it never faults the worker. @defaultValue false
   */
  trimAcknowledgedEntries?: boolean;
  /**
   * Beyond the contract: each batch of completions (acknowledgements and dead letters) waits until
   * it reached `replicas` replicas and/or the AOF (`WAIT` / `WAITAOF`, pipelined behind it on its
   * connection; queue README "Durability"). `timeoutMs` is at most
   * {@link MAX_WORKER_DURABILITY_TIMEOUT_MS} (5000), so a batch's wait stays within its connection
   * deadline. A batch that falls short was applied: the worker logs a warning
   * (`completion not confirmed durable`) and goes on; a failover that loses it only makes the
   * entries pending again, to be delivered again (at least once). @defaultValue undefined (no wait)
   */
  durability?: DurabilityOptions;
  /**
   * Logical dead-letter stream key. Must differ from `stream` after the prefix and share its Cluster
   * slot (checked even on standalone Redis), e.g. `{orders}:events` and `{orders}:dead`.
   * @defaultValue none
   */
  deadLetterStream?: string | null;
  /** Maximum delivery attempts (1..2^31-1) before dead-lettering; requires `deadLetterStream`. @defaultValue none */
  deliveryLimit?: number | null;
  /** Metric and span dimension, `[A-Za-z0-9._-]{1,128}`, unique per `StreamWorkerHost`. @defaultValue {@link DEFAULT_TELEMETRY_NAME} (`'default'`) */
  telemetryName?: string;
  /** Lag and pending gauge refresh interval in ms (1..2^31-1). @defaultValue {@link DEFAULT_METRICS_POLL_INTERVAL_MS} (30000) */
  metricsPollIntervalMs?: number;
  /** Timeout of each gauge query in ms (1..2^31-1). @defaultValue {@link DEFAULT_METRICS_POLL_TIMEOUT_MS} (5000) */
  metricsPollTimeoutMs?: number;
  /** Stream field holding the W3C traceparent; `null` disables extraction. @defaultValue {@link DEFAULT_TRACE_PARENT_FIELD} (`'traceparent'`) */
  traceParentField?: string | null;
  /** Stream field holding the W3C tracestate; `null` ignores it. Must differ from `traceParentField`. @defaultValue {@link DEFAULT_TRACE_STATE_FIELD} (`'tracestate'`) */
  traceStateField?: string | null;
  /** How long `stop()` lets in-flight handlers drain before aborting them, in ms (1..2^31-1). @defaultValue {@link DEFAULT_SHUTDOWN_TIMEOUT_MS} (30000) */
  shutdownTimeoutMs?: number;
  /** Where warnings and faults are logged (exception types only). @defaultValue warnings and errors to the console */
  logger?: StreamWorkerLogger;
  /** Metrics/tracing hooks (`@respire/otel`). @defaultValue none */
  instrumentation?: StreamWorkerInstrumentation;
}

/** A plain handler, or a per-delivery scope factory that resolves one. */
export type StreamWorkerHandlerOptions<T> =
  | { handler: StreamHandler<NoInfer<T>>; createScope?: undefined }
  | { createScope: (entry: StreamEntry) => StreamWorkerScope<NoInfer<T>> | Promise<StreamWorkerScope<NoInfer<T>>>; handler?: undefined };

/**
 * Options of `new StreamWorker(...)`. With a type argument other than {@link StreamEntry} a
 * `deserialize(entry)` function is required; it receives the entry's
 * own field bytes and may run concurrently on different readers. A deserializer exception is a
 * handler failure.
 */
export type StreamWorkerOptions<T = StreamEntry> = StreamWorkerBaseOptions &
  StreamWorkerHandlerOptions<T> &
  ([T] extends [StreamEntry] ? { deserialize?: (entry: StreamEntry) => T } : { deserialize: (entry: StreamEntry) => T });

/** Longest `durability.timeoutMs` of a worker, in ms: half its completions' connection deadline. */
export const MAX_WORKER_DURABILITY_TIMEOUT_MS = 5_000;

/** The name of every option a worker accepts. */
type OptionName = keyof StreamWorkerBaseOptions | 'handler' | 'createScope' | 'deserialize';

/**
 * Every option name a worker accepts; anything else is a typo and fails at construction. Checked
 * against the option types both ways: a name missing here or there fails the build.
 */
const KNOWN_OPTIONS = [
  'client',
  'stream',
  'group',
  'keyPrefix',
  'consumerName',
  'consumerCount',
  'batchSize',
  'readWaitMs',
  'minimumIdleTimeMs',
  'recoveryPollIntervalMs',
  'createGroup',
  'groupStart',
  'deleteAcknowledgedEntries',
  'trimAcknowledgedEntries',
  'durability',
  'deadLetterStream',
  'deliveryLimit',
  'telemetryName',
  'metricsPollIntervalMs',
  'metricsPollTimeoutMs',
  'traceParentField',
  'traceStateField',
  'shutdownTimeoutMs',
  'logger',
  'instrumentation',
  'handler',
  'createScope',
  'deserialize',
] as const satisfies readonly OptionName[];
type Unlisted = Exclude<OptionName, (typeof KNOWN_OPTIONS)[number]>;
const everyOptionListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyOptionListed;

/** @internal Validated options with defaults applied: one field per option, plus what follows from them. */
export interface ResolvedOptions extends Readonly<Record<OptionName, unknown>> {
  readonly target: CommandTarget;
  /** Where completions go over the caller's client: `target`, with the `durability` waits when set. */
  readonly completionTarget: CommandTarget;
  readonly durability: DurabilityOptions | undefined;
  readonly client: RedisClientLike;
  /** The key prefix, `''` for none. */
  readonly keyPrefix: string;
  readonly stream: string;
  /** The stream as the caller named it, without the key prefix (for telemetry). */
  readonly logicalStream: string;
  readonly group: string;
  readonly consumerName: string | undefined;
  readonly consumerCount: number;
  readonly batchSize: number;
  readonly readWaitMs: number;
  readonly minimumIdleTimeMs: number;
  readonly recoveryPollIntervalMs: number;
  readonly createGroup: boolean;
  readonly groupStart: string;
  readonly deleteAcknowledgedEntries: boolean;
  readonly trimAcknowledgedEntries: boolean;
  readonly deadLetterStream: string | undefined;
  readonly deliveryLimit: number | undefined;
  readonly telemetryName: string;
  readonly metricsPollIntervalMs: number;
  readonly metricsPollTimeoutMs: number;
  readonly traceParentField: string | undefined;
  readonly traceStateField: string | undefined;
  readonly shutdownTimeoutMs: number;
  readonly logger: StreamWorkerLogger;
  readonly instrumentation: StreamWorkerInstrumentation | undefined;
  readonly handler: StreamHandler<unknown> | undefined;
  readonly createScope: ((entry: StreamEntry) => StreamWorkerScope<unknown> | PromiseLike<StreamWorkerScope<unknown>>) | undefined;
  readonly deserialize: ((entry: StreamEntry) => unknown) | undefined;
}

// 1,024 field/value pairs: the most a source entry may have when `deadLetterStream` is set.
export { MAX_DEAD_LETTER_FIELD_PAIRS };
const TELEMETRY_NAME = /^[A-Za-z0-9._-]{1,128}$/;
/** A group's start: '$', an entry ID, or its milliseconds alone (sequence 0), as XGROUP CREATE reads it. */
const isGroupStart = (id: string) => id === '$' || isEntryId(/^\d+$/.test(id) ? `${id}-0` : id);

function nonblank(argument: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new RespireValidationError(argument, 'must be a nonblank string');
  return value;
}

function optionalField(argument: string, value: unknown, fallback: string): string | undefined {
  if (value === undefined) return fallback;
  if (value === null) return undefined;
  return nonblank(argument, value);
}

function bool(argument: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new RespireValidationError(argument, `must be true or false, got ${describeValue(value)}`);
  return value;
}

/**
 * Validates every option before any I/O (README "Options": bad input fails at construction, nothing is sent).
 * @internal
 */
export function resolveOptions(raw: StreamWorkerOptions<unknown>): ResolvedOptions {
  if (typeof raw !== 'object' || raw === null) throw new RespireValidationError('options', 'must be an object');
  const o = raw as StreamWorkerBaseOptions & {
    handler?: unknown;
    createScope?: unknown;
    deserialize?: unknown;
  };
  toOptions('options', o, KNOWN_OPTIONS);
  const target = commandTarget(o.client);
  const durability = toDurability(o.durability);
  if (durability !== undefined && durability.timeoutMs > MAX_WORKER_DURABILITY_TIMEOUT_MS) {
    throw new RespireValidationError(
      'durability.timeoutMs',
      `must be at most ${MAX_WORKER_DURABILITY_TIMEOUT_MS} ms for a worker (a batch's wait stays within its connection deadline), got ${durability.timeoutMs}`,
    );
  }
  const completionTarget = durability === undefined ? target : commandTarget(o.client, 'client', { durability: o.durability });
  // Each reader blocks on a duplicate of the caller's client, never on the caller's own (README "Faults, shutdown and failover").
  if (typeof (o.client as { duplicate?: unknown }).duplicate !== 'function') {
    throw new RespireValidationError('client', 'must support duplicate() (each reader blocks on a duplicate of your client)');
  }
  const prefix = toKeyPrefix(o.keyPrefix);
  const logicalStream = nonblank('stream', o.stream);
  const stream = prefix + logicalStream;
  const group = nonblank('group', o.group);
  const consumerName = o.consumerName === undefined ? undefined : nonblank('consumerName', o.consumerName);
  const consumerCount = o.consumerCount === undefined ? DEFAULT_CONSUMER_COUNT : toIntegerInRange('consumerCount', o.consumerCount, 1, MAX_CONSUMER_COUNT);
  const batchSize = o.batchSize === undefined ? DEFAULT_BATCH_SIZE : toIntegerInRange('batchSize', o.batchSize, 1, MAX_BATCH_SIZE);
  const readWaitMs = o.readWaitMs === undefined ? DEFAULT_READ_WAIT_MS : toDurationMs('readWaitMs', o.readWaitMs);
  const minimumIdleTimeMs = o.minimumIdleTimeMs === undefined ? DEFAULT_MINIMUM_IDLE_TIME_MS : toDurationMs('minimumIdleTimeMs', o.minimumIdleTimeMs);
  const recoveryPollIntervalMs =
    o.recoveryPollIntervalMs === undefined ? DEFAULT_RECOVERY_POLL_INTERVAL_MS : toDurationMs('recoveryPollIntervalMs', o.recoveryPollIntervalMs);
  const createGroup = bool('createGroup', o.createGroup, true);
  const groupStart = o.groupStart === undefined ? DEFAULT_GROUP_START : nonblank('groupStart', o.groupStart);
  if (!isGroupStart(groupStart)) {
    throw new RespireValidationError('groupStart', `must be '0', '$' or an entry ID like '1700000000000-0', got '${groupStart}'`);
  }
  const deleteAcknowledgedEntries = bool('deleteAcknowledgedEntries', o.deleteAcknowledgedEntries, false);
  const trimAcknowledgedEntries = bool('trimAcknowledgedEntries', o.trimAcknowledgedEntries, false);
  const deadLetterStream =
    o.deadLetterStream === undefined || o.deadLetterStream === null ? undefined : prefix + nonblank('deadLetterStream', o.deadLetterStream);
  let deliveryLimit: number | undefined;
  if (o.deliveryLimit !== undefined && o.deliveryLimit !== null) {
    deliveryLimit = toIntegerInRange('deliveryLimit', o.deliveryLimit, 1, MAX_INT32);
    if (deadLetterStream === undefined) throw new RespireValidationError('deliveryLimit', 'requires deadLetterStream');
  }
  if (deadLetterStream !== undefined) {
    assertSameSlot({ stream, deadLetterStream });
    if (Buffer.byteLength(group) > MAX_DEAD_LETTER_GROUP_BYTES) {
      throw new RespireValidationError('group', 'must be at most 256 bytes when deadLetterStream is set (it is written into _respire.group)');
    }
  }
  const telemetryName = o.telemetryName === undefined ? DEFAULT_TELEMETRY_NAME : o.telemetryName;
  if (typeof telemetryName !== 'string' || !TELEMETRY_NAME.test(telemetryName)) {
    throw new RespireValidationError('telemetryName', `must match [A-Za-z0-9._-]{1,128}, got ${describeValue(telemetryName)}`);
  }
  const metricsPollIntervalMs =
    o.metricsPollIntervalMs === undefined ? DEFAULT_METRICS_POLL_INTERVAL_MS : toDurationMs('metricsPollIntervalMs', o.metricsPollIntervalMs);
  const metricsPollTimeoutMs =
    o.metricsPollTimeoutMs === undefined ? DEFAULT_METRICS_POLL_TIMEOUT_MS : toDurationMs('metricsPollTimeoutMs', o.metricsPollTimeoutMs);
  const traceParentField = optionalField('traceParentField', o.traceParentField, DEFAULT_TRACE_PARENT_FIELD);
  const traceStateField = optionalField('traceStateField', o.traceStateField, DEFAULT_TRACE_STATE_FIELD);
  if (traceParentField !== undefined && traceParentField === traceStateField) {
    throw new RespireValidationError('traceStateField', `must differ from traceParentField ('${traceParentField}')`);
  }
  const shutdownTimeoutMs = o.shutdownTimeoutMs === undefined ? DEFAULT_SHUTDOWN_TIMEOUT_MS : toDurationMs('shutdownTimeoutMs', o.shutdownTimeoutMs);
  const logger = o.logger ?? consoleLogger;
  if (typeof logger !== 'object' || typeof safeGet(logger, 'warn') !== 'function' || typeof safeGet(logger, 'error') !== 'function') {
    throw new RespireValidationError('logger', 'must have warn and error methods');
  }
  const hasHandler = o.handler !== undefined;
  const hasScope = o.createScope !== undefined;
  if (hasHandler === hasScope) throw new RespireValidationError('handler', 'give exactly one of handler or createScope');
  if (hasHandler && typeof o.handler !== 'function') throw new RespireValidationError('handler', 'must be a function');
  if (hasScope && typeof o.createScope !== 'function') throw new RespireValidationError('createScope', 'must be a function');
  if (o.deserialize !== undefined && typeof o.deserialize !== 'function') {
    throw new RespireValidationError('deserialize', 'must be a function');
  }
  if (o.instrumentation !== undefined && (typeof o.instrumentation !== 'object' || o.instrumentation === null)) {
    throw new RespireValidationError('instrumentation', 'must be an object');
  }
  return {
    target,
    completionTarget,
    durability: o.durability,
    client: o.client,
    keyPrefix: prefix,
    stream,
    logicalStream,
    group,
    consumerName,
    consumerCount,
    batchSize,
    readWaitMs,
    minimumIdleTimeMs,
    recoveryPollIntervalMs,
    createGroup,
    groupStart,
    deleteAcknowledgedEntries,
    trimAcknowledgedEntries,
    deadLetterStream,
    deliveryLimit,
    telemetryName,
    metricsPollIntervalMs,
    metricsPollTimeoutMs,
    traceParentField,
    traceStateField,
    shutdownTimeoutMs,
    logger,
    instrumentation: o.instrumentation,
    handler: o.handler as StreamHandler<unknown> | undefined,
    createScope: o.createScope as ResolvedOptions['createScope'],
    deserialize: o.deserialize as ResolvedOptions['deserialize'],
  };
}
