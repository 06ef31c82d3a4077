// A Cluster client's way back after a failover: a call deadline that covers routing, and a slot-map refresh on connection failures.
import type { RedisArg } from './client.js';
import { safeGet } from './describe.js';
import { RespireTransportError } from './errors.js';
import { keySlot } from './slots.js';

/** node-redis 6 default per-command timeout (ms), used when the client does not say its own. */
const NODE_REDIS_DEFAULT_TIMEOUT_MS = 5000;

/** Pause between two slot-map refreshes while a node is down (ms). */
const REFRESH_INTERVAL_MS = 200;

/** How long after the last connection failure the refreshes go on while a node stays down (ms). */
const REFRESH_FOR_MS = 30_000;

/** The parts of node-redis 6's `RedisClusterSlots` (the cluster's `_slots`) this module uses. */
interface SlotsLike {
  rediscover(startWith?: unknown): Promise<void>;
  nodeByAddress: Map<string, { client?: { destroy(): void; readonly isReady?: boolean }; connectPromise?: Promise<unknown> }>;
}

/**
 * The deadline of a Cluster call when the caller set none: the client's own per-command timeout
 * (`commandOptions.timeout`, node-redis 6 default 5,000 ms), applied to the whole call. node-redis
 * starts that timeout only once the command is queued on a node's connection, after the slot's
 * node client is connected; a node client connecting to a dead master waits forever (its default
 * reconnect strategy never gives up), and the call with it. Undefined when the client has no
 * timeout (node-redis 5, or `timeout: 0`).
 */
export function clusterCallDeadlineMs(cluster: unknown): number | undefined {
  const options = safeGet(cluster, '_commandOptions');
  if (options === undefined) return undefined; // node-redis 5: no per-command timeout
  const timeout = safeGet(options, 'timeout');
  if (timeout === undefined) return NODE_REDIS_DEFAULT_TIMEOUT_MS;
  return typeof timeout === 'number' && timeout > 0 ? timeout : undefined;
}

/** The cause of a Cluster call whose deadline expired before its node's connection was ready (see `isConnectionFailure`). */
class NodeNotReadyError extends Error {
  override name = 'NodeNotReadyError';
}

/**
 * Before a Cluster call: waits, up to `timeoutMs`, while node-redis is still opening the connection
 * to the master serving `key`'s slot (a new node client, or one for a dead master after a failover).
 * node-redis only queues the command on that connection once it is open, so a call that runs out of
 * time here was never sent. Returns undefined, without waiting, when the connection is open (or is
 * reconnecting: node-redis queues the command then, and its own timeout rejects it unwritten) or the
 * slot map is not known yet (the client's own routing decides).
 * @throws {@link RespireTransportError} `outcomeUnknown: false`, `retryable: true` when the connection
 *   was not ready within `timeoutMs` or could not be opened: not sent, nothing happened.
 */
export function masterReady(cluster: unknown, key: RedisArg, timeoutMs: number, operation: string): Promise<void> | undefined {
  const slots = safeGet(cluster, 'slots');
  const master = Array.isArray(slots) ? safeGet(slots[keySlot(key)], 'master') : undefined;
  if (master === undefined || (safeGet(master, 'connectPromise') === undefined && safeGet(master, 'client') !== undefined)) return undefined;
  const nodeClient = safeGet(cluster, 'nodeClient');
  if (typeof nodeClient !== 'function') return undefined;
  const address = String(safeGet(master, 'address') ?? `${String(safeGet(master, 'host'))}:${String(safeGet(master, 'port'))}`);
  const notSent = (why: string, cause: unknown) =>
    new RespireTransportError(`${operation}: not sent: ${why}; nothing happened`, { cause, outcomeUnknown: false, retryable: true });
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const why = `the connection to ${address} (master of slot ${keySlot(key)}) was not ready within ${timeoutMs} ms`;
      reject(notSent(why, new NodeNotReadyError(why)));
    }, timeoutMs);
  });
  const connected = (async () => {
    try {
      await (nodeClient as (node: unknown) => Promise<unknown>).call(cluster, master);
    } catch (error) {
      throw notSent(`the connection to ${address} (master of slot ${keySlot(key)}) could not be opened`, error);
    }
  })();
  connected.catch(() => {}); // settles after the deadline won: nobody waits for it any more
  return Promise.race([connected, expired]).finally(() => clearTimeout(timer));
}

/**
 * Refreshes a node-redis Cluster client's slot map after a call failed on a connection, until the
 * map no longer names a node whose connection is down. node-redis 6 refreshes it on MOVED/ASK
 * replies and, by default, 5 s after a node client starts reconnecting; a call to a killed master
 * fails on the connection, gets no MOVED, and calls queued for it wait out their timeout. A refresh
 * that no longer finds the dead master (its replica was promoted) drops its node client, which
 * fails the calls queued on it at once, and the callers' next calls go to the new master.
 *
 * Also ends a node client's connect that has been retrying longer than `stuckMs` (a dead address
 * put back into the slot map by a node whose view was stale): node-redis's refresh waits for every
 * new node client to connect, and such a connect would hold every later refresh, and with them
 * every call to that slot, forever.
 */
export class ClusterRefresher {
  readonly #cluster: unknown;
  readonly #slots: SlotsLike | undefined;
  readonly #stuckMs: number;
  #timer: NodeJS.Timeout | undefined;
  #until = 0;
  /** When each pending node connect was first seen (the client's own connect promise is the key). */
  readonly #connectsSeen = new WeakMap<Promise<unknown>, number>();

  constructor(cluster: unknown, stuckMs: number) {
    const slots = safeGet(cluster, '_slots');
    const usable = typeof safeGet(slots, 'rediscover') === 'function' && safeGet(slots, 'nodeByAddress') instanceof Map;
    this.#cluster = cluster;
    this.#slots = usable ? (slots as SlotsLike) : undefined;
    this.#stuckMs = stuckMs;
  }

  /** Called after a call failed on a connection (or its deadline): refreshes now, then every 200 ms while a node is down, for up to 30 s. */
  refresh(): void {
    if (this.#slots === undefined) return;
    this.#until = performance.now() + REFRESH_FOR_MS;
    if (this.#timer === undefined) this.#tick();
  }

  #tick(): void {
    const slots = this.#slots!;
    const now = performance.now();
    this.#timer = undefined;
    // A closed client (destroyed by its owner) must not be refreshed: node-redis would open node clients for it.
    if (safeGet(this.#cluster, 'isOpen') === false || now > this.#until) return;
    if (this.#nodesDown(slots, now) === 0) return;
    // The client reports a failed refresh on its own 'error' event; the next tick asks again.
    slots
      .rediscover()
      .catch(() => {})
      .finally(() => {
        this.#timer = setTimeout(() => this.#tick(), REFRESH_INTERVAL_MS);
        this.#timer.unref();
      });
  }

  /** Node clients not ready (reconnecting or connecting); ends connects retrying longer than `stuckMs`. */
  #nodesDown(slots: SlotsLike, now: number): number {
    let down = 0;
    for (const node of slots.nodeByAddress.values()) {
      const connecting = node.connectPromise;
      if (connecting !== undefined) {
        down++;
        const seen = this.#connectsSeen.get(connecting);
        if (seen === undefined) this.#connectsSeen.set(connecting, now);
        // Destroying it rejects the connect: node-redis drops that node client and its refresh goes on.
        else if (now - seen > this.#stuckMs) node.client?.destroy();
      } else if (node.client !== undefined && node.client.isReady === false) down++;
    }
    return down;
  }
}
