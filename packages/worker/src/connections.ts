import { RespireTransportError, type RedisClientLike } from '@respire/core-scripts';
import { commandTarget, type CommandTarget } from '@respire/core-scripts/internal';

/** The parts of a node-redis duplicate the worker drives. */
interface DuplicateClient {
  connect?(): Promise<unknown>;
  destroy?(): void;
  disconnect?(): Promise<void>;
  on?(event: string, listener: (error: unknown) => void): unknown;
}

/**
 * A blocking connection the worker owns: a duplicate of the caller's client (DESIGN.md decision
 * 6), so the caller's client is never blocked or closed.
 */
export class OwnedConnection {
  readonly target: CommandTarget;
  /**
   * The server's CLIENT ID of this connection once a read asked for it (CLIENT UNBLOCK needs it);
   * forgotten whenever node-redis (re)connects the socket, which gives it a new ID.
   */
  clientId: string | undefined;
  readonly #client: DuplicateClient;
  readonly #onClose: (connection: OwnedConnection) => void;
  #closed = false;

  constructor(client: DuplicateClient, onClose: (connection: OwnedConnection) => void) {
    this.#client = client;
    this.#onClose = onClose;
    this.target = commandTarget(client);
    client.on?.('connect', () => void (this.clientId = undefined));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Destroys the connection at once (nothing of ours is in flight when this is called on stop).
   * Calling it again destroys again: a duplicate closed while it was still connecting opens its
   * socket afterwards.
   */
  close(): void {
    if (!this.#closed) {
      this.#closed = true;
      this.#onClose(this);
    }
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
  readonly #open = new Set<OwnedConnection>();

  constructor(source: RedisClientLike) {
    this.#source = source;
  }

  /**
   * Duplicates the caller's client and connects the duplicate.
   * @throws {RespireTransportError} when it does not connect within `deadlineMs` (it is closed).
   */
  async open(deadlineMs: number, onError: (error: unknown) => void): Promise<OwnedConnection> {
    const duplicate = (this.#source as { duplicate(): DuplicateClient }).duplicate();
    duplicate.on?.('error', onError);
    const connection = new OwnedConnection(duplicate, (closed) => this.#open.delete(closed));
    this.#open.add(connection);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        duplicate.connect?.(),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new RespireTransportError(`StreamWorker: a reader connection did not connect within ${deadlineMs} ms`, { outcomeUnknown: false })),
            deadlineMs,
          );
        }),
      ]);
    } catch (error) {
      connection.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    // closeAll() ran while it connected: the socket it opened meanwhile is closed too.
    if (connection.closed) connection.close();
    return connection;
  }

  /** Closes every connection still open. */
  closeAll(): void {
    for (const connection of [...this.#open]) connection.close();
  }
}
