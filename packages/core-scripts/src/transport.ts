import { isErrorReply, toRespireError } from './classify.js';
import { describeError, exceptionType, safeGet } from './describe.js';
import { RespireKeyTypeError, RespireTransportError, RespireValidationError } from './errors.js';
import { keySlot } from './slots.js';

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
 * The longest argument Respire sends: 512 MiB (536,870,912 bytes), Redis's default
 * `proto-max-bulk-len`. A server refuses a longer bulk string and drops the connection, which
 * would look like a transport failure whose outcome is unknown and which no retry can fix, so
 * Respire refuses it before any I/O. Respire keeps this limit even where a server raised its own.
 */
export const MAX_BULK_BYTES = 512 * 1024 * 1024;

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

/**
 * The length in bytes of the first argument longer than `limit`, or undefined. Strings are
 * measured in UTF-8 only when they could be that long (3 bytes per UTF-16 unit at most).
 */
export function oversizedArgument(args: readonly RedisArg[], limit = MAX_BULK_BYTES): number | undefined {
  for (const arg of args) {
    if (typeof arg === 'string') {
      if (arg.length * 3 > limit) {
        const bytes = Buffer.byteLength(arg, 'utf8');
        if (bytes > limit) return bytes;
      }
    } else if (arg.length > limit) {
      return arg.length;
    }
  }
  return undefined;
}

const CLIENT_HINT = "pass a connected node-redis v5 or v6 client: `const client = await createClient({ url }).connect()` (or createCluster(...)) from 'redis'";

/**
 * Checks once, when a queue, worker, producer or admin API is created, that `client` is a node-redis
 * v5/v6 client, and otherwise says what was passed and what to pass instead.
 * @throws {@link RespireValidationError} naming `argument`.
 */
function checkClient(client: unknown, argument: string): void {
  const refuse = (what: string) => {
    throw new RespireValidationError(argument, what);
  };
  let isUrl = false;
  try {
    isUrl = client instanceof URL;
  } catch {
    // A Proxy whose getPrototypeOf throws: not a URL.
  }
  if (typeof client === 'string' || isUrl) {
    // Never echo it: a URL may carry a password.
    refuse(`got a URL ${typeof client === 'string' ? 'string' : 'object'}, not a client; ${CLIENT_HINT}`);
  }
  if ((typeof client !== 'object' && typeof client !== 'function') || client === null) {
    refuse(`got ${client === null ? 'null' : typeof client}; ${CLIENT_HINT}`);
  }
  const candidate = client as object;
  if (typeof safeGet(candidate, 'then') === 'function') {
    refuse(`got a Promise: is an \`await\` missing? \`createClient().connect()\` returns a promise of the connected client; ${CLIENT_HINT}`);
  }
  const sendCommand = safeGet(candidate, 'sendCommand');
  if (typeof sendCommand === 'function' && typeof safeGet(candidate, 'isOpen') === 'boolean') {
    // node-redis v4 has the same sendCommand and isOpen but public executeScript / executeFunction and
    // no withTypeMapping (v5 made the former private and added the latter); its replies differ in shape.
    if (typeof safeGet(candidate, 'executeScript') === 'function' && typeof safeGet(candidate, 'withTypeMapping') !== 'function') {
      refuse("is a node-redis v4 client; Respire needs node-redis v5 or v6 (v4's replies have other shapes): upgrade `redis` to ^5 or ^6");
    }
    return;
  }
  if (typeof sendCommand === 'function' && typeof safeGet(candidate, 'status') === 'string') {
    refuse(`looks like an ioredis client, which Respire does not support (it needs node-redis); ${CLIENT_HINT}`);
  }
  if (['url', 'socket', 'rootNodes'].some((name) => safeGet(candidate, name) !== undefined)) {
    refuse(`got client options, not a client; ${CLIENT_HINT.replace('{ url }', 'options')}`);
  }
  refuse(`${exceptionType(candidate)} is not a node-redis client (it has no sendCommand and isOpen); ${CLIENT_HINT}`);
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
 * that gets no reply is rejected here, a little after that timeout, with an unknown outcome (a
 * `RespireTransportError` that `isConnectionFailure` recognises). A command sent with `timeoutMs: 0`
 * (no timer at all, e.g. a blocking read) can keep its own deadline with this.
 * @param stillHeld - asked each time the deadline expires: true when the server is known to still
 *   hold the command (paused, or behind a long script), and the wait goes on for another
 *   `timeoutMs`; false (or a rejection) ends it as above.
 */
export function replyWithin<R>(reply: Promise<R>, timeoutMs: number, operation: string, stillHeld?: () => Promise<boolean>): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  const deadline = new Promise<never>((_, reject) => {
    const expire = () => {
      if (settled) return;
      const message = `${operation}: no reply within ${timeoutMs} ms after the command was written; the outcome is unknown`;
      reject(new RespireTransportError(message, { cause: new ReplyDeadlineError(`no reply within ${timeoutMs} ms`) }));
    };
    const arm = () => {
      timer = setTimeout(expired, Math.min(timeoutMs + WRITTEN_MARGIN_MS, 2_147_483_647)); // a longer timer would fire at once
    };
    const expired = () => {
      if (stillHeld === undefined) return expire();
      stillHeld().then((held) => (settled ? undefined : held ? arm() : expire()), expire);
    };
    arm();
  });
  reply.catch(() => {}); // settles after the deadline won: nobody waits for it any more
  return Promise.race([reply, deadline]).finally(() => {
    settled = true;
    clearTimeout(timer);
  });
}

function commandOptions(binary: boolean, timeoutMs: number | undefined): object | undefined {
  if (!binary && timeoutMs === undefined) return undefined;
  return {
    ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    ...(binary ? { typeMapping: BINARY_MAPPING } : {}),
  };
}
