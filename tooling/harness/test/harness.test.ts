// The harness starts and stops private servers and Clusters, and fails loudly without redis-server.
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { createAclUser, startRedisCluster, startRedisServer } from '../src/index.js';

describe('test harness', () => {
  it('starts a private server on a free loopback port other than 6379 and stops it', async () => {
    const server = await startRedisServer();
    try {
      expect(server.port).not.toBe(6379);
      expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
      expect(server.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(['redis', 'valkey']).toContain(server.flavour);
      const client = createClient({ url: server.url });
      await client.connect();
      expect(await client.ping()).toBe('PONG');
      client.destroy();
    } finally {
      await server.close();
    }
    const client = createClient({ url: server.url, socket: { reconnectStrategy: false } });
    client.on('error', () => {});
    // Nothing listens on the port any more: the connection is refused.
    await expect(client.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('fails with an install hint when redis-server is missing, instead of skipping', async () => {
    const saved = process.env.REDIS_SERVER;
    process.env.REDIS_SERVER = '/nonexistent/redis-server';
    try {
      await expect(startRedisServer()).rejects.toThrow(/apt-get install -y redis-server/);
    } finally {
      if (saved === undefined) delete process.env.REDIS_SERVER;
      else process.env.REDIS_SERVER = saved;
    }
  });

  it('starts a 3-master Cluster that serves every slot', async () => {
    const cluster = await startRedisCluster();
    try {
      const client = createClient({ url: cluster.nodes[0]!.url });
      await client.connect();
      const info = String(await client.sendCommand(['CLUSTER', 'INFO']));
      expect(info).toContain('cluster_state:ok');
      expect(info).toContain('cluster_slots_assigned:16384');
      expect(info).toContain('cluster_known_nodes:3');
      client.destroy();
    } finally {
      await cluster.close();
    }
  });

  it('creates ACL users whose rules the server enforces', async () => {
    const server = await startRedisServer();
    try {
      const user = await createAclUser([server.url], 'reader', ['~*', '+@read']);
      const client = createClient({ url: user.urlFor(server.url) });
      await client.connect();
      expect(await client.get('k')).toBeNull();
      await expect(client.set('k', 'v')).rejects.toThrow(/NOPERM/);
      client.destroy();
    } finally {
      await server.close();
    }
  });
});
