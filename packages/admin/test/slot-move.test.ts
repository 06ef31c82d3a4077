// A Cluster slot moved under the admin's client.
import { eventually, startRedisCluster, type RedisClusterHandle } from '@respire/harness';
import { keySlot } from '@respire/core-scripts/internal';
import { createClient, createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin } from '../src/index.js';
import { operator, uniqueQueue } from './support.js';

type Client = ReturnType<typeof createClient>;

/**
 * A slot moved to another master while the admin's Cluster client still routes by the old map:
 * MOVED makes node-redis re-route, the scripts are loaded again on the new master (NOSCRIPT →
 * EVAL), discovery scans the new owner. A private Cluster: the run's shared one is left alone.
 */
describe('a Cluster slot move under the admin', { timeout: 60_000 }, () => {
  let cluster: RedisClusterHandle;
  const nodes: Client[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster();
    for (const node of cluster.nodes) {
      const client = createClient({ url: node.url });
      client.on('error', () => {});
      nodes.push((await client.connect()) as Client);
    }
  }, 60_000);
  afterAll(async () => {
    for (const node of nodes) node.destroy();
    await cluster?.close();
  });

  async function owner(slot: number): Promise<number> {
    const slots = (await nodes[0]!.sendCommand(['CLUSTER', 'SLOTS'])) as [number, number, [string, number, string]][];
    const range = slots.find(([from, to]) => slot >= Number(from) && slot <= Number(to))!;
    return cluster.nodes.findIndex((n) => n.port === Number(range[2][1]));
  }

  /** Moves `slot` (and its keys) from its master to the next one, as `redis-cli --cluster reshard` does. */
  async function move(slot: number): Promise<void> {
    const from = await owner(slot);
    const to = (from + 1) % nodes.length;
    const id = async (i: number) => String(await nodes[i]!.sendCommand(['CLUSTER', 'MYID']));
    const [fromId, toId] = [await id(from), await id(to)];
    await nodes[to]!.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', fromId]);
    await nodes[from]!.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', toId]);
    for (;;) {
      const keys = (await nodes[from]!.sendCommand(['CLUSTER', 'GETKEYSINSLOT', String(slot), '100'])) as string[];
      if (keys.length === 0) break;
      await nodes[from]!.sendCommand(['MIGRATE', '127.0.0.1', String(cluster.nodes[to]!.port), '', '0', '5000', 'KEYS', ...keys]);
    }
    // The new owner first (it bumps its config epoch), then the old one, then the rest: told in
    // another order, a node could take the old owner's gossip (a higher epoch than the new owner's,
    // not yet bumped) as newer and move the slot back for a while.
    const order = [to, from, ...nodes.keys()].filter((i, at, all) => all.indexOf(i) === at);
    for (const i of order) await nodes[i]!.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'NODE', toId]);
    await eventually(async () => (await owner(slot)) === to, 5000, 20);
  }

  it('retry, bulk retry, release and discovery follow the slot to its new master', async () => {
    const client = createCluster({ rootNodes: cluster.rootNodes });
    client.on('error', () => {});
    await client.connect();
    try {
      const raw = (key: string, args: string[]) => client.sendCommand(key, false, args);
      const name = uniqueQueue('move');
      const qid = `{respire-queue:${name}}:stream`;
      const dead = `{respire-queue:${name}}:dead-letter`;
      const slot = keySlot(qid);
      const stream = `{respire-queue:${name}}:worker-events`; // a worker stream in the same slot
      const admin = new RespireAdmin(client, { streams: [{ stream }], discoverQueues: true });
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(String(await raw(dead, ['XADD', dead, '*', 'payload', `m${i}`, 'source_id', '1-1', 'delivery_count', '5'])));
      await raw(qid, ['XADD', qid, '*', 'payload', 'x']);
      const entry = String(await raw(stream, ['XADD', stream, '*', 'k', 'v']));
      await raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
      await raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', stream, '>']);
      expect(await admin.retryDeadLetter(operator, qid, ids[0]!)).toMatchObject({ status: 'retried' }); // scripts loaded on the first owner
      const before = await owner(slot);

      await move(slot);
      expect(await owner(slot)).not.toBe(before);
      expect(await admin.retryDeadLetter(operator, qid, ids[1]!)).toMatchObject({ status: 'retried' });

      // A bulk retry whose client meets the move between two of its calls (its slot map is stale).
      expect(await admin.retryAllDeadLetters(operator, qid, { pageSize: 1, limit: 2 })).toEqual({ done: 2, failed: 0, aborted: false });
      await move(slot);
      expect(await admin.retryAllDeadLetters(operator, qid, { pageSize: 1 })).toEqual({ done: 2, failed: 0, aborted: false });
      expect(Number(await raw(dead, ['XLEN', dead]))).toBe(0);
      expect(Number(await raw(qid, ['XLEN', qid]))).toBe(7);

      await move(slot);
      expect(await admin.releasePending(operator, stream, 'g', entry, { deliveryCount: 1, consumer: 'c' })).toEqual({ status: 'released' });
      const overview = await admin.overview();
      expect(overview.unavailable).toEqual([]);
      expect(overview.queues.find((q) => q.resource.name === name)).toMatchObject({ length: 7, deadLetters: 0 });
    } finally {
      client.destroy();
    }
  });
});
