// A private 3-master Redis Cluster for tests.
import { createClient } from 'redis';
import { startRedisServer, type RedisServerHandle } from './servers.js';

/** A 3-master Redis Cluster of private servers, slots split evenly, with `replicasPerMaster` replicas each (default none). */
export interface RedisClusterHandle {
  /** The masters, as started. */
  readonly nodes: readonly RedisServerHandle[];
  /** The replicas: `replicas[i]` replicates `nodes[i % replicatedMasters]` (empty without `replicasPerMaster`). */
  readonly replicas: readonly RedisServerHandle[];
  /** `rootNodes` for `createCluster({ rootNodes })`. */
  readonly rootNodes: { url: string }[];
  close(): Promise<void>;
}

const SLOTS = 16384;

async function sendTo(url: string, args: string[]): Promise<unknown> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    client.destroy();
  }
}

export interface RedisClusterOptions {
  /** Replicas of each master, linked (CLUSTER REPLICATE) before the Cluster is handed out. @defaultValue 0 */
  replicasPerMaster?: number;
  /**
   * How many masters get the replicas, from the first: a failover test that kills one master needs
   * a replica of that one only (and the other two masters' votes). @defaultValue 3 (every master)
   */
  replicatedMasters?: number;
  /** `cluster-node-timeout` of every node, in ms: how long until a silent master is failed over. @defaultValue 5000 */
  nodeTimeoutMs?: number;
}

/**
 * Starts three cluster-enabled servers, assigns slot ranges, joins them and waits for
 * `cluster_state:ok`; with `replicasPerMaster`, also starts and links the replicas and waits until
 * each has its master link up.
 */
export async function startRedisCluster(binary?: string, options: RedisClusterOptions = {}): Promise<RedisClusterHandle> {
  const nodes: RedisServerHandle[] = [];
  const replicas: RedisServerHandle[] = [];
  const nodeTimeout = String(options.nodeTimeoutMs ?? 5000);
  const close = async () => {
    await Promise.all([...nodes, ...replicas].map((node) => node.close()));
  };
  try {
    for (let i = 0; i < 3; i++) {
      nodes.push(
        await startRedisServer({
          cluster: true,
          args: ['--cluster-enabled', 'yes', '--cluster-node-timeout', nodeTimeout],
          ...(binary ? { binary } : {}),
        }),
      );
    }
    const per = Math.ceil(SLOTS / nodes.length);
    for (const [i, node] of nodes.entries()) {
      const first = i * per;
      const last = Math.min(SLOTS - 1, first + per - 1);
      await sendTo(node.url, ['CLUSTER', 'ADDSLOTSRANGE', String(first), String(last)]);
      if (i > 0) await sendTo(node.url, ['CLUSTER', 'MEET', '127.0.0.1', String(nodes[0]!.port)]);
    }
    const deadline = performance.now() + 60_000;
    for (const node of nodes) {
      for (;;) {
        const info = String(await sendTo(node.url, ['CLUSTER', 'INFO']));
        const known = /cluster_known_nodes:(\d+)/.exec(info)?.[1];
        if (info.includes('cluster_state:ok') && known === String(nodes.length)) break;
        if (performance.now() > deadline) throw new Error(`cluster did not converge:\n${info}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const perMaster = options.replicasPerMaster ?? 0;
    const replicated = Math.min(nodes.length, Math.max(1, options.replicatedMasters ?? nodes.length));
    for (let i = 0; i < perMaster * replicated; i++) {
      const replica = await startRedisServer({
        cluster: true,
        args: ['--cluster-enabled', 'yes', '--cluster-node-timeout', nodeTimeout],
        ...(binary ? { binary } : {}),
      });
      replicas.push(replica);
      await sendTo(replica.url, ['CLUSTER', 'MEET', '127.0.0.1', String(nodes[0]!.port)]);
    }
    const all = [...nodes, ...replicas];
    for (const [i, replica] of replicas.entries()) {
      const master = nodes[i % replicated]!;
      const masterId = String(await sendTo(master.url, ['CLUSTER', 'MYID']));
      // The replica must know the master's ID (gossip) before it can replicate it.
      for (;;) {
        const reply = await sendTo(replica.url, ['CLUSTER', 'REPLICATE', masterId]).then(
          () => 'ok',
          (error: unknown) => String(error),
        );
        if (reply === 'ok') break;
        if (performance.now() > deadline) throw new Error(`replica on port ${replica.port} could not replicate ${masterId}: ${reply}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    for (const node of all) {
      for (;;) {
        const info = String(await sendTo(node.url, ['CLUSTER', 'INFO']));
        const known = /cluster_known_nodes:(\d+)/.exec(info)?.[1];
        const linked = replicas.includes(node) ? String(await sendTo(node.url, ['INFO', 'replication'])).includes('master_link_status:up') : true;
        if (info.includes('cluster_state:ok') && known === String(all.length) && linked) break;
        if (performance.now() > deadline) throw new Error(`cluster with replicas did not converge:\n${info}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return { nodes, replicas, rootNodes: nodes.map((node) => ({ url: node.url })), close };
  } catch (error) {
    await close();
    throw error;
  }
}
