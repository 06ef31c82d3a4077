// A private 3-master Redis Cluster for tests.
import { createClient } from 'redis';
import { startRedisServer, type RedisServerHandle } from './servers.js';

/** A 3-master Redis Cluster of private servers, slots split evenly, no replicas. */
export interface RedisClusterHandle {
  readonly nodes: readonly RedisServerHandle[];
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

/** Starts three cluster-enabled servers, assigns slot ranges, joins them and waits for `cluster_state:ok`. */
export async function startRedisCluster(binary?: string): Promise<RedisClusterHandle> {
  const nodes: RedisServerHandle[] = [];
  const close = async () => {
    await Promise.all(nodes.map((node) => node.close()));
  };
  try {
    for (let i = 0; i < 3; i++) {
      nodes.push(
        await startRedisServer({
          cluster: true,
          args: ['--cluster-enabled', 'yes', '--cluster-node-timeout', '5000'],
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
    const deadline = performance.now() + 30_000;
    for (const node of nodes) {
      for (;;) {
        const info = String(await sendTo(node.url, ['CLUSTER', 'INFO']));
        const known = /cluster_known_nodes:(\d+)/.exec(info)?.[1];
        if (info.includes('cluster_state:ok') && known === String(nodes.length)) break;
        if (performance.now() > deadline) throw new Error(`cluster did not converge:\n${info}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return { nodes, rootNodes: nodes.map((node) => ({ url: node.url })), close };
  } catch (error) {
    await close();
    throw error;
  }
}
