// The one way Respire sends a command: routed by key in a Cluster, timed, every failure a RespireError.
import { MAX_BULK_BYTES, oversizedArgument } from './bulk-limit.js';
import { isConnectionFailure, isErrorReply, replyCode, toRespireError } from './classify.js';
import { ClusterRefresher, clusterCallDeadlineMs, masterReady } from './cluster-recovery.js';
import { checkClient, type ClusterClientLike, type RedisArg, type RedisClientLike, type StandaloneClientLike } from './client.js';
import { replyWithin } from './deadline.js';
import { describeError, exceptionType, safeGet } from './describe.js';
import { WAITAOF_PROBE, checkDurable, toDurability, waitAofRefusal, type DurabilityOptions } from './durability.js';
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
   * reply as long as the connection lives, except on a node-redis 6 Cluster client: there each
   * whole call (routing included: node-redis waits for the slot's node client to connect before
   * its own timeout starts, forever for a dead master) is held to the client's timeout
   * (`commandOptions.timeout`, default 5,000 ms; none when it is 0). In a Cluster a call that fails
   * on a connection also has the slot map refreshed (see `ClusterRefresher`).
   */
  commandTimeoutMs?: number;
  /**
   * Waits after every write (every command not sent `readOnly`) until it reached replicas and/or
   * the AOF (`WAIT` / `WAITAOF`), pipelined on the write's own connection right behind it: the
   * client itself, or in a Cluster the node client of the slot's master. See {@link DurabilityOptions}.
   * Before the first write one probe (`WAIT 0 0`, `WAITAOF 1 0 1`) checks that the server has the
   * commands, `appendonly` when needed, and the ACL user's permission. A write whose wait falls
   * short throws `RespireNotDurableError` (the write was applied). The command deadline of a wait
   * is `commandTimeoutMs` plus `timeoutMs` per wait.
   * @defaultValue undefined (no wait)
   */
  durability?: DurabilityOptions;
  /**
   * False for a connection whose owner keeps a deadline of its own around every command and
   * replaces the connection when one fails (the worker's blocking connections): on a node-redis 6
   * Cluster client its calls are then not held to the client's timeout (see `commandTimeoutMs`), and
   * a failure does not refresh its slot map (a refresh racing the owner's `destroy()` would open
   * node clients on a closed client). @defaultValue true
   */
  clusterRecovery?: boolean;
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
  /** A read: never followed by the target's durability waits. */
  readonly readOnly?: boolean;
  /**
   * For a target with durability: repeating this write cannot apply it twice (a send with a
   * deduplication ID), as a `RespireNotDurableError` then says (`retrySafe`).
   */
  readonly retrySafe?: boolean;
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
 *   node-redis v4 client, an ioredis client, anything else; or for a bad `durability` option.
 */
export function commandTarget(client: unknown, argument = 'client', options: CommandTargetOptions = {}): CommandTarget {
  checkClient(client, argument);
  const candidate = client as RedisClientLike;
  const isCluster = Array.isArray(safeGet(candidate, 'masters'));
  const durability = toDurability(options.durability);
  // A Cluster call always has a deadline unless the caller turned it off (queue README "Cluster
  // failover"): the client's own timeout does not cover the wait for a slot's node client.
  const recovers = isCluster && options.clusterRecovery !== false;
  const callTimeoutMs = options.commandTimeoutMs ?? (recovers ? clusterCallDeadlineMs(candidate) : undefined);
  const refresher = recovers ? new ClusterRefresher(candidate, callTimeoutMs ?? 5000) : undefined;
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
  /** The Respire error of a failed command. */
  const failure = async (error: unknown, operation: string, send: SendOptions | undefined): Promise<unknown> => {
    if (send?.keyType !== undefined && isErrorReply(error) && /^WRONGTYPE/.test(error.message)) return namedKeyTypeError(error, operation, send);
    // node-redis throws these for arguments or options it cannot use, before writing anything.
    const type = exceptionType(error);
    if (type === 'TypeError' || type === 'RangeError') {
      return new RespireTransportError(`${operation}: not sent: the client refused it (${describeError(error)}); nothing happened`, {
        cause: error,
        outcomeUnknown: false,
      });
    }
    // A failed connection in a Cluster may be a dead master: the slot map should learn its successor.
    if (refresher !== undefined && isConnectionFailure(error)) refresher.refresh();
    return toRespireError(error, operation);
  };
  /**
   * Where a write and its waits go back to back: the client itself, or the node client of the
   * slot's master (a Cluster client resolves the node asynchronously per command, so two of its
   * commands are not known to be written together). Undefined while a Cluster's slots are unknown.
   */
  const connectionFor = (key: RedisArg): StandaloneClientLike | undefined | Promise<StandaloneClientLike> => {
    if (!isCluster) return candidate as StandaloneClientLike;
    const cluster = candidate as unknown as { slots: readonly ({ master: unknown } | undefined)[]; nodeClient(node: unknown): unknown };
    const master = cluster.slots[keySlot(key)]?.master;
    if (master === undefined) return undefined;
    const node = cluster.nodeClient(master) as StandaloneClientLike | Promise<StandaloneClientLike>;
    return node;
  };
  /**
   * The connection to the master an `ASK <slot> <host:port>` reply names, the one the Cluster
   * client's own ASK handling writes on (node-redis 6 `_slots.getMasterByAddress`); undefined
   * when the reply or the client does not say.
   */
  const askedConnection = async (error: unknown): Promise<StandaloneClientLike | undefined> => {
    const message = safeGet(error, 'message');
    const address = typeof message === 'string' ? /^ASK \d+ (\S+)/.exec(message)?.[1] : undefined;
    const slots = safeGet(candidate, '_slots');
    const byAddress = safeGet(slots, 'getMasterByAddress');
    if (address === undefined || typeof byAddress !== 'function') return undefined;
    try {
      return ((await (byAddress as (address: string) => unknown).call(slots, address)) as StandaloneClientLike | undefined) ?? undefined;
    } catch {
      return undefined;
    }
  };
  /** Once per target (again after a failure): the server has the waits, appendonly when needed, and the user may run them. */
  let probed: Promise<void> | undefined;
  /** Set once the probe passed: later writes reach their connection without yielding first. */
  let probeDone = false;
  const probe = (key: RedisArg, operation: string): Promise<void> => {
    probed ??= (async () => {
      const probes = durability!.usesWaitAof ? [WAITAOF_PROBE] : [];
      if (durability!.waits.some((wait) => wait[0] === 'WAIT')) probes.push(['WAIT', '0', '0']);
      const connection = await connectionFor(key);
      for (const command of probes) {
        try {
          const reply = connection ? connection.sendCommand(command, defaults) : raw(key, command, defaults);
          await (callTimeoutMs ? replyWithin(reply, callTimeoutMs, operation) : reply);
        } catch (error) {
          const refusal = command[0] === 'WAITAOF' ? waitAofRefusal(error, operation) : error;
          throw await failure(refusal, operation, undefined);
        }
      }
    })();
    return probed.then(
      () => void (probeDone = true),
      (error: unknown) => {
        probed = undefined;
        throw error;
      },
    );
  };
  /** A write followed, on the same connection and without a round trip in between, by its waits. */
  const sendDurable = async (key: RedisArg, args: readonly RedisArg[], send: SendOptions | undefined, operation: string, timeoutMs: number | undefined) => {
    const d = durability!;
    if (!probeDone) await probe(key, operation);
    // The waits run one after another on the server, each up to d.timeoutMs.
    const waitTimeoutMs = timeoutMs ? timeoutMs + d.waits.length * d.timeoutMs : undefined;
    const waitOptions = commandOptions(false, waitTimeoutMs);
    let reply: unknown;
    let waits: Promise<unknown>[];
    try {
      // Written in the same tick as the call when the connection is at hand (a standalone client, a
      // Cluster node client already open): a command the caller sends next (the worker's read behind
      // its completions) goes after the write and its waits, not before.
      const found = connectionFor(key);
      const connection = found instanceof Promise ? await found : found;
      const write = connection ? connection.sendCommand(args, optionsFor(send)) : raw(key, args, optionsFor(send));
      waits = d.waits.map((wait) => (connection ? connection.sendCommand(wait, waitOptions) : raw(key, wait, waitOptions)));
      for (const wait of waits) wait.catch(() => {}); // read below, or abandoned with the write
      try {
        reply = await (timeoutMs ? replyWithin(write, timeoutMs, operation) : write);
      } catch (error) {
        // A Cluster's slot moved under the node client: the client's own routing follows the
        // redirect, and the waits go to the node that now serves the slot.
        const code = replyCode(error);
        if (!isCluster || (code !== 'MOVED' && code !== 'ASK')) throw error;
        const retried = raw(key, args, optionsFor(send));
        reply = await (timeoutMs ? replyWithin(retried, timeoutMs, operation) : retried);
        // After ASK the write ran on the importing master, which the slot map does not name until
        // the move ends: the waits follow it there, or they would measure the old owner's replicas.
        const moved = (code === 'ASK' ? await askedConnection(error) : undefined) ?? (await connectionFor(key));
        waits = d.waits.map((wait) => (moved ? moved.sendCommand(wait, waitOptions) : raw(key, wait, waitOptions)));
      }
    } catch (error) {
      throw await failure(error, operation, send);
    }
    const outcomes = await Promise.allSettled(waits.map((wait) => (waitTimeoutMs ? replyWithin(wait, waitTimeoutMs, operation) : wait)));
    checkDurable(d, outcomes, reply, operation, send?.retrySafe === true);
    return reply;
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
      let timeoutMs = send?.timeoutMs ?? callTimeoutMs;
      if (recovers && timeoutMs) {
        // The wait for a Cluster node's connection is part of the call's deadline, and a call still
        // waiting for it at the deadline was not sent: node-redis has not queued it yet.
        const started = performance.now();
        const waiting = masterReady(candidate, key, timeoutMs, operation);
        if (waiting !== undefined) {
          try {
            await waiting;
          } catch (error) {
            throw await failure(error, operation, send);
          }
          timeoutMs = Math.max(1, Math.ceil(timeoutMs - (performance.now() - started)));
          send = { ...send, timeoutMs };
        }
      }
      if (durability !== undefined && send?.readOnly !== true) return sendDurable(key, args, send, operation, timeoutMs);
      try {
        const reply = (isCluster && send?.node === true ? toNode : raw)(key, args, optionsFor(send));
        return await (timeoutMs ? replyWithin(reply, timeoutMs, operation) : reply);
      } catch (error) {
        throw await failure(error, operation, send);
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
