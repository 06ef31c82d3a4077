// The one way Respire sends a command: routed by key in a Cluster, timed, every failure a RespireError.
import { MAX_BULK_BYTES, oversizedArgument } from './bulk-limit.js';
import { isErrorReply, toRespireError } from './classify.js';
import { checkClient, type ClusterClientLike, type RedisArg, type RedisClientLike, type StandaloneClientLike } from './client.js';
import { replyWithin } from './deadline.js';
import { describeError, exceptionType, safeGet } from './describe.js';
import { RespireKeyTypeError, RespireTransportError, RespireValidationError } from './errors.js';
import { keySlot } from './slots.js';

/** How Respire's own commands are sent. */
export interface CommandTargetOptions {
  /**
   * Deadline of each of Respire's commands, in ms; 0 disables it. node-redis' own per-command
   * timeout only covers the wait before a command is written: a command still unwritten when it
   * expires is not sent (`RespireTransportError`, `outcomeUnknown: false`). For a command that was
   * written and gets no reply (a black-holed connection), the transport rejects it at the same
   * deadline (plus a few ms) with `outcomeUnknown: true`; the connection is left as it is (the
   * caller owns the client). When undefined the client's own setting applies (node-redis 6: 5,000
   * ms before the write, none after it; node-redis 5: none) and a written command waits for its
   * reply as long as the connection lives.
   */
  commandTimeoutMs?: number;
}

/** How one command is sent and what its failures are called. */
export interface SendOptions {
  /** Bulk strings as Buffers (payload bytes) and RESP3 maps as flat arrays, as RESP2 replies them. */
  readonly binary?: boolean;
  /** Deadline of this command in ms (0 disables it), as the target's `commandTimeoutMs`, which it overrides. */
  readonly timeoutMs?: number;
  /** Names the operation in error messages, e.g. `ReliableQueue.send`. @defaultValue the command name */
  readonly operation?: string;
  /**
   * The key this command needs to be missing or of `type` (`stream`, `zset`, ...). A server
   * `WRONGTYPE` reply then becomes a `RespireKeyTypeError` naming the key and both types, as the
   * scripts' own checks do (`<key> holds a string, expected a stream`); finding the type costs one
   * TYPE query, on that failure only.
   */
  readonly keyType?: { readonly key: RedisArg; readonly type: string };
  /**
   * A command about a connection or the server (CLIENT ID, CLIENT LIST, CLIENT UNBLOCK) that must
   * reach the node serving `key` although it names no key: in a Cluster it goes to that slot's
   * master over the master's own node client (node-redis 6 sends a keyless command to any node,
   * whatever key routes it). Ignored by a standalone client.
   */
  readonly node?: boolean;
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
   * @throws {@link RespireError} mapped by `toRespireError`: typed server replies (the reply stays the
   *   `cause`, see `replyCode`; `retryable` for a transient one), or `RespireTransportError` (not
   *   sent, or the outcome is unknown: see `outcomeUnknown`).
   */
  send(key: RedisArg, args: readonly RedisArg[], options?: SendOptions): Promise<unknown>;
}

/** node-redis `RESP_TYPES`: BLOB_STRING → Buffer keeps payload bytes intact; MAP → Array keeps RESP2's shape. */
const BINARY_MAPPING = { 36: Buffer, 37: Array };

/**
 * Wraps a node-redis client. Works with standalone clients and `createCluster`.
 * @throws {@link RespireValidationError} when `client` is not a node-redis v5/v6 client, saying what to
 *   pass instead: for a Promise (a missing `await` on `connect()`), a URL string, client options, a
 *   node-redis v4 client, an ioredis client, anything else.
 */
export function commandTarget(client: unknown, argument = 'client', options: CommandTargetOptions = {}): CommandTarget {
  checkClient(client, argument);
  const candidate = client as RedisClientLike;
  const isCluster = Array.isArray(safeGet(candidate, 'masters'));
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
  /** A Cluster's node command: to the master of the key's slot, over that node's client. */
  const toNode = async (key: RedisArg, args: readonly RedisArg[], passed: object | undefined): Promise<unknown> => {
    const cluster = candidate as unknown as { slots: readonly ({ master: unknown } | undefined)[]; nodeClient(node: unknown): unknown };
    const master = cluster.slots[keySlot(key)]?.master;
    if (master === undefined) return raw(key, args, passed); // slots not known yet: the client's own routing
    const node = (await cluster.nodeClient(master)) as StandaloneClientLike;
    return node.sendCommand(args, passed);
  };
  /** The `WRONGTYPE` of a plain command as the scripts word it: the key and both types. */
  const namedKeyTypeError = async (error: unknown, operation: string, send: SendOptions): Promise<RespireKeyTypeError> => {
    const { key, type } = send.keyType!;
    let found: string | undefined;
    try {
      found = String(await raw(key, ['TYPE', key], commandOptions(false, send.timeoutMs ?? options.commandTimeoutMs)));
    } catch {
      found = undefined;
    }
    const holds = found === undefined || found === 'none' || found === type ? 'another type' : `a ${found}`;
    return new RespireKeyTypeError(`${operation}: ${String(key)} holds ${holds}, expected a ${type}`, { cause: error });
  };
  return {
    client: candidate,
    isCluster,
    send: async (key, args, send) => {
      const operation = send?.operation ?? String(args[0]);
      const oversized = oversizedArgument(args);
      if (oversized !== undefined) {
        throw new RespireValidationError(
          'payload',
          `${operation}: a value of ${oversized} bytes is longer than the ${MAX_BULK_BYTES} bytes (512 MiB) Redis takes in one ` +
            'argument (proto-max-bulk-len); nothing was sent, and no retry can succeed',
        );
      }
      const timeoutMs = send?.timeoutMs ?? options.commandTimeoutMs;
      try {
        const reply = (isCluster && send?.node === true ? toNode : raw)(key, args, optionsFor(send));
        return await (timeoutMs ? replyWithin(reply, timeoutMs, operation) : reply);
      } catch (error) {
        if (send?.keyType !== undefined && isErrorReply(error) && /^WRONGTYPE/.test(error.message)) throw await namedKeyTypeError(error, operation, send);
        // node-redis throws these for arguments or options it cannot use, before writing anything.
        const type = exceptionType(error);
        if (type === 'TypeError' || type === 'RangeError') {
          throw new RespireTransportError(`${operation}: not sent: the client refused it (${describeError(error)}); nothing happened`, {
            cause: error,
            outcomeUnknown: false,
          });
        }
        throw toRespireError(error, operation);
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
