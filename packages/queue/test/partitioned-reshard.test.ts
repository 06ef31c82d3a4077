// PartitionedQueue (README "Scaling past one master"): one partition's slot migrates to another
// master (MIGRATE in small batches, MOVED and ASK replies mid-way) while producers and consumers run.
import { eventually, sleep, startRedisCluster, uniqueName, type RedisClusterHandle } from '@respire/harness';
import { keySlot } from '@respire/core-scripts/internal';
import { PartitionedQueue, RespirePartialSendError, isRespireError, utf8Codec, type PartitionedMessage } from '@respire/queue';
import { createClient, createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Client = ReturnType<typeof createClient>;

/** Keys moved per MIGRATE, and the pause between two: the clients meet the slot half moved many times. */
const MIGRATE_BATCH = 4;
const MIGRATE_PAUSE_MS = 15;
const MESSAGES = 1200;
const PREFILL = 300;
const MAX = 7;
const VISIBILITY_MS = 2000;

/** How many of each reply the server sent, from INFO errorstats (`errorstat_<CODE>:count=<n>`). */
async function errorCounts(node: Client): Promise<Map<string, number>> {
  const info = String(await node.sendCommand(['INFO', 'errorstats']));
  return new Map([...info.matchAll(/^errorstat_(\w+):count=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
}

/**
 * A private 3-master Cluster (the run's shared one is left alone): one partition's slot moves from
 * its master to the next one as `redis-cli --cluster reshard` moves it (packages/admin's
 * slot-move test does the same with one MIGRATE per 100 keys), here a few keys per MIGRATE so that
 * producers and consumers meet the slot half moved: ASK for keys already gone, TRYAGAIN for a
 * script whose keys are on both sides (a transient reply: `retryable`, nothing ran), MOVED once
 * the slot is handed over.
 */
describe('a partition resharded under load', { timeout: 120_000 }, () => {
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

  /** Moves `slot` from master `from` to master `to`, a few keys per MIGRATE; returns how many MIGRATEs it took. */
  async function move(slot: number, from: number, to: number): Promise<number> {
    const id = async (i: number) => String(await nodes[i]!.sendCommand(['CLUSTER', 'MYID']));
    const [fromId, toId] = [await id(from), await id(to)];
    await nodes[to]!.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', fromId]);
    await nodes[from]!.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', toId]);
    let batches = 0;
    for (;;) {
      const keys = (await nodes[from]!.sendCommand(['CLUSTER', 'GETKEYSINSLOT', String(slot), String(MIGRATE_BATCH)])) as string[];
      if (keys.length === 0) break;
      await nodes[from]!.sendCommand(['MIGRATE', '127.0.0.1', String(cluster.nodes[to]!.port), '', '0', '5000', 'KEYS', ...keys]);
      batches++;
      await sleep(MIGRATE_PAUSE_MS);
    }
    // The new owner first (it bumps its config epoch), then the old one, then the rest (see the admin's slot-move test).
    const order = [to, from, ...nodes.keys()].filter((i, at, all) => all.indexOf(i) === at);
    for (const i of order) await nodes[i]!.sendCommand(['CLUSTER', 'SETSLOT', String(slot), 'NODE', toId]);
    await eventually(async () => (await owner(slot)) === to, 5000, 20);
    return batches;
  }

  it('loses nothing: every message is acknowledged exactly once, no receive returns more than max, the slot ends on its new master', async () => {
    const client = createCluster({ rootNodes: cluster.rootNodes });
    client.on('error', () => {});
    await client.connect();
    try {
      const queue = new PartitionedQueue<string>(client, uniqueName('reshard'), {
        codec: utf8Codec,
        partitions: 3,
        // Receives that fail while the slot moves leave the other partitions' leases to expire:
        // redeliveries, not poison. The test is about loss, so the limit stays out of the way.
        deliveryLimit: 1000,
      });
      const moving = 1;
      const slot = keySlot(queue.streamKeys[moving]!);
      const from = await owner(slot);
      const to = (from + 1) % nodes.length;
      const payload = (i: number) => `m-${i}`;
      // Deduplication IDs make every send safe to repeat (a sendMany that failed on one partition
      // (RespirePartialSendError) appended on others), and put one key per message in each slot.
      await queue.sendMany(Array.from({ length: PREFILL }, (_, i) => ({ payload: payload(i), deduplicationId: payload(i) })));
      const keysBefore = Number(await nodes[from]!.sendCommand(['CLUSTER', 'COUNTKEYSINSLOT', String(slot)]));
      expect(keysBefore).toBeGreaterThan(PREFILL / 3 / 2);
      // The new master forgets its scripts: a call sent there by ASK or MOVED meets NOSCRIPT first.
      await nodes[to]!.sendCommand(['SCRIPT', 'FLUSH']);
      const errorsBefore = await errorCounts(nodes[from]!);
      const targetErrorsBefore = await errorCounts(nodes[to]!);

      const retried = new Map<string, number>(); // the codes of the retryable errors the calls met
      const unexpected: unknown[] = [];
      /** Repeats `call` while it fails with a retryable error (nothing ran); records any other failure and gives up. */
      const retrying = async <R>(call: () => Promise<R>): Promise<R | undefined> => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await call();
          } catch (error) {
            // A sendMany that one partition refused while others appended: repeated whole, its
            // deduplication IDs make the items already sent duplicates.
            const retryable = isRespireError(error) && (error.retryable || error instanceof RespirePartialSendError);
            if (!retryable || attempt > 2000) {
              unexpected.push(error);
              return undefined;
            }
            const code = isRespireError(error) ? ((/^([A-Z]+)/.exec(error.message.replace(/^[^:]*: /, ''))?.[1] ?? error.code) as string) : 'other';
            retried.set(code, (retried.get(code) ?? 0) + 1);
            await sleep(5);
          }
        }
      };

      let next = PREFILL;
      let duplicates = 0;
      let migrated = false;
      /** Sends the next `size` messages: one `send`, or one `sendMany` that spans partitions (all repeated whole on a retryable error). */
      const produce = async (size: number) => {
        while (next < MESSAGES) {
          const first = next;
          next = Math.min(MESSAGES, next + size);
          const items = Array.from({ length: next - first }, (_, k) => ({ payload: payload(first + k), deduplicationId: payload(first + k) }));
          if (size === 1) await retrying(() => queue.send(items[0]!.payload, { deduplicationId: items[0]!.deduplicationId }));
          else {
            const results = await retrying(() => queue.sendMany(items));
            // A duplicate here is an item a failed attempt had already appended on another partition.
            duplicates += results?.filter((r) => r.duplicate).length ?? 0;
          }
          // Spread the sends over the migration rather than racing ahead of it.
          if (!migrated) await sleep(2 * size);
        }
      };

      const acks = new Map<string, number>(); // successful acks per payload
      const deliveries = new Map<string, number>();
      const oversized: number[] = [];
      let ackedFalse = 0;
      let receiveFailures = 0;
      let redelivered = 0; // deliveries after a lease that expired (a receive that threw, or an ack too late)
      const settle = async (batch: PartitionedMessage<string>[]) => {
        // One ackMany per partition: a failure (TRYAGAIN on the moving partition) then proves that
        // none of that call's acks ran, and repeating it cannot double-count.
        const byPartition = new Map<number, PartitionedMessage<string>[]>();
        for (const m of batch) byPartition.set(m.partition, [...(byPartition.get(m.partition) ?? []), m]);
        await Promise.all(
          [...byPartition.values()].map(async (group) => {
            const results = await retrying(() => queue.ackMany(group));
            if (results === undefined) return;
            for (const [index, ok] of results.entries()) {
              if (ok) acks.set(group[index]!.payload, (acks.get(group[index]!.payload) ?? 0) + 1);
              else ackedFalse++; // the lease expired meanwhile: redelivered and acked later
            }
          }),
        );
      };
      const consume = async () => {
        const deadline = performance.now() + 90_000;
        while (acks.size < MESSAGES && performance.now() < deadline) {
          let batch: PartitionedMessage<string>[];
          try {
            batch = await queue.receive(VISIBILITY_MS, { max: MAX });
          } catch (error) {
            if (!(isRespireError(error) && error.retryable)) unexpected.push(error);
            receiveFailures++;
            await sleep(5);
            continue;
          }
          if (batch.length > MAX) oversized.push(batch.length);
          for (const m of batch) {
            deliveries.set(m.payload, (deliveries.get(m.payload) ?? 0) + 1);
            if (m.deliveryCount > 1) redelivered++;
          }
          if (batch.length === 0) await sleep(5);
          else await settle(batch);
        }
      };

      const producers = [produce(1), produce(10)];
      const consumers = [consume(), consume()];
      await sleep(150); // both sides running before the slot starts moving
      const batches = await move(slot, from, to);
      migrated = true;
      await Promise.all(producers);
      await Promise.all(consumers);
      const errorsAfter = await errorCounts(nodes[from]!);
      const targetErrorsAfter = await errorCounts(nodes[to]!);

      // The slot moved, over many MIGRATEs, and the moving partition's clients met it half moved.
      expect(await owner(slot)).toBe(to);
      expect(batches).toBeGreaterThanOrEqual(Math.floor(keysBefore / MIGRATE_BATCH));
      expect(Number(await nodes[from]!.sendCommand(['CLUSTER', 'COUNTKEYSINSLOT', String(slot)]))).toBe(0);
      const sent = (code: string) => (errorsAfter.get(code) ?? 0) - (errorsBefore.get(code) ?? 0);
      expect(sent('ASK') + sent('TRYAGAIN'), 'redirections during the migration').toBeGreaterThan(0);
      expect(sent('MOVED'), 'redirections after the handover').toBeGreaterThan(0);
      const noScript = (targetErrorsAfter.get('NOSCRIPT') ?? 0) - (targetErrorsBefore.get('NOSCRIPT') ?? 0);
      expect(noScript, 'NOSCRIPT on the new master, answered by EVAL').toBeGreaterThan(0);

      expect(unexpected).toEqual([]);
      expect(oversized).toEqual([]);
      // Nothing lost and nothing acknowledged twice: each of the MESSAGES payloads exactly once.
      expect(acks.size).toBe(MESSAGES);
      const expected = Array.from({ length: MESSAGES }, (_, i) => payload(i));
      expect(expected.filter((p) => acks.get(p) !== 1)).toEqual([]);
      for (const p of expected) expect(deliveries.get(p) ?? 0).toBeGreaterThanOrEqual(1);
      // Nothing left behind in any partition, and nothing dead-lettered.
      for (const [index, stream] of queue.streamKeys.entries()) {
        expect(Number(await client.sendCommand(stream, false, ['XLEN', stream]))).toBe(0);
        const deadlines = stream.replace(/:stream$/, ':deadlines');
        expect(Number(await client.sendCommand(deadlines, false, ['ZCARD', deadlines]))).toBe(0);
        const dead = queue.deadLetterStreamKeys[index]!;
        expect(Number(await client.sendCommand(dead, false, ['XLEN', dead]))).toBe(0);
      }
      // The moving partition's keys live on the new master only.
      expect(Number(await nodes[to]!.sendCommand(['CLUSTER', 'COUNTKEYSINSLOT', String(slot)]))).toBeGreaterThanOrEqual(keysBefore);
      console.info(
        `resharded slot ${slot} (${keysBefore} keys, ${batches} MIGRATEs): server replies ASK ${sent('ASK')}, TRYAGAIN ${sent('TRYAGAIN')}, ` +
          `MOVED ${sent('MOVED')}, NOSCRIPT on the new master ${noScript}; retried calls ${JSON.stringify(Object.fromEntries(retried))}; items of a repeated sendMany already sent ${duplicates}; failed receives ${receiveFailures}; ` +
          `acks refused (lease expired) ${ackedFalse}; deliveries ${[...deliveries.values()].reduce((a, b) => a + b, 0)} for ${MESSAGES} messages, ` +
          `${redelivered} of them redeliveries`,
      );
    } finally {
      client.destroy();
    }
  });
});
