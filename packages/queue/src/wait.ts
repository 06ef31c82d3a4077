// The waiting receive's blocking connection: a duplicate of the caller's client the queue owns and closes on every path.
import { RespireTransportError, isRespireError, type RedisClientLike } from '@respire/core-scripts';
import {
  commandTarget,
  describeError,
  isErrorReply,
  safeGet,
  scriptCalls,
  toRespireError,
  type CommandTarget,
  type QueueKeys,
} from '@respire/core-scripts/internal';
import { QUEUE_GROUP } from './leases/queue-source.js';

/** The parts of a node-redis duplicate the waiting receive drives. */
interface DuplicateClient {
  connect?(): Promise<unknown>;
  destroy?(): void;
  disconnect?(): Promise<void>;
  on?(event: string, listener: (error: unknown) => void): unknown;
}

/** How long opening a blocking connection may take (ms). */
const OPEN_TIMEOUT_MS = 5000;
/**
 * How long past its BLOCK time an XREAD may stay unanswered before its connection is taken for
 * frozen and destroyed (ms): the server answers a timed-out block by itself.
 */
const BLOCK_GRACE_MS = 2000;

/**
 * A blocking connection: a duplicate of the caller's client that never reconnects by itself and
 * sends no CLIENT SETINFO (node-redis 5 hangs when a handshake command is refused), so the
 * caller's client is never blocked or closed. A failed connection is closed and a new one opened.
 */
export class BlockingConnection {
  readonly #client: DuplicateClient;
  readonly #target: CommandTarget;
  #closed = false;
  #opened: Promise<void> | undefined;

  constructor(source: CommandTarget) {
    this.#client = duplicate(source.client, source.isCluster);
    // Errors are reported by the command that meets them; an unheard 'error' event would crash the process.
    this.#client.on?.('error', () => {});
    // A duplicate destroyed while still connecting can finish its handshake afterwards: destroy it again.
    this.#client.on?.('ready', () => {
      if (this.#closed) this.#destroy();
    });
    this.#target = commandTarget(this.#client);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Blocks until an entry after `cursor` is in `stream` or `blockMs` passes (XREAD BLOCK); with
   * `also`, or an entry after its cursor in its stream (one XREAD on all of them: on a Cluster they
   * must share a hash slot; a partitioned queue on a standalone server passes every partition's).
   * Returns true when an entry arrived. Connects on first use; the connect counts toward
   * `blockMs` (a slow one ends the block at its time, false, and goes on for the next block).
   * @throws {@link RespireError} when the connection fails, is closed or stays silent past the block
   *   (then it is closed: open a new one).
   */
  async block(stream: string, cursor: string, blockMs: number, operation: string, also?: BlockAlso | readonly BlockAlso[]): Promise<boolean> {
    return (await this.blockFor(stream, cursor, blockMs, operation, also)).length > 0;
  }

  /**
   * As {@link block}, returning the streams that had a new entry (empty when none did): a
   * partitioned queue's wait receives from those partitions first.
   */
  async blockFor(stream: string, cursor: string, blockMs: number, operation: string, also?: BlockAlso | readonly BlockAlso[]): Promise<string[]> {
    if (this.#closed) throw new RespireTransportError(`${operation}: the blocking connection is closed`, { outcomeUnknown: false });
    const endsAt = performance.now() + blockMs;
    try {
      if (this.#opened === undefined) {
        this.#opened = this.#open(operation);
        this.#opened.catch(() => {}); // a connect given up below fails unheard; the next block meets its error
      }
      if (!(await withinMs(this.#opened, blockMs))) return [];
      const remainingMs = Math.max(1, Math.ceil(endsAt - performance.now()));
      const more: readonly BlockAlso[] = also === undefined ? [] : isBlockAlsoList(also) ? also : [also];
      const streams = [stream, ...more.map((entry) => entry.stream), cursor, ...more.map((entry) => entry.cursor)];
      const reply = await this.#target.send(stream, ['XREAD', 'COUNT', '1', 'BLOCK', String(remainingMs), 'STREAMS', ...streams], {
        operation,
        timeoutMs: remainingMs + BLOCK_GRACE_MS,
        keyType: { key: stream, type: 'stream' },
      });
      return replyStreams(reply);
    } catch (error) {
      // A connection that failed once (killed, reset, frozen, refused) is not used again.
      this.close();
      throw error;
    }
  }

  /** Destroys the connection at once; a block in progress rejects. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#destroy();
  }

  async #open(operation: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.#client.connect?.(),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new RespireTransportError(`${operation}: not connected within ${OPEN_TIMEOUT_MS} ms`, { outcomeUnknown: false })),
            OPEN_TIMEOUT_MS,
          );
        }),
      ]);
    } catch (error) {
      throw openFailure(error, operation);
    } finally {
      clearTimeout(timer);
    }
    // close() ran while it connected: the socket it opened meanwhile is closed too.
    if (this.#closed) {
      this.#destroy();
      throw new RespireTransportError(`${operation}: the blocking connection was closed while it connected`, { outcomeUnknown: false });
    }
  }

  #destroy(): void {
    try {
      if (typeof this.#client.destroy === 'function') this.#client.destroy();
      else void this.#client.disconnect?.().catch(() => {});
    } catch {
      // already closed
    }
  }
}

/** The stream names of an XREAD reply: RESP2 `[[name, entries], ...]`, RESP3 a map (a Map or an object); none for a timeout. */
function replyStreams(reply: unknown): string[] {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) return reply.map((item: unknown) => String(Array.isArray(item) ? item[0] : item));
  if (reply instanceof Map) return [...reply.keys()].map(String);
  if (typeof reply === 'object') return Object.keys(reply);
  return [];
}

/** Whether `promise` fulfils within `ms` (false when it has not yet); rejects when it rejects first. */
async function withinMs(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

function isBlockAlsoList(also: BlockAlso | readonly BlockAlso[]): also is readonly BlockAlso[] {
  return Array.isArray(also);
}

/** A second stream a block also wakes on: new entries follow `cursor`. */
export interface BlockAlso {
  readonly stream: string;
  readonly cursor: string;
}

/** When a waiting receive may block from, and for how long at most, as {@link waitPoint} reads it. */
export interface WaitPoint {
  /** New entries follow this entry ID. */
  readonly cursor: string;
  /** The wake stream (a NACK appends to it) and its cursor: the block also ends on its next entry. */
  readonly also?: BlockAlso;
  /** ms until the earliest deadline becomes due (0: already due); undefined when nothing is leased or delayed. */
  readonly untilDueMs: number | undefined;
}

/**
 * Reads, in one read-only script on the server's clock, where a waiting receive blocks from and
 * until when: a queue's (its private group), or a topic subscription's (`keys` names its group on
 * the topic's stream, its own deadlines index and wake stream). The block waits on the stream (a
 * send) and on the wake stream (a NACK made during the block: its message may be due before the
 * deadline read here; README "Waiting receive").
 */
export async function waitPoint(
  target: CommandTarget,
  keys: Pick<QueueKeys, 'stream' | 'deadlines' | 'wake'> & { readonly group?: string },
  operation: string,
): Promise<WaitPoint> {
  const { stream, deadlines, wake } = keys;
  const state = await scriptCalls.queueWaitState(target, { stream, deadlines, wake, group: keys.group ?? QUEUE_GROUP }, { operation, readOnly: true });
  return {
    cursor: state.cursor,
    also: { stream: wake, cursor: state.wakeCursor },
    untilDueMs: state.nextDueMs < 0 ? undefined : Math.max(0, state.nextDueMs - state.nowMs),
  };
}

/**
 * As {@link waitPoint}, for a grouped queue: the ends of its stream (a send wakes the block) and of
 * its wake stream (an ACK or dead letter moving a group on, or a NACK: README "Message groups"), and the earliest
 * deadline of its deadlines index, in one read-only script. The cursors are the streams' ends, not
 * where the last receive stopped: a group made ready since then (by a send or an ACK) is due now
 * (`untilDueMs` 0), so the receive runs again instead of blocking past it.
 */
export async function groupedWaitPoint(
  target: CommandTarget,
  keys: { readonly stream: string; readonly deadlines: string; readonly wake: string; readonly ready: string },
  operation: string,
): Promise<WaitPoint> {
  const { stream, deadlines, wake, ready } = keys;
  const state = await scriptCalls.groupedWaitState(target, { stream, deadlines, wake, ready }, { operation, readOnly: true });
  const untilDueMs = state.readyGroups > 0 ? 0 : state.nextDueMs < 0 ? undefined : Math.max(0, state.nextDueMs - state.nowMs);
  return { cursor: state.cursor, also: { stream: wake, cursor: state.wakeCursor }, untilDueMs };
}

/** Why a blocking connection could not be opened: the server's reply, or what the network said. Nothing was sent. */
function openFailure(error: unknown, operation: string): Error {
  if (isErrorReply(error)) return toRespireError(error, operation);
  if (isRespireError(error)) return error;
  return new RespireTransportError(`${operation}: opening a blocking connection: ${describeError(error)}`, { cause: error, outcomeUnknown: false });
}

/**
 * A duplicate of the caller's client that never reconnects by itself and sends no CLIENT SETINFO.
 * A Cluster duplicate connects only to the nodes its blocks go to (`minimizeConnections`): one
 * master for a queue's or a partition's keys, not one connection per master.
 */
function duplicate(client: RedisClientLike, isCluster: boolean): DuplicateClient {
  const source = client as unknown as { duplicate(overrides: object): DuplicateClient };
  const noReconnect = (socket: unknown) => ({ ...(typeof socket === 'object' ? socket : {}), reconnectStrategy: false });
  if (isCluster) {
    // A Cluster client keeps its options as `_options`; its node clients take `defaults`.
    const defaults = safeGet(safeGet(source, '_options'), 'defaults') as object | undefined;
    return source.duplicate({
      defaults: { ...defaults, socket: noReconnect(safeGet(defaults, 'socket')), disableClientInfo: true },
      minimizeConnections: true,
    });
  }
  return source.duplicate({ socket: noReconnect(safeGet(safeGet(source, 'options'), 'socket')), disableClientInfo: true });
}

/**
 * The blocking connection of one waiting receive, or of a consumer for its lifetime: opened on
 * the first block, replaced after a failure, closed by {@link close} (also while it connects).
 */
export class Waiter {
  readonly #source: CommandTarget;
  #connection: BlockingConnection | undefined;
  #closed = false;

  constructor(source: CommandTarget) {
    this.#source = source;
  }

  /** As {@link BlockingConnection.block}, on the current connection or a new one; false at once after {@link close}. */
  block(stream: string, cursor: string, blockMs: number, operation: string, also?: BlockAlso | readonly BlockAlso[]): Promise<boolean> {
    return this.blockFor(stream, cursor, blockMs, operation, also).then((streams) => streams.length > 0);
  }

  /** As {@link BlockingConnection.blockFor}, on the current connection or a new one; none at once after {@link close}. */
  blockFor(stream: string, cursor: string, blockMs: number, operation: string, also?: BlockAlso | readonly BlockAlso[]): Promise<string[]> {
    if (this.#closed) return Promise.resolve([]);
    if (this.#connection === undefined || this.#connection.closed) this.#connection = new BlockingConnection(this.#source);
    return this.#connection.blockFor(stream, cursor, blockMs, operation, also);
  }

  /** Closes the connection (a block in progress rejects) and every later block returns false at once. */
  close(): void {
    this.#closed = true;
    this.#connection?.close();
  }

  get closed(): boolean {
    return this.#closed;
  }
}

/** Runs one waiting receive on a blocking connection of its own, closed on every path. */
export async function withWaiter<M>(source: CommandTarget, run: (waiter: Waiter) => Promise<M[]>): Promise<M[]> {
  const waiter = new Waiter(source);
  try {
    return await run(waiter);
  } finally {
    waiter.close();
  }
}

/** What a waiting receive needs of a queue or a topic subscription. */
export interface WaitingSource<M> {
  /** The stream whose appends wake the block. */
  readonly stream: string;
  /** One nonblocking receive. */
  receiveOnce(): Promise<M[]>;
  /** Where to block from and until when (read after an empty receive). */
  waitPoint(): Promise<WaitPoint>;
}

/**
 * The waiting receive on `waiter`'s blocking connection (the caller closes it): a nonblocking
 * receive; when empty, the wait point (one read-only script) and XREAD BLOCK from the group's
 * cursor until the next deadline or the end of the wait; then receive again. Returns an empty
 * batch at once once `waiter` is closed. `beforeWait` runs before each wait point is read (a
 * consumer's pending NACKs are applied first, so their delays bound the block).
 * @throws what the receive throws; a killed, reset or frozen blocking connection is replaced
 *   twice, then the third failure in a row is thrown (`RespireTransportError`).
 */
export async function receiveWaiting<M>(
  source: WaitingSource<M>,
  waitMs: number,
  waiter: Waiter,
  operation: string,
  beforeWait?: () => Promise<void>,
): Promise<M[]> {
  const started = performance.now();
  let failures = 0;
  for (;;) {
    if (waiter.closed) return [];
    const batch = await source.receiveOnce();
    if (batch.length > 0 || waiter.closed) return batch;
    const remaining = Math.ceil(waitMs - (performance.now() - started));
    if (remaining < 1) return batch;
    if (beforeWait) await beforeWait();
    if (waiter.closed) return batch;
    const { cursor, untilDueMs, also } = await source.waitPoint();
    if (waiter.closed) return batch;
    // A deadline passing wakes nobody: block no later than it (at least 1 ms: BLOCK 0 waits forever).
    const blockMs = untilDueMs === undefined ? remaining : Math.max(1, Math.min(remaining, untilDueMs + 1));
    try {
      await waiter.block(source.stream, cursor, blockMs, operation, also);
      failures = 0;
    } catch (error) {
      if (waiter.closed) return batch;
      if (isRespireError(error, 'TRANSPORT_FAILED') && ++failures < 3) continue;
      throw error;
    }
    // Whatever ended the block (an append, a deadline, the end of the wait), the loop receives
    // once more before it returns: a NACK made during the block is leased then, not left behind.
  }
}
