// A partitioned queue's waiting receive and consume() (README "Scaling past one master"): a send or
// NACK on any partition wakes the wait, nothing is left leased, max holds, consume() handles every
// message once, and at least once when its connections are killed; its blocking connections are counted.
import { createClient, createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRedisServer, type RedisServerHandle } from '@respire/harness';
import {
  MAX_WAIT_MS,
  PartitionedQueue,
  ReliableQueue,
  isRespireError,
  nackAfter,
  utf8Codec,
  type PartitionedMessage,
  type QueueConsumer,
} from '@respire/queue';
import { queueKeys } from '@respire/core-scripts/internal';
import type { RedisClientLike } from '@respire/core-scripts';
import { partitionOfId } from '../src/partitions/layout.js';
import { describeOnTargets, eventually, targets, uniqueName, type Connection } from './support.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quiet = { warn() {}, error() {} };

/** A deduplication ID of the form `<stem>-<n>` that routes to `partition`. */
function idFor(partition: number, count: number, stem: string): string {
  for (let n = 0; ; n++) if (partitionOfId(`${stem}-${n}`, count) === partition) return `${stem}-${n}`;
}

/** Messages leased or delayed on every partition: the members of each partition's deadlines index, by partition. */
async function leased(conn: Connection, queue: PartitionedQueue<string>): Promise<number[]> {
  return Promise.all(
    queue.partitionNames.map(async (name) => {
      const { deadlines } = queueKeys(name, '');
      return Number(await conn.raw(deadlines, ['ZCARD', deadlines]));
    }),
  );
}

async function lengths(conn: Connection, queue: PartitionedQueue<string>): Promise<number[]> {
  return Promise.all(queue.streamKeys.map(async (stream) => Number(await conn.raw(stream, ['XLEN', stream]))));
}

describeOnTargets('PartitionedQueue waiting receive and consume()', targets, (target, connection) => {
  const queueOf = (partitions: number, name = uniqueName()): PartitionedQueue<string> =>
    new PartitionedQueue<string>(connection().client, name, { codec: utf8Codec, partitions });

  it('wakes on a send to each partition during the wait, well before waitMs, also with more partitions than 2 × max', async () => {
    for (const [partitions, max] of [
      [3, 10],
      [5, 1],
    ] as const) {
      const queue = queueOf(partitions);
      const other = await target.connect();
      try {
        const sender = new PartitionedQueue<string>(other.client, queue.name, { codec: utf8Codec, partitions });
        for (let partition = 0; partition < partitions; partition++) {
          const waiting = queue.receive(30_000, { waitMs: 10_000, max });
          // Let the receiver reach its block (a send before it is found by the receive anyway).
          await sleep(200);
          const sentAt = performance.now();
          const { id } = await sender.sendWithResult(`to ${partition}`, { deduplicationId: idFor(partition, partitions, `w${partition}`) });
          const batch = await waiting;
          expect(performance.now() - sentAt, `partition ${partition} of ${partitions}`).toBeLessThan(2500);
          expect(batch.map((m) => [m.partition, m.id, m.payload])).toEqual([[partition, id, `to ${partition}`]]);
          expect(await queue.ack(batch[0]!)).toBe(true);
        }
      } finally {
        await other.close();
      }
    }
  });

  it('wakes at once when another client NACKs a message of any partition, well before its lease or waitMs would end', async () => {
    const queue = queueOf(3);
    const other = await target.connect();
    try {
      const holder = new PartitionedQueue<string>(other.client, queue.name, { codec: utf8Codec, partitions: 3 });
      const { id } = await queue.sendWithResult('held', { deduplicationId: idFor(2, 3, 'held') });
      const [held] = await holder.receive(60_000);
      expect(held).toMatchObject({ id, partition: 2 });
      const waiting = queue.receive(30_000, { waitMs: 10_000 });
      await sleep(300);
      const nackedAt = performance.now();
      expect(await holder.nack(held!, 0)).toBe(true);
      const batch = await waiting;
      expect(performance.now() - nackedAt).toBeLessThan(2500);
      expect(batch.map((m) => [m.id, m.partition, m.deliveryCount])).toEqual([[id, 2, 2]]);
    } finally {
      await other.close();
    }
  });

  it('an expiring lease on one partition bounds the block: the message comes back at its deadline', async () => {
    const queue = queueOf(3);
    const { id } = await queue.sendWithResult('slow', { deduplicationId: idFor(1, 3, 'slow') });
    const [first] = await queue.receive(500);
    const started = performance.now();
    const batch = await queue.receive(30_000, { waitMs: 10_000 });
    const elapsed = performance.now() - started;
    expect(batch.map((m) => [m.id, m.partition, m.deliveryCount])).toEqual([[id, 1, 2]]);
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(3000);
    expect(await queue.ack(first!)).toBe(false);
    expect(await queue.ack(batch[0]!)).toBe(true);
  });

  it('ends empty at waitMs and leaves nothing leased; of two waits racing for one message, the loser leases nothing', async () => {
    const queue = queueOf(4);
    const started = performance.now();
    expect(await queue.receive(30_000, { waitMs: 400 })).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(await leased(connection(), queue)).toEqual([0, 0, 0, 0]);

    const a = queue.receive(30_000, { waitMs: 1500, max: 1 });
    const b = queue.receive(30_000, { waitMs: 1500, max: 1 });
    await sleep(200);
    await queue.send('only one');
    const [batchA, batchB] = await Promise.all([a, b]);
    const got = [...batchA, ...batchB];
    expect(got.map((m) => m.payload)).toEqual(['only one']);
    expect((await leased(connection(), queue)).reduce((x, y) => x + y)).toBe(1);
    expect(await queue.ack(got[0]!)).toBe(true);
    expect(await leased(connection(), queue)).toEqual([0, 0, 0, 0]);
  });

  it('never returns more than max from loaded partitions, and every message exactly once', async () => {
    const queue = queueOf(4);
    const payloads = Array.from({ length: 43 }, (_, i) => `m${i}`);
    await queue.sendMany(payloads.map((payload) => ({ payload })));
    const seen: string[] = [];
    for (;;) {
      const batch = await queue.receive(30_000, { waitMs: 300, max: 7 });
      if (batch.length === 0) break;
      expect(batch.length).toBeLessThanOrEqual(7);
      seen.push(...batch.map((m) => m.payload));
      expect(await queue.ackMany(batch)).toEqual(batch.map(() => true));
    }
    expect(seen.sort()).toEqual([...payloads].sort());
    expect(await lengths(connection(), queue)).toEqual([0, 0, 0, 0]);
  });

  it('a receive failing on one partition releases what the others leased in that call: receivable again at once', async () => {
    const queue = queueOf(3);
    const { id } = await queue.sendWithResult('kept', { deduplicationId: idFor(0, 3, 'kept') });
    // Partition 1's stream is a string: its receive fails with a key-type error before any write.
    await connection().raw(queue.streamKeys[1]!, ['SET', queue.streamKeys[1]!, 'not a stream']);
    for (const waitMs of [0, 1000]) {
      const error = await queue.receive(60_000, { max: 3, waitMs }).catch((e: unknown) => e);
      expect(isRespireError(error, 'WRONG_TYPE'), String(error)).toBe(true);
    }
    // Not held for the 60 s lease: partition 0's own queue leases it at once (two deliveries counted).
    const partition0 = new ReliableQueue<string>(connection().client, queue.partitionNames[0]!, { codec: utf8Codec });
    const [again] = await partition0.receive(30_000);
    expect(again).toMatchObject({ id, payload: 'kept', deliveryCount: 3 });
    await connection().raw(queue.streamKeys[1]!, ['DEL', queue.streamKeys[1]!]);
  });

  it("refuses the queue's bad waitMs before any I/O", async () => {
    const queue = queueOf(2);
    for (const waitMs of [-1, MAX_WAIT_MS + 1, Number.NaN, '10' as unknown as number]) {
      const error = await queue.receive(1000, { waitMs }).catch((e: unknown) => e);
      expect(isRespireError(error, 'INVALID_ARGUMENT'), String(waitMs)).toBe(true);
    }
    expect(Number(await connection().raw(queue.metadataKey, ['EXISTS', queue.metadataKey]))).toBe(0);
  });

  it('consume() handles every message of every partition exactly once, sent before and during it, never above concurrency', async () => {
    const queue = queueOf(4);
    const before = Array.from({ length: 40 }, (_, i) => `b${i}`);
    const during = Array.from({ length: 20 }, (_, i) => `d${i}`);
    await queue.sendMany(before.map((payload) => ({ payload })));
    const handled: PartitionedMessage<string>[] = [];
    let running = 0;
    let most = 0;
    const consumer = queue.consume(
      async (message) => {
        running++;
        most = Math.max(most, running);
        await sleep(message.payload.length % 3);
        handled.push(message);
        running--;
      },
      { concurrency: 6, logger: quiet },
    );
    try {
      await eventually(() => handled.length >= before.length, 15_000, 10);
      // The consumer now waits on every partition: each send wakes it.
      for (const payload of during) {
        await queue.send(payload);
        await sleep(5);
      }
      await eventually(() => handled.length >= before.length + during.length, 15_000, 10);
      await sleep(200);
    } finally {
      await consumer.stop();
    }
    expect(handled.map((m) => m.payload).sort()).toEqual([...before, ...during].sort());
    expect(handled.every((m) => m.deliveryCount === 1)).toBe(true);
    expect(new Set(handled.map((m) => m.partition))).toEqual(new Set([0, 1, 2, 3]));
    expect(most).toBeLessThanOrEqual(6);
    expect(await lengths(connection(), queue)).toEqual([0, 0, 0, 0]);
    expect(await leased(connection(), queue)).toEqual([0, 0, 0, 0]);
  });

  it('consume(): a throw NACKs with the retry backoff, nackAfter NACKs with its delay, on the message’s own partition', async () => {
    const queue = queueOf(3);
    const a = await queue.sendWithResult('throws', { deduplicationId: idFor(0, 3, 'a') });
    const b = await queue.sendWithResult('later', { deduplicationId: idFor(2, 3, 'b') });
    const deliveries: [string, number, number][] = [];
    const consumer = queue.consume(
      (message) => {
        deliveries.push([message.payload, message.partition, message.deliveryCount]);
        if (message.deliveryCount > 1) return undefined;
        if (message.payload === 'throws') throw new Error('first time');
        return nackAfter(100);
      },
      { retryBackoff: { initialDelayMs: 100 }, logger: quiet },
    );
    try {
      await eventually(() => deliveries.length >= 4, 10_000, 10);
      await sleep(200);
    } finally {
      await consumer.stop();
    }
    expect(deliveries.sort()).toEqual(
      [
        ['later', b.partition, 1],
        ['later', b.partition, 2],
        ['throws', a.partition, 1],
        ['throws', a.partition, 2],
      ].sort(),
    );
    expect(await lengths(connection(), queue)).toEqual([0, 0, 0]);
  });

  it('consume(): stop() while it waits on every partition resolves promptly and leases nothing', async () => {
    const queue = queueOf(3);
    const consumer = queue.consume(() => undefined, { logger: quiet });
    await sleep(400);
    const stoppedAt = performance.now();
    await consumer.stop();
    expect(performance.now() - stoppedAt).toBeLessThan(2000);
    expect(consumer.running).toBe(false);
    await queue.send('after stop');
    await sleep(200);
    expect(await leased(connection(), queue)).toEqual([0, 0, 0]);
  });
});

/**
 * Clients named per test, on the run's standalone server and on its Cluster: CLIENT LIST finds
 * the queue's connections (its blocking duplicates inherit the name) among other test files'.
 */
describe.each([
  { name: 'standalone', cluster: false },
  { name: 'cluster', cluster: true },
])('PartitionedQueue waiting receive connections on $name', ({ cluster }) => {
  let admin: Connection;
  beforeAll(async () => {
    admin = await (cluster ? targets[2]! : targets[0]!).connect();
  });
  afterAll(async () => {
    await admin?.close();
  });

  /** A client named `clientName`, of the kind this block runs on. */
  async function namedClient(clientName: string): Promise<{ client: RedisClientLike; close(): void }> {
    if (cluster) {
      const client = createCluster({ rootNodes: inject('clusterUrls').map((url) => ({ url })), defaults: { name: clientName } });
      client.on('error', () => {});
      await client.connect();
      return { client: client as unknown as RedisClientLike, close: () => client.destroy() };
    }
    const client = createClient({ url: inject('redisUrl'), name: clientName });
    client.on('error', () => {});
    await client.connect();
    return { client: client as unknown as RedisClientLike, close: () => client.destroy() };
  }

  /** The connections named `clientName` on every server holding one of `keys` (one per master on the Cluster): id and current command. */
  async function connectionsOf(clientName: string, keys: readonly string[]): Promise<{ id: string; cmd: string; key: string }[]> {
    const servers = cluster ? keys : keys.slice(0, 1);
    const found: { id: string; cmd: string; key: string }[] = [];
    const seen = new Set<string>();
    for (const key of servers) {
      const node = String(await admin.raw(key, ['CLUSTER', 'MYID']).catch(() => 'standalone'));
      if (seen.has(node)) continue;
      seen.add(node);
      for (const line of String(await admin.raw(key, ['CLIENT', 'LIST'])).split('\n')) {
        if (!new RegExp(`(?:^| )name=${clientName}(?: |$)`).test(line)) continue;
        found.push({ id: /(?:^| )id=(\d+)/.exec(line)![1]!, cmd: /(?:^| )cmd=(\S*)/.exec(line)![1]!, key });
      }
    }
    return found;
  }

  it('blocks on one connection on a standalone client and one per partition on a Cluster client, and closes them all', async () => {
    const clientName = `pw-${uniqueName()}`.replace(/[^A-Za-z0-9-]/g, '');
    const named = await namedClient(clientName);
    try {
      const queue = new PartitionedQueue<string>(named.client, uniqueName(), { codec: utf8Codec, partitions: 3 });
      const waiting = queue.receive(30_000, { waitMs: 3000 });
      const expected = cluster ? 3 : 1;
      await eventually(async () => (await connectionsOf(clientName, queue.streamKeys)).filter((c) => c.cmd === 'xread').length === expected, 5000, 20);
      await sleep(200);
      expect((await connectionsOf(clientName, queue.streamKeys)).filter((c) => c.cmd === 'xread').length).toBe(expected);
      expect(await waiting).toEqual([]);
      // Only the caller's own connections remain (none on a standalone server besides its one; one per master on a Cluster).
      await eventually(async () => (await connectionsOf(clientName, queue.streamKeys)).every((c) => c.cmd !== 'xread'), 5000, 20);
      const left = await connectionsOf(clientName, queue.streamKeys);
      expect(left.length).toBeLessThanOrEqual(cluster ? 3 : 1);
    } finally {
      named.close();
    }
  });

  it('a blocking connection killed mid-wait is replaced: a send to its partition still wakes the wait, and nothing is left open', async () => {
    const clientName = `pr-${uniqueName()}`.replace(/[^A-Za-z0-9-]/g, '');
    const named = await namedClient(clientName);
    try {
      const queue = new PartitionedQueue<string>(named.client, uniqueName(), { codec: utf8Codec, partitions: 3 });
      const expected = cluster ? 3 : 1;
      const blocked = async () => (await connectionsOf(clientName, queue.streamKeys)).filter((c) => c.cmd === 'xread');
      const waiting = queue.receive(30_000, { waitMs: 10_000 });
      await eventually(async () => (await blocked()).length === expected, 5000, 20);
      for (const victim of await blocked()) await admin.raw(victim.key, ['CLIENT', 'KILL', 'ID', victim.id]);
      // The wait blocks again on new connections, then a send to the last partition wakes it.
      await eventually(async () => (await blocked()).length === expected, 5000, 20);
      const sender = new PartitionedQueue<string>(admin.client, queue.name, { codec: utf8Codec, partitions: 3 });
      const sentAt = performance.now();
      const { id } = await sender.sendWithResult('after kill', { deduplicationId: idFor(2, 3, 'kill') });
      const batch = await waiting;
      expect(performance.now() - sentAt).toBeLessThan(2500);
      expect(batch.map((m) => [m.id, m.partition])).toEqual([[id, 2]]);
      await eventually(async () => (await blocked()).length === 0, 5000, 20);
    } finally {
      named.close();
    }
  });

  it('consume() handles every message at least once when all its connections are killed mid-run', async () => {
    const clientName = `pk-${uniqueName()}`.replace(/[^A-Za-z0-9-]/g, '');
    const named = await namedClient(clientName);
    const producer = new PartitionedQueue<string>(admin.client, uniqueName(), { codec: utf8Codec, partitions: 3 });
    const queue = new PartitionedQueue<string>(named.client, producer.name, { codec: utf8Codec, partitions: 3 });
    const payloads = Array.from({ length: 60 }, (_, i) => `m${i}`);
    const handled = new Map<string, number>();
    let consumer: QueueConsumer | undefined;
    try {
      consumer = queue.consume(
        async (message) => {
          await sleep(20);
          handled.set(message.payload, (handled.get(message.payload) ?? 0) + 1);
        },
        { concurrency: 4, visibilityTimeoutMs: 1000, logger: quiet },
      );
      await producer.sendMany(payloads.slice(0, 30).map((payload) => ({ payload })));
      await eventually(() => handled.size >= 10, 10_000, 5);
      const victims = await connectionsOf(clientName, producer.streamKeys);
      expect(victims.length).toBeGreaterThan(0);
      for (const victim of victims) await admin.raw(victim.key, ['CLIENT', 'KILL', 'ID', victim.id]);
      await producer.sendMany(payloads.slice(30).map((payload) => ({ payload })));
      await eventually(() => handled.size === payloads.length, 20_000, 20);
    } finally {
      await consumer?.stop();
      named.close();
    }
    expect([...handled.keys()].sort()).toEqual([...payloads].sort());
    // An ACK lost with its connection leaves its message to come back after its lease: only handled ones remain.
    for (;;) {
      const rest = await producer.receive(30_000, { waitMs: 1500, max: 100 });
      if (rest.length === 0) break;
      for (const message of rest) expect(handled.has(message.payload)).toBe(true);
      await producer.ackMany(rest);
    }
    expect(await lengths(admin, producer)).toEqual([0, 0, 0]);
  });

  /** After a grow of `name` to `count`: a sender on the new count, the number of a partition only the new count has, and a deduplication ID routed to it. */
  async function senderToNewPartition(
    name: string,
    count: number,
    firstCount: number,
  ): Promise<{ sender: PartitionedQueue<string>; partition: number; id: string }> {
    const sender = new PartitionedQueue<string>(admin.client, name, { codec: utf8Codec, partitions: count });
    await sender.receive(1000, { max: 1 });
    // The first count's partitions are numbers 0..firstCount-1 (README "Partition numbers never change").
    const index = sender.currentPartitions.findIndex((partition) => partition >= firstCount);
    expect(index).toBeGreaterThanOrEqual(0);
    return { sender, partition: sender.currentPartitions[index]!, id: idFor(index, count, `grown-${name}`) };
  }

  it('a waiting receive started before a grow receives a message sent after it to a partition only the new count has, blocking on the new partitions', async () => {
    const clientName = `pg-${uniqueName()}`.replace(/[^A-Za-z0-9-]/g, '');
    const named = await namedClient(clientName);
    try {
      const queue = new PartitionedQueue<string>(named.client, uniqueName(), { codec: utf8Codec, partitions: 3 });
      expect(await queue.receive(1000)).toEqual([]);
      const blocked = async () => (await connectionsOf(clientName, queue.streamKeys)).filter((c) => c.cmd === 'xread');
      const waiting = queue.receive(30_000, { waitMs: 15_000 });
      await eventually(async () => (await blocked()).length === (cluster ? 3 : 1), 5000, 20);
      expect(await PartitionedQueue.grow(admin.client, queue.name, 6)).toMatchObject({ previous: 3, partitions: 6, grown: true });
      const { sender, partition, id } = await senderToNewPartition(queue.name, 6, 3);
      const sentAt = performance.now();
      expect(await sender.sendWithResult('after the grow', { deduplicationId: id })).toMatchObject({ partition, duplicate: false });
      const batch = await waiting;
      // One block lasts at most FOLLOW_GROW_MS (5 s), then the history's refresh (1 s).
      expect(performance.now() - sentAt).toBeLessThan(7500);
      expect(batch.map((m) => [m.partition, m.payload])).toEqual([[partition, 'after the grow']]);
      expect(queue.partitionNames[partition]).toBe(sender.partitionNames[partition]);
      expect(await queue.ack(batch[0]!)).toBe(true);
      // The next wait blocks on the new count's partitions from the start: one connection each on a Cluster.
      const again = queue.receive(30_000, { waitMs: 10_000 });
      await eventually(async () => (cluster ? (await blocked()).length >= 6 : (await blocked()).length === 1), 5000, 20);
      const second = await sender.sendWithResult('second', { deduplicationId: `${id}-x` });
      const startedAt = performance.now();
      expect((await again).map((m) => [m.partition, m.id])).toEqual([[second.partition, second.id]]);
      expect(performance.now() - startedAt).toBeLessThan(2500);
      await eventually(async () => (await blocked()).length === 0, 5000, 20);
    } finally {
      named.close();
    }
  });

  it('consume() started before a grow handles a message sent after it to a partition only the new count has', async () => {
    const clientName = `pc-${uniqueName()}`.replace(/[^A-Za-z0-9-]/g, '');
    const named = await namedClient(clientName);
    const queue = new PartitionedQueue<string>(named.client, uniqueName(), { codec: utf8Codec, partitions: 3 });
    const handled: [number, string][] = [];
    let consumer: QueueConsumer | undefined;
    try {
      expect(await queue.receive(1000)).toEqual([]);
      consumer = queue.consume(
        async (message) => {
          handled.push([message.partition, message.payload]);
        },
        { concurrency: 2, logger: quiet },
      );
      await eventually(async () => (await connectionsOf(clientName, queue.streamKeys)).some((c) => c.cmd === 'xread'), 5000, 20);
      expect(await PartitionedQueue.grow(admin.client, queue.name, 6)).toMatchObject({ grown: true });
      const { sender, partition, id } = await senderToNewPartition(queue.name, 6, 3);
      await sender.send('after the grow', { deduplicationId: id });
      const sentAt = performance.now();
      await eventually(() => handled.length === 1, 10_000, 20);
      expect(performance.now() - sentAt).toBeLessThan(7500);
      expect(handled).toEqual([[partition, 'after the grow']]);
    } finally {
      await consumer?.stop();
      named.close();
    }
    // Its ACK went to the new partition: nothing is left leased there.
    const { deadlines } = queueKeys(queue.partitionNames[handled[0]![0]]!, '');
    await eventually(async () => Number(await admin.raw(deadlines, ['ZCARD', deadlines])) === 0, 5000, 20);
  });
});

/** A private server: INFO commandstats shows only this block's commands. */
describe.each([{ RESP: 2 as const }, { RESP: 3 as const }])('PartitionedQueue waiting receive cost on a private server, RESP$RESP', ({ RESP }) => {
  let server: RedisServerHandle;
  let admin: ReturnType<typeof createClient>;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = createClient({ url: server.url });
    client = createClient({ url: server.url, RESP });
    for (const c of [admin, client]) {
      c.on('error', () => {});
      await c.connect();
    }
  });
  afterAll(async () => {
    admin?.destroy();
    client?.destroy();
    await server?.close();
  });

  const calls = async () =>
    new Map([...String(await admin.sendCommand(['INFO', 'commandstats'])).matchAll(/cmdstat_(\S+?):calls=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));

  it('the receive after a wake asks the woken partition first: one round, whatever the partition count and max', async () => {
    const partitions = 16;
    const queue = new PartitionedQueue<string>(client as unknown as RedisClientLike, uniqueName(), { codec: utf8Codec, partitions });
    // The scripts are loaded (a send with a deduplication ID's too) and every partition's group exists.
    await queue.send('warm', { deduplicationId: 'warm' });
    expect(await queue.ackMany(await queue.receive(1000, { max: partitions }))).toEqual([true]);
    await queue.receive(1000, { waitMs: 300, max: partitions });
    for (const partition of [5, 11, 0]) {
      const before = await calls();
      const waiting = queue.receive(30_000, { waitMs: 10_000, max: 1 });
      await sleep(200);
      const { id } = await queue.sendWithResult('x', { deduplicationId: idFor(partition, partitions, `c${partition}`) });
      const batch = await waiting;
      const after = await calls();
      const sent = (command: string) => (after.get(command) ?? 0) - (before.get(command) ?? 0);
      expect(batch.map((m) => [m.id, m.partition])).toEqual([[id, partition]]);
      // The empty receive (2 partitions asked), one wait point per partition, one XREAD, and one
      // receive that leases (1 partition asked); the send is one XADD or script.
      expect(sent('evalsha') + sent('eval'), `partition ${partition}`).toBeLessThanOrEqual(2 + partitions + 1 + 1);
      expect(sent('xread')).toBe(1);
      expect(await queue.ack(batch[0]!)).toBe(true);
    }
  });
});
