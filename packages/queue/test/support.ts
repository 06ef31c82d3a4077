// The queue suites' targets, fixture and server-clock helpers.
import {
  contractTargets,
  eventually,
  standalone as harnessStandalone,
  uniqueName,
  type Connection as HarnessConnection,
  type Target as HarnessTarget,
} from '@respire/harness';
import { FakeRedisServer } from '@respire/testing';
import type { RedisClientLike } from '@respire/core-scripts';
import { queueKeys } from '@respire/core-scripts/internal';
import { ReliableQueue, utf8Codec, type ReliableQueueOptions } from '@respire/queue';
import type {} from '@respire/harness/global-setup'; // the ProvidedContext keys inject() reads

export type Connection = HarnessConnection<RedisClientLike>;
export type Target = HarnessTarget<RedisClientLike>;

/** A node-redis v6 connection to `url`. */
export const standalone = (url: string): Promise<Connection> => harnessStandalone<RedisClientLike>(url);

/**
 * The suite runs on each: node-redis v6 (RESP3) and v5 (RESP2) standalone, v6 on a 3-master
 * Cluster, and v6 on the fake server (`@respire/testing`, Redis 7.0 model), which runs the same scripts.
 */
export const targets: Target[] = contractTargets<RedisClientLike>(() => FakeRedisServer.start({ version: '7.0' }));

export { describeOnTargets, eventually, uniqueName } from '@respire/harness';

/**
 * The suite's queue factory: `queueOf(options, name)` makes a ReliableQueue on `connection()`'s
 * client, UTF-8 text unless `options.codec` says otherwise, under a name no other test uses unless
 * `name` is given. Queues hold no connection of their own: nothing to close.
 */
export function queueFixture(connection: () => Connection): <T = string>(options?: Partial<ReliableQueueOptions<T>>, name?: string) => ReliableQueue<T> {
  return <T = string>(options: Partial<ReliableQueueOptions<T>> = {}, name = uniqueName()) =>
    new ReliableQueue<T>(connection().client, name, { codec: utf8Codec as never, ...options });
}

/** The server clock (TIME) of the node serving `key`, in ms with the microseconds as a fraction. */
export async function serverTimeMs(conn: Connection, key: string): Promise<number> {
  const [seconds, micros] = (await conn.raw(key, ['TIME'])) as [string, string];
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

/**
 * Waits until every member of the queue's deadlines index is due on the server's own clock: every
 * lease has expired and every NACK delay has passed. Deadlines come from the server clock, so this
 * waits for exactly as long as the server needs, whatever the load on this machine.
 */
export async function untilAllDue(conn: Connection, queue: { readonly name: string }): Promise<void> {
  const { deadlines } = queueKeys(queue.name, '');
  const top = (await conn.raw(deadlines, ['ZRANGE', deadlines, '-1', '-1', 'WITHSCORES'])) as unknown[];
  if (top.length === 0) return;
  // RESP2: [member, score]; RESP3: [[member, score]].
  const score = Number(Array.isArray(top[0]) ? (top[0] as unknown[])[1] : top[1]);
  await eventually(async () => (await serverTimeMs(conn, deadlines)) >= score, 10_000, 5);
}

/** Waits until the server clock of the node serving `key` has moved past the current millisecond. */
export async function nextServerMillisecond(conn: Connection, key: string): Promise<void> {
  const now = Math.floor(await serverTimeMs(conn, key));
  await eventually(async () => Math.floor(await serverTimeMs(conn, key)) > now, 10_000, 1);
}

/** Everything stored for a queue, to prove that a refused call changed nothing. */
export async function snapshot(conn: Connection, keys: { stream: string; deadlines: string; deadLetter: string }): Promise<string> {
  const [type, stream, deadlines, dead, groups] = await Promise.all([
    conn.raw(keys.stream, ['TYPE', keys.stream]),
    conn.raw(keys.stream, ['TYPE', keys.stream]).then((t) => (String(t) === 'stream' ? conn.raw(keys.stream, ['XRANGE', keys.stream, '-', '+']) : null)),
    conn
      .raw(keys.deadlines, ['TYPE', keys.deadlines])
      .then((t) => (String(t) === 'zset' ? conn.raw(keys.deadlines, ['ZRANGE', keys.deadlines, '0', '-1', 'WITHSCORES']) : t)),
    conn
      .raw(keys.deadLetter, ['TYPE', keys.deadLetter])
      .then((t) => (String(t) === 'stream' ? conn.raw(keys.deadLetter, ['XRANGE', keys.deadLetter, '-', '+']) : t)),
    conn.raw(keys.stream, ['TYPE', keys.stream]).then((t) => (String(t) === 'stream' ? conn.raw(keys.stream, ['XINFO', 'GROUPS', keys.stream]) : null)),
  ]);
  return JSON.stringify({ type, stream, deadlines, dead, groups });
}
