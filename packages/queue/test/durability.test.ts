// The durability option: WAIT / WAITAOF after each write, a typed error when a write is not confirmed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createCluster } from 'redis';
import {
  serverBinary,
  binaryVersion,
  startRedisCluster,
  startReplicatedServer,
  startRedisServer,
  type RedisClusterHandle,
  type ReplicatedServerHandle,
} from '@respire/harness';
import { FakeRedisServer } from '@respire/testing';
import { keySlot } from '@respire/core-scripts/internal';
import { ReliableQueue, RespireNotDurableError, RespireUnsupportedServerError, RespireValidationError, utf8Codec } from '@respire/queue';
import { standalone, targets, uniqueName, type Connection } from './support.js';

/** WAITAOF came with Redis 7.2; every Valkey of the matrix (8.0+) has it. */
function hasWaitAof(): boolean {
  const { flavour, version } = binaryVersion(serverBinary());
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return flavour === 'valkey' || major > 7 || (major === 7 && minor >= 2);
}

const queueOn = (conn: Connection, durability: unknown, name = uniqueName()) =>
  new ReliableQueue<string>(conn.client, name, { codec: utf8Codec, durability: durability as never });

/** XLEN of `key` on a server, over a connection of its own. */
async function lengthOn(url: string, key: string): Promise<number> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    return Number(await client.sendCommand(['XLEN', key]));
  } finally {
    client.destroy();
  }
}

describe('durability option: validation, before any I/O', () => {
  let fake: FakeRedisServer;
  let conn: Connection;
  beforeAll(async () => {
    fake = await FakeRedisServer.start({ version: '7.0' });
    conn = await standalone(fake.url);
  });
  afterAll(async () => {
    await conn.close();
    await fake.close();
  });

  it.each([
    [{ replicas: 1 }, 'durability.timeoutMs'],
    [{ replicas: 1, timeoutMs: 0 }, 'durability.timeoutMs'],
    [{ replicas: 1, timeoutMs: -5 }, 'durability.timeoutMs'],
    [{ replicas: -1, timeoutMs: 100 }, 'durability.replicas'],
    [{ replicas: 1.5, timeoutMs: 100 }, 'durability.replicas'],
    [{ replicas: 1, aof: 'remote', timeoutMs: 100 }, 'durability.aof'],
    [{ timeoutMs: 100 }, 'durability'],
    [{ replicas: 1, timeoutMs: 100, syncMode: 'ACK' }, 'durability'],
    ['yes', 'durability'],
  ])('refuses %j (%s)', (durability, argument) => {
    const make = () => queueOn(conn, durability);
    expect(make).toThrow(RespireValidationError);
    expect(make).toThrow(expect.objectContaining({ argument }));
  });

  it('on the fake server (no replicas), a write waiting for one replica is applied and raises RespireNotDurableError', async () => {
    const queue = queueOn(conn, { replicas: 1, timeoutMs: 50 });
    const error = await queue.send('hello').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RespireNotDurableError);
    expect(error).toMatchObject({ code: 'NOT_DURABLE', applied: true, replicasRequired: 1, replicasReached: 0, retrySafe: false, retryable: false });
    expect(await conn.raw(queue.streamKey, ['XLEN', queue.streamKey])).toBe(1);
  });

  it('on the fake server (no replicas), a grouped receive still returns the batch it leased, each message with its group', async () => {
    const queue = new ReliableQueue<string>(conn.client, uniqueName(), { codec: utf8Codec, groups: {}, durability: { replicas: 1, timeoutMs: 50 } });
    for (const [payload, groupId] of [
      ['a1', 'a'],
      ['b1', 'b'],
    ]) {
      await expect(queue.send(payload!, { groupId: groupId! })).rejects.toThrow(RespireNotDurableError);
    }
    const batch = await queue.receive(30_000, { max: 5 });
    expect(batch.map((m) => [m.payload, m.groupId, m.deliveryCount])).toEqual([
      ['a1', 'a', 1],
      ['b1', 'b', 1],
    ]);
  });

  it('refuses aof on a fake Redis 8.6 (WAITAOF, but no appendonly) before writing anything', async () => {
    const fake86 = await FakeRedisServer.start({ version: '8.6' });
    const conn86 = await standalone(fake86.url);
    try {
      const queue = queueOn(conn86, { aof: true, replicas: 0, timeoutMs: 50 });
      await expect(queue.send('hello')).rejects.toThrow(/appendonly is off/);
      expect(await conn86.raw(queue.streamKey, ['EXISTS', queue.streamKey])).toBe(0);
    } finally {
      await conn86.close();
      await fake86.close();
    }
  });

  it('refuses aof on a server without WAITAOF before writing anything', async () => {
    const queue = queueOn(conn, { aof: 'local', timeoutMs: 50 });
    await expect(queue.send('hello')).rejects.toThrow(RespireUnsupportedServerError);
    await expect(queue.send('hello')).rejects.toThrow(/has no WAITAOF/);
    expect(await conn.raw(queue.streamKey, ['EXISTS', queue.streamKey])).toBe(0);
  });
});

describe('durability option on a master with a replica', () => {
  let set: ReplicatedServerHandle;
  let conn: Connection;
  beforeAll(async () => {
    set = await startReplicatedServer({ replicas: 1 });
    conn = await standalone(set.master.url);
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    await set?.close();
  });

  it('with the replica linked, every write returns once the replica has it', async () => {
    const queue = queueOn(conn, { replicas: 1, timeoutMs: 5000 });
    for (let i = 0; i < 5; i++) await queue.send(`m${i}`);
    expect(await lengthOn(set.replicas[0]!.url, queue.streamKey)).toBe(5);
    await queue.send('dedup', { deduplicationId: 'd1' });
    const batch = await queue.receive(30_000, { max: 6 });
    expect(batch).toHaveLength(6);
    expect(await queue.ackMany(batch.slice(0, 3))).toEqual([true, true, true]);
    expect(await queue.nack(batch[3]!)).toBe(true);
    // The ACKs (XACK + XDEL) reached the replica before the call returned.
    expect(await lengthOn(set.replicas[0]!.url, queue.streamKey)).toBe(3);
  });

  it('with the replica lagging, writes are applied on the master and raise RespireNotDurableError with the counts', async () => {
    const queue = queueOn(conn, { replicas: 1, timeoutMs: 200 });
    await queue.send('before');
    const [message] = await queue.receive(30_000);
    set.pause(set.replicas[0]!);
    try {
      const plain = await queue.send('plain').catch((e: unknown) => e);
      expect(plain).toBeInstanceOf(RespireNotDurableError);
      expect(plain).toMatchObject({ applied: true, replicasRequired: 1, replicasReached: 0, retrySafe: false });
      expect((plain as Error).message).toMatch(/WAS applied.*0 of 1 replicas acknowledged it within 200 ms.*do not repeat/);
      const entryId = String((plain as RespireNotDurableError).reply);
      expect(await conn.raw(queue.streamKey, ['XRANGE', queue.streamKey, entryId, entryId])).toHaveLength(1);

      const deduplicated = await queue.send('once', { deduplicationId: 'order-1' }).catch((e: unknown) => e);
      expect(deduplicated).toMatchObject({ code: 'NOT_DURABLE', retrySafe: true });
      expect((deduplicated as Error).message).toMatch(/retrying with the same deduplication ID is safe/);

      const ack = await queue.ack(message!).catch((e: unknown) => e);
      expect(ack).toBeInstanceOf(RespireNotDurableError);
      // The ACK was applied: the receipt is completed, so a second ACK finds nothing to do.
      const retried = await queue.ack(message!).catch((e: unknown) => e);
      expect(retried).toBeInstanceOf(RespireNotDurableError);
      expect((retried as RespireNotDurableError).reply).toBeDefined();
    } finally {
      set.resume(set.replicas[0]!);
      await set.waitForLinks();
    }
    // Once the replica caught up, the retry with the same deduplication ID is confirmed and appends nothing.
    const again = await queue.sendWithResult('once', { deduplicationId: 'order-1' });
    expect(again.duplicate).toBe(true);
    // 'plain' and 'once' (the acknowledged 'before' is deleted), as on the master.
    expect(await lengthOn(set.replicas[0]!.url, queue.streamKey)).toBe(2);
  }, 30_000);

  it('with the replica lagging, a receive still returns the batch it leased (the leases were written)', async () => {
    const queue = queueOn(conn, { replicas: 1, timeoutMs: 200 });
    const ids = [await queue.send('a'), await queue.send('b')];
    set.pause(set.replicas[0]!);
    try {
      const batch = await queue.receive(30_000, { max: 5 });
      expect(batch.map((m) => [m.id, m.deliveryCount])).toEqual(ids.map((id) => [id, 1]));
      // Nothing else is receivable: the two are leased, not left behind to count toward the limit unseen.
      expect(await queue.receive(30_000)).toEqual([]);
    } finally {
      set.resume(set.replicas[0]!);
      await set.waitForLinks();
    }
  }, 30_000);
});

describe('durability option with aof', () => {
  if (hasWaitAof()) {
    it('waits for the AOF fsync of the master and the replica (WAITAOF) with appendonly yes', async () => {
      const set = await startReplicatedServer({ replicas: 1, args: ['--appendonly', 'yes', '--appendfsync', 'everysec'] });
      const conn = await standalone(set.master.url);
      try {
        const queue = queueOn(conn, { replicas: 1, aof: true, timeoutMs: 5000 });
        await queue.send('fsynced');
        const local = queueOn(conn, { aof: 'local', timeoutMs: 5000 });
        await local.send('fsynced locally');
        set.pause(set.replicas[0]!);
        const error = await queue.send('not on the replica').catch((e: unknown) => e);
        set.resume(set.replicas[0]!);
        expect(error).toMatchObject({ code: 'NOT_DURABLE', localAofRequired: true, localAofReached: true, replicasReached: 0 });
      } finally {
        await conn.close();
        await set.close();
      }
    }, 60_000);

    it('refuses aof when appendonly is off, before writing anything', async () => {
      const server = await startRedisServer();
      const conn = await standalone(server.url);
      try {
        const queue = queueOn(conn, { aof: 'local', timeoutMs: 100 });
        await expect(queue.send('x')).rejects.toThrow(RespireUnsupportedServerError);
        await expect(queue.send('x')).rejects.toThrow(/appendonly is off/);
        expect(await conn.raw(queue.streamKey, ['EXISTS', queue.streamKey])).toBe(0);
      } finally {
        await conn.close();
        await server.close();
      }
    });
  } else {
    it('refuses aof on this server (no WAITAOF before Redis 7.2), before writing anything', async () => {
      const server = await startRedisServer({ args: ['--appendonly', 'yes'] });
      const conn = await standalone(server.url);
      try {
        const queue = queueOn(conn, { replicas: 1, aof: true, timeoutMs: 100 });
        await expect(queue.send('x')).rejects.toThrow(RespireUnsupportedServerError);
        await expect(queue.send('x')).rejects.toThrow(/has no WAITAOF \(it needs Redis 7\.2\+ or Valkey 8\+\)/);
        expect(await conn.raw(queue.streamKey, ['EXISTS', queue.streamKey])).toBe(0);
      } finally {
        await conn.close();
        await server.close();
      }
    });
  }
});

describe('durability option in a Cluster (the harness Cluster has no replicas)', () => {
  let conn: Connection;
  beforeAll(async () => void (conn = await targets.find((t) => t.name.startsWith('cluster'))!.connect()));
  afterAll(async () => conn?.close());

  it("waits on the slot's master: a write is applied there and, with no replica to confirm it, raises RespireNotDurableError", async () => {
    const queue = queueOn(conn, { replicas: 1, timeoutMs: 50 });
    const error = await queue.send('in a cluster').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NOT_DURABLE', replicasReached: 0 });
    const id = String((error as RespireNotDurableError).reply);
    expect(await conn.raw(queue.streamKey, ['XRANGE', queue.streamKey, id, id])).toHaveLength(1);
    const deduplicated = await queue.send('once', { deduplicationId: 'c-1' }).catch((e: unknown) => e);
    expect(deduplicated).toMatchObject({ code: 'NOT_DURABLE', retrySafe: true });
  });

  it('refuses aof before writing anything when the masters run without appendonly', async () => {
    const queue = queueOn(conn, { aof: 'local', timeoutMs: 50 });
    await expect(queue.send('x')).rejects.toThrow(RespireUnsupportedServerError);
    expect(await conn.raw(queue.streamKey, ['EXISTS', queue.streamKey])).toBe(0);
  });
});

describe('durability option in a Cluster with a replica per master', () => {
  let cluster: RedisClusterHandle;
  let client: ReturnType<typeof createCluster>;
  beforeAll(async () => {
    cluster = await startRedisCluster(serverBinary(), { replicasPerMaster: 1 });
    client = createCluster({ rootNodes: cluster.rootNodes });
    client.on('error', () => {});
    await client.connect();
  }, 90_000);
  afterAll(async () => {
    client?.destroy();
    await cluster?.close();
  });

  it("every write returns once the slot master's replica has it, for queues in different slots", async () => {
    for (let q = 0; q < 3; q++) {
      const queue = new ReliableQueue<string>(client as never, uniqueName(), { codec: utf8Codec, durability: { replicas: 1, timeoutMs: 5000 } });
      await queue.send('a');
      await queue.send('b', { deduplicationId: 'b' });
      const batch = await queue.receive(30_000, { max: 2 });
      expect(await queue.ackMany(batch)).toEqual([true, true]);
    }
  }, 30_000);

  it("waits on the slot's own master: with that master's replica stopped the write raises RespireNotDurableError, other slots are confirmed", async () => {
    const queue = new ReliableQueue<string>(client as never, uniqueName(), { codec: utf8Codec, durability: { replicas: 1, timeoutMs: 200 } });
    // The harness splits the slots evenly in order: master i serves the i-th third, replicas[i] replicates it.
    const serving = Math.floor(keySlot(queue.streamKey) / Math.ceil(16384 / cluster.nodes.length));
    const stopped = cluster.replicas[serving]!;
    process.kill(stopped.pid, 'SIGSTOP');
    try {
      const error = await queue.send('unconfirmed').catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'NOT_DURABLE', replicasReached: 0 });
      // A queue whose slot another master serves is confirmed meanwhile.
      for (let i = 0; i < 20; i++) {
        const other = new ReliableQueue<string>(client as never, uniqueName(), { codec: utf8Codec, durability: { replicas: 1, timeoutMs: 2000 } });
        const slotOwner = Math.floor(keySlot(other.streamKey) / Math.ceil(16384 / cluster.nodes.length));
        if (slotOwner === serving) continue;
        await other.send('confirmed');
        break;
      }
    } finally {
      process.kill(stopped.pid, 'SIGCONT');
    }
  }, 30_000);

  it("a write sent on by ASK (its slot migrating, its key already moved) waits on the importing master, not on the slot map's old owner", async () => {
    const queue = new ReliableQueue<string>(client as never, uniqueName(), { codec: utf8Codec, durability: { replicas: 1, timeoutMs: 200 } });
    await queue.send('before');
    const slot = keySlot(queue.streamKey);
    const from = Math.floor(slot / Math.ceil(16384 / cluster.nodes.length));
    const to = (from + 1) % cluster.nodes.length;
    const nodes = await Promise.all(
      cluster.nodes.map(async (node) => {
        const c = createClient({ url: node.url });
        c.on('error', () => {});
        return (await c.connect()) as ReturnType<typeof createClient>;
      }),
    );
    try {
      const [fromId, toId] = await Promise.all([from, to].map(async (i) => String(await nodes[i]!.sendCommand(['CLUSTER', 'MYID']))));
      // The slot half moved, as `redis-cli --cluster reshard` leaves it between two MIGRATEs: the stream is on the importing master.
      await nodes[to]!.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', fromId!]);
      await nodes[from]!.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', toId!]);
      const keys = (await nodes[from]!.sendCommand(['CLUSTER', 'GETKEYSINSLOT', String(slot), '100'])) as string[];
      expect(keys).toContain(queue.streamKey);
      await nodes[from]!.sendCommand(['MIGRATE', '127.0.0.1', String(cluster.nodes[to]!.port), '', '0', '5000', 'KEYS', ...keys]);
      // replicas[i] replicates nodes[i]: the importing master's replica stopped, the write is not confirmed.
      process.kill(cluster.replicas[to]!.pid, 'SIGSTOP');
      try {
        const error = await queue.send('asked').catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'NOT_DURABLE', replicasReached: 0 });
      } finally {
        process.kill(cluster.replicas[to]!.pid, 'SIGCONT');
      }
      // The old owner's replica stopped instead: the write is confirmed by the importing master's replica.
      process.kill(cluster.replicas[from]!.pid, 'SIGSTOP');
      try {
        await queue.send('asked again');
      } finally {
        process.kill(cluster.replicas[from]!.pid, 'SIGCONT');
      }
      await nodes[to]!.sendCommand(['ASKING']);
      expect(Number(await nodes[to]!.sendCommand(['XLEN', queue.streamKey]))).toBe(3);
      // Ends the move (the new owner first), so the Cluster is whole for what follows.
      for (const i of [to, from, ...nodes.keys()].filter((n, at, all) => all.indexOf(n) === at)) {
        await nodes[i]!.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'NODE', toId!]);
      }
    } finally {
      for (const node of nodes) node.destroy();
    }
  }, 30_000);
});
