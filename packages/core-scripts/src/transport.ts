import { RespireValidationError } from './errors.js';

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
}

/** The caller's node-redis client, standalone or Cluster. Respire never closes it. */
export type RedisClientLike = StandaloneClientLike | ClusterClientLike;

/** node-redis `RESP_TYPES.BLOB_STRING`; mapping it to Buffer keeps payload bytes intact. */
const BLOB_STRING = 36;

/** How Respire's own commands are sent. */
export interface CommandTargetOptions {
  /**
   * Per-command client timeout for Respire's commands, in ms; 0 disables it. When undefined the
   * client's own setting applies (node-redis 6 defaults to 5,000 ms and creates a timer per
   * command). A command that times out after it was written has an unknown outcome.
   */
  commandTimeoutMs?: number;
}

/** Sends commands to the node that serves a key: the client itself, or the slot's master in a Cluster. */
export interface CommandTarget {
  readonly isCluster: boolean;
  /**
   * Sends one command. `firstKey` routes it in a Cluster; `binary` returns bulk strings as Buffers.
   * Rejects with whatever node-redis rejects with (see `toRespireError`).
   */
  send(firstKey: RedisArg, args: readonly RedisArg[], binary?: boolean): Promise<unknown>;
}

/**
 * Wraps a caller's node-redis client. Works with standalone clients and `createCluster`.
 * @throws {RespireValidationError} when `client` is not a node-redis client.
 */
export function commandTarget(client: unknown, argument = 'client', options: CommandTargetOptions = {}): CommandTarget {
  const candidate = client as { sendCommand?: unknown; masters?: unknown; isOpen?: unknown } | null;
  // node-redis v5/v6 clients and clusters have sendCommand and a boolean isOpen; ioredis has no isOpen.
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.sendCommand !== 'function' || typeof candidate.isOpen !== 'boolean') {
    throw new RespireValidationError(argument, 'must be a node-redis (v5 or v6) client from createClient() or createCluster(); other clients such as ioredis are not supported');
  }
  const timeout = options.commandTimeoutMs === undefined ? {} : { timeout: options.commandTimeoutMs };
  const plain = options.commandTimeoutMs === undefined ? undefined : timeout;
  const binary = { ...timeout, typeMapping: { [BLOB_STRING]: Buffer } };
  if ('masters' in candidate && Array.isArray(candidate.masters)) {
    const cluster = candidate as ClusterClientLike;
    return {
      isCluster: true,
      send: (firstKey, args, asBinary) => cluster.sendCommand(firstKey, false, args, asBinary ? binary : plain),
    };
  }
  const standalone = candidate as StandaloneClientLike;
  return {
    isCluster: false,
    send: (_firstKey, args, asBinary) => standalone.sendCommand(args, asBinary ? binary : plain),
  };
}
