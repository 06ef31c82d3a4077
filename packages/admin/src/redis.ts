/**
 * Everything the admin package takes from `@respire/core-scripts`, in one place, plus the raw
 * command plumbing (routing, reply shapes of RESP2 and RESP3). No other module imports
 * core-scripts directly, so a change of its entry points is adapted here alone.
 */
import {
  RespireError,
  RespirePermissionError,
  RespireValidationError,
  isRespireError,
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
  runScript,
  scripts,
  toKeyPrefix,
  toRespireError,
  type CommandTarget,
  type ScriptDefinition,
} from '@respire/core-scripts/internal';

export {
  RespireError,
  RespirePermissionError,
  RespireValidationError,
  describeValue,
  infoField,
  isRespireError,
  keySlot,
  queueKeys,
  toKeyPrefix,
  toRespireError,
  isWellFormedText,
};
export type { CommandTarget, RedisArg, RedisClientLike };

/** The admin scripts of core-scripts (lua/admin-*.lua). */
export const adminScripts = {
  retryWorker: scripts.adminRetryWorkerDeadLetters,
  retryQueue: scripts.adminRetryQueueDeadLetters,
  append: scripts.adminAppendRetried,
  releasePending: scripts.adminReleasePending,
  ackPending: scripts.adminAckPending,
  removeIdleConsumers: scripts.adminRemoveIdleConsumers,
} satisfies Record<string, ScriptDefinition>;

/** How the admin talks to Redis: one command or script at a time, routed by key in a Cluster. */
export class Redis {
  readonly target: CommandTarget;
  readonly client: RedisClientLike;

  constructor(client: unknown, commandTimeoutMs: number | undefined) {
    this.target = commandTarget(client, 'client', commandTimeoutMs === undefined ? {} : { commandTimeoutMs });
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

  /** Runs one of the admin scripts (EVALSHA, EVAL on NOSCRIPT) on the node serving `keys[0]`. */
  script(script: ScriptDefinition, keys: readonly string[], args: readonly RedisArg[], operation: string, binary = false): Promise<unknown> {
    return runScript(this.target, script, keys, args, { operation, binary });
  }

  /** The server clock (TIME) of the node serving `key`, in ms since the epoch. */
  async timeMs(key: string, operation: string): Promise<number> {
    const reply = (await this.send(key, ['TIME'], operation)) as unknown[];
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

/** True when an XINFO field is present at all (Redis 7.2 `inactive`, 7.0 `lag`). */
export function hasInfoField(item: unknown, name: string): boolean {
  if (Array.isArray(item)) {
    for (let i = 0; i + 1 < item.length; i += 2) if (text(item[i]) === name) return true;
    return false;
  }
  if (item instanceof Map) return [...item.keys()].some((k) => text(k) === name);
  return !!item && typeof item === 'object' && name in item;
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
