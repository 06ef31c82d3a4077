import { contractTargets, standalone as harnessStandalone, type Connection as HarnessConnection, type Target as HarnessTarget } from '@respire/harness';
import { FakeRedisServer } from '@respire/testing';
import type { RedisClientLike } from '@respire/core-scripts';
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

export { sleep, uniqueName } from '@respire/harness';

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
