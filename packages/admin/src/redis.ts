// The admin's one door to @respire/core-scripts and to Redis: commands, scripts, reply shapes.
/**
 * Everything the admin package takes from `@respire/core-scripts`, in one place, plus the raw
 * command plumbing (routing, reply shapes of RESP2 and RESP3). No other module imports
 * core-scripts directly, so a change of its entry points is adapted here alone.
 */
import {
  RespireError,
  RespirePermissionError,
  RespireTransportError,
  RespireValidationError,
  isRespireError,
  type DurabilityOptions,
  type RedisArg,
  type RedisClientLike,
} from '@respire/core-scripts';
import {
  commandTarget,
  describeValue,
  infoField,
  isWellFormedText,
  keySlot,
  parseEntries as parseRawEntries,
  queueKeys,
  replyCode,
  scriptCalls,
  subscriptionKeys,
  toKeyPrefix,
  toRespireError,
  topicKeys,
  type CommandTarget,
  type ScriptArg,
} from '@respire/core-scripts/internal';

export {
  RespireError,
  RespirePermissionError,
  RespireTransportError,
  RespireValidationError,
  describeValue,
  infoField,
  isRespireError,
  keySlot,
  queueKeys,
  subscriptionKeys,
  toKeyPrefix,
  toRespireError,
  topicKeys,
  isWellFormedText,
};
export type { CommandTarget, RedisArg, RedisClientLike };
// The stored formats and the option validator, read and used as every package does.
export {
  GROUPED_LEASED_MARK,
  isEntryId,
  nextEntryId,
  parseLeaseMember,
  previousEntryId,
  readHeaders,
  readQueueDeadLetter,
  readQueueEntry,
  readWorkerDeadLetter,
  toDurationMs,
  toEntryId,
  toIntegerInRange,
  toOptions,
} from '@respire/core-scripts/internal';
// A partitioned queue's partition names and history, with the queue's own numbering (queue README "Scaling past one master").
export { MAX_GENERATIONS, MAX_PARTITIONS, parseHistory, partitionNames, partitionSet } from '@respire/core-scripts/internal';

/**
 * The admin scripts of core-scripts (lua/admin-*.lua), as their generated typed wrappers: each
 * takes its KEYS and ARGV by the names of the script's header and builds the positional arrays in
 * header order, so no call site here assembles them.
 */
const adminScripts = {
  retryWorker: scriptCalls.adminRetryWorkerDeadLetters,
  retryQueue: scriptCalls.adminRetryQueueDeadLetters,
  retryGrouped: scriptCalls.adminRetryGroupedDeadLetters,
  retrySubscription: scriptCalls.adminRetrySubscriptionDeadLetters,
  append: scriptCalls.adminAppendRetried,
  releasePending: scriptCalls.adminReleasePending,
  ackPending: scriptCalls.adminAckPending,
  removeIdleConsumers: scriptCalls.adminRemoveIdleConsumers,
  releaseQueueMessage: scriptCalls.adminReleaseQueueMessage,
  deleteQueueMessage: scriptCalls.adminDeleteQueueMessage,
  historyQueue: scriptCalls.adminHistoryQueue,
  historyStream: scriptCalls.adminHistoryStream,
  jobCreate: scriptCalls.adminJobCreate,
  jobStep: scriptCalls.adminJobStep,
  jobCancel: scriptCalls.adminJobCancel,
  groupBacklogs: scriptCalls.adminGroupBacklogs,
  // A topic subscription's seek is the queue package's own script (topic-seek), run as an operator action.
  topicSeek: scriptCalls.topicSeek,
  // The worker's trimAcknowledgedEntries script, run as an operator action on a worker stream.
  trimAcknowledged: scriptCalls.workerTrim,
};

/** The admin scripts that repair state (retries, pending and queue-message actions): the ones the `durability` option waits after. */
const REPAIRS: ReadonlySet<string> = new Set([
  'retryWorker',
  'retryQueue',
  'retryGrouped',
  'retrySubscription',
  'append',
  'releasePending',
  'ackPending',
  'removeIdleConsumers',
  'releaseQueueMessage',
  'deleteQueueMessage',
  'topicSeek',
  'trimAcknowledged',
]);

/** An admin script, by its short name. */
export type AdminScript = keyof typeof adminScripts;
/** The named KEYS and ARGV of an admin script (its header's names). */
export type AdminScriptArgs<S extends AdminScript> = Parameters<(typeof adminScripts)[S]>[1];
/** The decoded reply of an admin script (its header's `Reply` type). */
export type AdminScriptReply<S extends AdminScript> = Awaited<ReturnType<(typeof adminScripts)[S]>>;

/** One record for `admin-append-retried`: its ID (the idempotency ID) and the fields to append. */
export interface RetriedEntry {
  readonly id: string;
  readonly fields: readonly (readonly [Buffer, Buffer])[];
}

/** `admin-append-retried`'s variadic ARGV: per record its idempotency ID, n, then n field/value pairs. */
export function retriedEntries(entries: readonly RetriedEntry[]): ScriptArg[] {
  return entries.flatMap((e) => [e.id, e.fields.length, ...e.fields.flat()]);
}

/** How the admin talks to Redis: one command or script at a time, routed by key in a Cluster. */
export class Redis {
  readonly target: CommandTarget;
  /** Where repair scripts go: `target`, with the `durability` waits when set. */
  readonly repairTarget: CommandTarget;
  readonly client: RedisClientLike;

  constructor(client: unknown, commandTimeoutMs: number | undefined, durability?: DurabilityOptions) {
    this.target = commandTarget(client, 'client', commandTimeoutMs === undefined ? {} : { commandTimeoutMs });
    this.repairTarget = durability === undefined ? this.target : commandTarget(client, 'client', { commandTimeoutMs, durability });
    this.client = client as RedisClientLike;
  }

  get isCluster(): boolean {
    return this.target.isCluster;
  }

  /** One command on the node serving `key`; errors mapped to Respire errors. */
  send(key: string, args: readonly RedisArg[], operation: string, binary = false): Promise<unknown> {
    return this.target.send(key, args, { binary, operation });
  }

  /** Like {@link send}, but a server error reply is returned (not thrown) as `{ error }` (the reply). */
  async trySend(key: string, args: readonly RedisArg[], operation: string, binary = false): Promise<unknown> {
    try {
      return await this.target.send(key, args, { binary, operation });
    } catch (error) {
      // The transport keeps the server's reply as the cause of the Respire error it throws.
      if (replyCode(error) !== undefined) return { error: (error as Error).cause as Error };
      throw error;
    }
  }

  /**
   * Runs an admin script through its typed wrapper (EVALSHA, EVAL on NOSCRIPT) on the node serving
   * its first key.
   */
  script<S extends AdminScript>(name: S, args: AdminScriptArgs<S>, operation: string): Promise<AdminScriptReply<S>> {
    // One wrapper per name; TypeScript cannot relate `name` to `args` through the union itself.
    const call = adminScripts[name] as (target: CommandTarget, args: AdminScriptArgs<S>, options: { operation: string }) => Promise<AdminScriptReply<S>>;
    return call(REPAIRS.has(name) ? this.repairTarget : this.target, args, { operation });
  }

  /**
   * The server clock (TIME) of the node serving `key`, in ms since the epoch. TIME is not in the
   * `@read` ACL category and no read command tells the time, so for a read-only user that may not
   * run it the host clock stands in (other errors are thrown).
   */
  async timeMs(key: string, operation: string): Promise<number> {
    let reply: unknown[];
    try {
      reply = (await this.send(key, ['TIME'], operation)) as unknown[];
    } catch (error) {
      if (isRespireError(error, 'PERMISSION_DENIED')) return Date.now();
      throw error;
    }
    return Number(text(reply[0])) * 1000 + Math.floor(Number(text(reply[1])) / 1000);
  }

  /**
   * One plain client per master (the client itself on standalone Redis), for commands that have
   * no key, such as SCAN. Never closed here: node-redis owns the node clients of a Cluster.
   */
  async masters(): Promise<{ sendCommand(args: readonly RedisArg[], options?: object): Promise<unknown> }[]> {
    const c = this.client as unknown as {
      masters?: unknown[];
      nodeClient?(node: unknown): unknown;
      sendCommand(args: readonly RedisArg[], options?: object): Promise<unknown>;
    };
    if (!this.isCluster) return [c];
    const out = [];
    for (const master of c.masters ?? []) out.push((await c.nodeClient!(master)) as typeof c);
    return out;
  }
}

/** node-redis RESP type code of bulk strings: mapped to Buffer in binary replies. */
export const BINARY = { typeMapping: { 36: Buffer } };

/** A reply element as text (bulk strings may be Buffers). */
export function text(value: unknown): string {
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (value === null || value === undefined) return '';
  return String(value);
}

/** A reply element as bytes. */
export function bytes(value: unknown): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(text(value));
}

/** A number or null for nil / a missing field. */
export function numberOrNull(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = Number(text(value));
  return Number.isFinite(n) ? n : null;
}

/**
 * True when an XINFO field is present at all (Redis 7.2 `inactive`, 7.0 `lag`): a present field
 * with a nil value reads as null, an absent one as undefined.
 */
export function hasInfoField(item: unknown, name: string): boolean {
  return infoField(item, name) !== undefined;
}

/** A missing stream or group reads as `empty`; any other error reply (from `trySend`) is thrown as a Respire error. */
export function missingOrThrow<T>(reply: unknown, empty: T, operation: string): T {
  const error = (reply as { error: Error }).error;
  if (/^NOGROUP|no such key/i.test(error.message)) return empty;
  throw toRespireError(error, operation);
}

/** XRANGE / XREVRANGE reply → entries with byte fields as pairs. */
export function parseEntries(reply: unknown): { id: string; fields: [Buffer, Buffer][] }[] {
  return parseRawEntries(reply).map(({ id, fields }) => {
    const pairs: [Buffer, Buffer][] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) pairs.push([fields[i]!, fields[i + 1]!]);
    return { id, fields: pairs };
  });
}

/** ZRANGE ... WITHSCORES under RESP2 (flat) or RESP3 (pairs) → [member, score]. */
export function parseWithScores(reply: unknown): [string, number][] {
  if (!Array.isArray(reply)) return [];
  if (reply.length > 0 && Array.isArray(reply[0])) {
    return reply.map((pair) => [text((pair as unknown[])[0]), Number(text((pair as unknown[])[1]))]);
  }
  const out: [string, number][] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) out.push([text(reply[i]), Number(text(reply[i + 1]))]);
  return out;
}
export type { DurabilityOptions } from '@respire/core-scripts';
