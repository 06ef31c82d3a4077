import { RespireValidationError, toRespireError } from './errors.js';

/** A command argument as node-redis takes it. */
export type RedisArg = string | Buffer;

/** A node-redis v5/v6 standalone client (`createClient`), as Respire uses it. */
export interface StandaloneClientLike {
  readonly isOpen: boolean;
  sendCommand(args: readonly RedisArg[], options?: object): Promise<unknown>;
  duplicate?(...args: never[]): unknown;
}

/** A node-redis v5/v6 Cluster client (`createCluster`), as Respire uses it. */
export interface ClusterClientLike {
  readonly isOpen: boolean;
  sendCommand(firstKey: RedisArg | undefined, isReadonly: boolean | undefined, args: readonly RedisArg[], options?: object): Promise<unknown>;
  readonly masters: readonly unknown[];
  duplicate?(...args: never[]): unknown;
}

/** The caller's node-redis client, standalone or Cluster. Respire never closes it. */
export type RedisClientLike = StandaloneClientLike | ClusterClientLike;

/** How Respire's own commands are sent. */
export interface CommandTargetOptions {
  /**
   * Per-command client timeout for Respire's commands, in ms; 0 disables it. When undefined the
   * client's own setting applies (node-redis 6 defaults to 5,000 ms and creates a timer per
   * command). A command that times out after it was written has an unknown outcome.
   */
  commandTimeoutMs?: number;
}

/** How one command is sent and what its failures are called. */
export interface SendOptions {
  /** Bulk strings as Buffers (payload bytes) and RESP3 maps as flat arrays, as RESP2 replies them. */
  readonly binary?: boolean;
  /** Client-side timeout of this command in ms (0 disables it); overrides the target's `commandTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Names the operation in error messages, e.g. `ReliableQueue.send`. @defaultValue the command name */
  readonly operation?: string;
}

/**
 * The one way Respire talks to Redis: commands go to the node that serves a key (the client
 * itself, or the slot's master in a Cluster), and every failure comes back as a `RespireError`.
 */
export interface CommandTarget {
  /** The client commands go through (the caller's, or a connection the worker owns). */
  readonly client: RedisClientLike;
  readonly isCluster: boolean;
  /**
   * Sends one command; `key` routes it in a Cluster.
   * @throws {RespireError} mapped by `toRespireError`: typed server replies (the reply stays the
   *   `cause`, see `replyCode`), or `RespireTransportError` when the outcome is unknown.
   */
  send(key: RedisArg, args: readonly RedisArg[], options?: SendOptions): Promise<unknown>;
}

/** node-redis `RESP_TYPES`: BLOB_STRING → Buffer keeps payload bytes intact; MAP → Array keeps RESP2's shape. */
const BINARY_MAPPING = { 36: Buffer, 37: Array };

/**
 * Wraps a node-redis client. Works with standalone clients and `createCluster`.
 * @throws {RespireValidationError} when `client` is not a node-redis client.
 */
export function commandTarget(client: unknown, argument = 'client', options: CommandTargetOptions = {}): CommandTarget {
  const candidate = client as { sendCommand?: unknown; masters?: unknown; isOpen?: unknown } | null;
  // node-redis v5/v6 clients and clusters have sendCommand and a boolean isOpen; ioredis has no isOpen.
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.sendCommand !== 'function' || typeof candidate.isOpen !== 'boolean') {
    throw new RespireValidationError(argument, 'must be a node-redis (v5 or v6) client from createClient() or createCluster(); other clients such as ioredis are not supported');
  }
  const isCluster = 'masters' in candidate && Array.isArray(candidate.masters);
  // Option objects built once: most commands pass one of these (or none).
  const defaults = commandOptions(false, options.commandTimeoutMs);
  const binaryDefaults = commandOptions(true, options.commandTimeoutMs);
  // Without a timer too: the worker's reads, whose deadline is their own.
  const untimed = commandOptions(false, 0);
  const binaryUntimed = commandOptions(true, 0);
  const optionsFor = (send: SendOptions | undefined) => {
    if (send?.timeoutMs === 0) return send.binary ? binaryUntimed : untimed;
    if (send?.timeoutMs !== undefined) return commandOptions(send.binary === true, send.timeoutMs);
    return send?.binary ? binaryDefaults : defaults;
  };
  const raw: (key: RedisArg, args: readonly RedisArg[], passed: object | undefined) => Promise<unknown> = isCluster
    ? (key, args, passed) => (candidate as ClusterClientLike).sendCommand(key, false, args, passed)
    : (_key, args, passed) => (candidate as StandaloneClientLike).sendCommand(args, passed);
  return {
    client: candidate as RedisClientLike,
    isCluster,
    send: async (key, args, send) => {
      try {
        return await raw(key, args, optionsFor(send));
      } catch (error) {
        throw toRespireError(error, send?.operation ?? String(args[0]));
      }
    },
  };
}

function commandOptions(binary: boolean, timeoutMs: number | undefined): object | undefined {
  if (!binary && timeoutMs === undefined) return undefined;
  return {
    ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    ...(binary ? { typeMapping: BINARY_MAPPING } : {}),
  };
}
