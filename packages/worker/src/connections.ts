// The blocking connections a worker owns: duplicates of the caller's client, probed when unanswered, closed on every path.
import { RespireTransportError, isRespireError, type DurabilityOptions, type RedisClientLike } from '@respire/core-scripts';
import {
  commandTarget,
  describeError,
  isErrorReply,
  isTransient,
  isUnanswered,
  replyString,
  safeGet,
  toRespireError,
  type CommandTarget,
} from '@respire/core-scripts/internal';

/** The parts of a node-redis duplicate the worker drives. */
interface DuplicateClient {
  connect?(): Promise<unknown>;
  destroy?(): void;
  disconnect?(): Promise<void>;
  on?(event: string, listener: (error: unknown) => void): unknown;
}

/** How a reader connection is named in errors. */
const OPENING = 'StreamWorker: opening a reader connection';

/** How long the probe of an unanswered connection may take (ms). */
const PROBE_TIMEOUT_MS = 2000;
/** How long after its first deadline an unanswered command may still be waited for while the server holds it (ms). */
const MAX_HELD_MS = 60_000;

/**
 * A blocking connection the worker owns: a duplicate of the caller's client, so the caller's
 * client is never blocked or closed (README "Faults, shutdown and failover"). It never reconnects by itself: when it
 * fails, the reader closes it and opens a new one, so exactly one connection per reader exists.
 */
export class OwnedConnection {
  readonly target: CommandTarget;
  /** Where completions go on this connection: `target`, with the worker's `durability` waits when set. */
  readonly completionTarget: CommandTarget;
  /** The server's ID of this connection (CLIENT ID), for CLIENT UNBLOCK; undefined when CLIENT ID is not permitted. */
  clientId: string | undefined;
  readonly #client: DuplicateClient;
  readonly #onClose: (connection: OwnedConnection) => void;
  #closed = false;

  constructor(client: DuplicateClient, onClose: (connection: OwnedConnection) => void, durability?: DurabilityOptions) {
    this.#client = client;
    this.#onClose = onClose;
    // Reads and completions here keep their own deadlines (BLOCK + 2 s; COMPLETION_DEADLINE_MS, longer
    // while the server holds the batch), and a failed connection is replaced, not refreshed.
    this.target = commandTarget(client, 'client', { clusterRecovery: false });
    this.completionTarget = durability === undefined ? this.target : commandTarget(client, 'client', { durability, clusterRecovery: false });
    // A duplicate destroyed while it was still connecting can finish its handshake afterwards
    // (node-redis does not look again): it is destroyed once more as soon as it says so.
    client.on?.('ready', () => {
      if (this.#closed) this.#destroy();
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * A `stillHeld` probe for `replyWithin` on this connection (reader.ts, completion.ts), asked
   * over `probe` (the caller's client) with CLIENT LIST ID on the node serving `key`. True while
   * the server still holds a command of it: its arguments parsed and kept (`argv-mem`: paused by
   * CLIENT PAUSE, or blocked), input not yet read (`qbuf`), a reply not yet written (`obl`, `oll`),
   * or any exchange with it within the last `periodMs` (the command ran as a pause ended and its
   * reply may be on its way); also when the probe itself is answered BUSY, or not at all within
   * 2 s (the server is stalled: a script, CLIENT PAUSE ALL, a slow command). False, so the wait
   * ends, when the server holds nothing of it (a flow dropped without a reset: what was written
   * never arrived, or its reply was lost), no longer lists it, cannot be asked (no connection ID,
   * CLIENT LIST refused, the caller's client closed), or has held it for {@link MAX_HELD_MS} past
   * the first deadline.
   */
  heldByServer(probe: CommandTarget, key: string, periodMs: number): () => Promise<boolean> {
    let since: number | undefined;
    return async () => {
      since ??= performance.now();
      const id = this.clientId;
      if (this.#closed || id === undefined || performance.now() - since > MAX_HELD_MS) return false;
      try {
        const line = replyString(
          await probe.send(key, ['CLIENT', 'LIST', 'ID', id], {
            timeoutMs: PROBE_TIMEOUT_MS,
            operation: 'StreamWorker: probing an unanswered connection',
            node: true,
          }),
        );
        if (/ (?:argv-mem|qbuf|obl|oll)=[1-9]/.test(` ${line}`)) return true;
        // The server wrote to or read from it within the last period (idle is in whole seconds):
        // the command ran just now, as a pause ended, and its reply may still be on its way.
        const idle = / idle=(\d+)/.exec(` ${line}`);
        return idle !== null && Number(idle[1]) * 1000 < periodMs - 1000;
      } catch (error) {
        // BUSY, or no answer at all: the server is stalled (a script, CLIENT PAUSE ALL, a slow
        // command), not this connection's flow. Refused, or not sent: it cannot be asked.
        return isTransient(error) || isUnanswered(error);
      }
    };
  }

  /** Destroys the connection at once (nothing of ours is in flight when this is called on stop). */
  close(): void {
    if (!this.#closed) {
      this.#closed = true;
      this.#onClose(this);
    }
    this.#destroy();
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

/** The one place a run opens and closes its connections: every one it opened is closed by {@link closeAll}. */
export class Connections {
  readonly #source: RedisClientLike;
  readonly #isCluster: boolean;
  readonly #open = new Set<OwnedConnection>();
  /** Connections whose open() has not returned yet. */
  readonly #opening = new Set<OwnedConnection>();

  readonly #durability: DurabilityOptions | undefined;

  constructor(source: RedisClientLike, isCluster: boolean, durability?: DurabilityOptions) {
    this.#source = source;
    this.#isCluster = isCluster;
    this.#durability = durability;
  }

  /**
   * Duplicates the caller's client without automatic reconnection, connects it and checks it with
   * one round trip (CLIENT ID, routed by `key`), so a connection the server refuses fails here
   * with the server's own words.
   * @throws {@link RespireError} (the connection is closed): the server's reply
   *   (`max number of clients reached`, `WRONGPASS`, `NOAUTH`, `LOADING`, ...) mapped by `toRespireError`, or a
   *   `RespireTransportError` with `outcomeUnknown: false` naming the network failure
   *   (`ECONNREFUSED`, ...) or the `deadlineMs` that passed.
   */
  async open(key: string, deadlineMs: number, onError: (error: unknown) => void): Promise<OwnedConnection> {
    const duplicate = this.#duplicate();
    duplicate.on?.('error', onError);
    const connection = new OwnedConnection(duplicate, (closed) => this.#open.delete(closed), this.#durability);
    this.#open.add(connection);
    this.#opening.add(connection);
    let timer: NodeJS.Timeout | undefined;
    const opening = (async () => {
      await duplicate.connect?.();
      connection.clientId = await clientId(connection.target, key);
    })();
    opening.catch(() => {}); // it may fail after the deadline did
    try {
      await Promise.race([
        opening,
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new RespireTransportError(`${OPENING}: not connected within ${deadlineMs} ms`, { outcomeUnknown: false })),
            deadlineMs,
          );
        }),
      ]);
    } catch (error) {
      connection.close();
      throw connectFailure(error);
    } finally {
      clearTimeout(timer);
      this.#opening.delete(connection);
    }
    // closeAll() ran while it connected: the socket it opened meanwhile is closed too.
    if (connection.closed) connection.close();
    return connection;
  }

  /** Closes every connection still open (also those still connecting). */
  closeAll(): void {
    for (const connection of [...this.#open]) connection.close();
  }

  /** Closes the connections still connecting: their open() rejects, so a reconnecting reader stops at once. */
  closeOpening(): void {
    for (const connection of [...this.#opening]) connection.close();
  }

  /**
   * A duplicate of the caller's client that never reconnects by itself (node-redis would otherwise
   * open a new socket the moment the old one fails, racing the reader's own replacement and
   * leaking one connection per failure) and sends no CLIENT SETINFO in its handshake (node-redis 5
   * ignores a refusal of it, e.g. `max number of clients reached`, and then hangs).
   */
  #duplicate(): DuplicateClient {
    const source = this.#source as unknown as { duplicate(overrides: object): DuplicateClient };
    const noReconnect = (socket: unknown) => ({ ...(typeof socket === 'object' ? socket : {}), reconnectStrategy: false });
    if (this.#isCluster) {
      // A Cluster client keeps its options as `_options`; its node clients take `defaults`.
      const defaults = safeGet(safeGet(source, '_options'), 'defaults') as object | undefined;
      return source.duplicate({ defaults: { ...defaults, socket: noReconnect(safeGet(defaults, 'socket')), disableClientInfo: true } });
    }
    return source.duplicate({ socket: noReconnect(safeGet(safeGet(source, 'options'), 'socket')), disableClientInfo: true });
  }
}

/** CLIENT ID of a new connection: its first round trip. A user not permitted CLIENT ID still has a working connection. */
async function clientId(target: CommandTarget, key: string): Promise<string | undefined> {
  try {
    return replyString(await target.send(key, ['CLIENT', 'ID'], { operation: `${OPENING} (CLIENT ID)`, node: true }));
  } catch (error) {
    if (isRespireError(error, 'PERMISSION_DENIED')) return undefined;
    throw error;
  }
}

/** Why a connection could not be opened, as a Respire error: the server's reply, or what the network said. Nothing was sent. */
function connectFailure(error: unknown): Error {
  if (isErrorReply(error)) return toRespireError(error, OPENING);
  if (isRespireError(error) && error.code !== 'TRANSPORT_FAILED') return error;
  const cause = isRespireError(error) ? (safeGet(error, 'cause') ?? error) : error;
  if (isRespireError(cause)) return cause;
  return new RespireTransportError(`${OPENING}: ${describeError(cause)}`, { cause, outcomeUnknown: false });
}
