import { toRespireError } from './classify.js';
import { describeError, exceptionType, safeGet } from './describe.js';
import { RespireTransportError, RespireValidationError } from './errors.js';

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
   *   `cause`, see `replyCode`; `retryable` for a transient one), or `RespireTransportError` (not
   *   sent, or the outcome is unknown: see `outcomeUnknown`).
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
  // Every read is guarded: a value that cannot be read (a revoked Proxy) is simply not a client.
  if (typeof candidate !== 'object' || candidate === null || typeof safeGet(candidate, 'sendCommand') !== 'function' || typeof safeGet(candidate, 'isOpen') !== 'boolean') {
    throw new RespireValidationError(argument, 'must be a node-redis (v5 or v6) client from createClient() or createCluster(); other clients such as ioredis are not supported');
  }
  const isCluster = Array.isArray(safeGet(candidate, 'masters'));
  // Option objects built once: most commands pass one of these two (or none).
  const defaults = commandOptions(false, options.commandTimeoutMs);
  const binaryDefaults = commandOptions(true, options.commandTimeoutMs);
  const optionsFor = (send: SendOptions | undefined) => {
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
      const operation = send?.operation ?? String(args[0]);
      const timeoutMs = send?.timeoutMs ?? options.commandTimeoutMs;
      try {
        const reply = raw(key, args, optionsFor(send));
        return await (timeoutMs ? replyWithin(reply, timeoutMs, operation) : reply);
      } catch (error) {
        // node-redis throws these for arguments or options it cannot use, before writing anything.
        const type = exceptionType(error);
        if (type === 'TypeError' || type === 'RangeError') {
          throw new RespireTransportError(`${operation}: not sent: the client refused it (${describeError(error)}); nothing happened`, { cause: error, outcomeUnknown: false });
        }
        throw toRespireError(error, operation);
      }
    },
  };
}

/** Extra time after a command's timeout before it counts as written and unanswered (ms). */
const WRITTEN_MARGIN_MS = 50;

/** The cause of a deadline that expired after the command was written (see `isConnectionFailure`). */
class ReplyDeadlineError extends Error {
  override name = 'ReplyDeadlineError';
}

/**
 * node-redis rejects a command still waiting to be written when its timeout expires (a
 * `TimeoutError`: not sent) and drops the timeout once the command is written. A written command
 * that gets no reply is rejected here, a little after that timeout, with an unknown outcome.
 */
function replyWithin<R>(reply: Promise<R>, timeoutMs: number, operation: string): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const message = `${operation}: no reply within ${timeoutMs} ms after the command was written; the outcome is unknown`;
      reject(new RespireTransportError(message, { cause: new ReplyDeadlineError(`no reply within ${timeoutMs} ms`) }));
    }, Math.min(timeoutMs + WRITTEN_MARGIN_MS, 2_147_483_647)); // a longer timer would fire at once
  });
  reply.catch(() => {}); // settles after the deadline won: nobody waits for it any more
  return Promise.race([reply, deadline]).finally(() => clearTimeout(timer));
}

function commandOptions(binary: boolean, timeoutMs: number | undefined): object | undefined {
  if (!binary && timeoutMs === undefined) return undefined;
  return {
    ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    ...(binary ? { typeMapping: BINARY_MAPPING } : {}),
  };
}
