// The harness starts a master with replicas, pauses one (SIGSTOP) and promotes it.
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { startRedisCluster, startReplicatedServer } from '../src/index.js';

describe('replicated server', () => {
  it('links the replicas, so WAIT counts them, and a paused replica is no longer counted', async () => {
    const set = await startReplicatedServer({ replicas: 2 });
    const client = createClient({ url: set.master.url });
    client.on('error', () => {});
    await client.connect();
    try {
      await client.set('k', 'v1');
      expect(await client.sendCommand(['WAIT', '2', '5000'])).toBe(2);
      set.pause(set.replicas[0]!);
      await client.set('k', 'v2');
      expect(await client.sendCommand(['WAIT', '2', '300'])).toBe(1);
      set.resume(set.replicas[0]!);
      expect(await client.sendCommand(['WAIT', '2', '5000'])).toBe(2);
    } finally {
      client.destroy();
      await set.close();
    }
  });

  it('promotes a paused replica, which keeps only what reached it before the pause', async () => {
    const set = await startReplicatedServer({ replicas: 1 });
    const client = createClient({ url: set.master.url });
    client.on('error', () => {});
    await client.connect();
    try {
      await client.set('before', '1');
      expect(await client.sendCommand(['WAIT', '1', '5000'])).toBe(1);
      set.pause(set.replicas[0]!);
      await client.set('after', '1');
      await set.master.kill();
      await set.promote(set.replicas[0]!);
      const promoted = createClient({ url: set.replicas[0]!.url });
      await promoted.connect();
      expect(await promoted.get('before')).toBe('1');
      expect(await promoted.get('after')).toBeNull();
      promoted.destroy();
    } finally {
      client.destroy();
      await set.close();
    }
  });
});

describe('Cluster with a replica per master', () => {
  it('links one replica to each master, so WAIT on a master counts it', async () => {
    const cluster = await startRedisCluster(undefined, { replicasPerMaster: 1 });
    try {
      expect(cluster.replicas).toHaveLength(3);
      for (const master of cluster.nodes) {
        const client = createClient({ url: master.url });
        client.on('error', () => {});
        await client.connect();
        try {
          expect(String(await client.sendCommand(['INFO', 'replication']))).toContain('connected_slaves:1');
          expect(await client.sendCommand(['WAIT', '1', '5000'])).toBe(1);
        } finally {
          client.destroy();
        }
      }
    } finally {
      await cluster.close();
    }
  }, 90_000);
});
