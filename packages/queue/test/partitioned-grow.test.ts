// PartitionedQueue.grow (README "Scaling past one master": "Growing the partition count") on
// every target: the recorded history, instances that follow it or refuse it, old partitions kept
// drained, receipts and dead letters of old partitions, deduplication across a grow, growth under
// load, grouped partitioned queues.
import { expect, it } from 'vitest';
import {
  PartitionedQueue,
  ReliableQueue,
  RespirePartitionCountError,
  RespirePartitionGrowthError,
  isRespireError,
  utf8Codec,
  type PartitionedMessage,
  type PartitionedQueueOptions,
} from '@respire/queue';
import { partitionNames, partitionOfId } from '../src/partitions/layout.js';
import { EARLIER_MARGIN_MS, earlierPartitions } from '../src/partitions/earlier-copies.js';
import { parseHistory, partitionSet } from '../src/partitions/history.js';
import { REFRESH_MS } from '../src/partitions/tracker.js';
import { DRAIN_GRACE_MS, DrainedPartitions, RECHECK_MS } from '../src/partitions/drained.js';
import { describeOnTargets, targets, uniqueName, type Connection } from './support.js';

async function length(conn: Connection, stream: string): Promise<number> {
  return Number(await conn.raw(stream, ['XLEN', stream]));
}

async function metadata(conn: Connection, key: string): Promise<string | null> {
  const reply = await conn.raw(key, ['GET', key]);
  return reply === null ? null : String(reply);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Receives and acknowledges until `done()` or `rounds` empty receives in a row; returns every payload delivered. */
async function drain(queue: PartitionedQueue<string>, rounds = 5): Promise<PartitionedMessage<string>[]> {
  const got: PartitionedMessage<string>[] = [];
  for (let empty = 0; empty < rounds;) {
    const batch = await queue.receive(30_000, { max: 50 });
    if (batch.length === 0) empty++;
    else empty = 0;
    got.push(...batch);
    if (batch.length > 0) expect(await queue.ackMany(batch)).toEqual(batch.map(() => true));
  }
  return got;
}

describeOnTargets('PartitionedQueue.grow', targets, (target, connection) => {
  const queueOf = (partitions: number, name: string, options: Partial<PartitionedQueueOptions<string>> = {}): PartitionedQueue<string> =>
    new PartitionedQueue<string>(connection().client, name, { codec: utf8Codec, partitions, ...options });

  it('records a history that only grows: idempotent, first use records the count, shrinking and a grouped queue refused with nothing changed', async () => {
    const client = connection().client;
    const name = uniqueName();
    const key = queueOf(3, name).metadataKey;
    expect(await PartitionedQueue.grow(client, name, 3)).toEqual({ previous: 0, partitions: 3, grown: true });
    expect(await metadata(connection(), key)).toBe('3');
    expect(await PartitionedQueue.grow(client, name, 3)).toEqual({ previous: 3, partitions: 3, grown: false });
    expect(await PartitionedQueue.grow(client, name, 6)).toEqual({ previous: 3, partitions: 6, grown: true });
    const recorded = (await metadata(connection(), key))!;
    expect(recorded).toMatch(/^3,6@\d+$/);
    const stamp = Number(recorded.split('@')[1]);
    expect(Math.abs(stamp - Date.now())).toBeLessThan(10_000);
    expect(await PartitionedQueue.grow(client, name, 6)).toEqual({ previous: 6, partitions: 6, grown: false });
    for (const smaller of [5, 3, 1]) {
      await expect(PartitionedQueue.grow(client, name, smaller)).rejects.toSatisfy(
        (e: unknown) => e instanceof RespirePartitionGrowthError && isRespireError(e, 'INVALID_STATE') && e.recorded === recorded,
      );
    }
    expect(await metadata(connection(), key)).toBe(recorded);

    const grouped = queueOf(2, uniqueName(), { groups: {} });
    await grouped.send('g', { groupId: 'a' });
    expect(await metadata(connection(), grouped.metadataKey)).toBe('g2');
    await expect(PartitionedQueue.grow(client, grouped.name, 4)).rejects.toSatisfy(
      (e: unknown) => e instanceof RespirePartitionGrowthError && /grouped/.test(e.message),
    );
    expect(await metadata(connection(), grouped.metadataKey)).toBe('g2');
    // An ungrouped instance of a grouped queue, and a grouped one of an ungrouped queue, are refused.
    await expect(queueOf(2, grouped.name).send('x')).rejects.toSatisfy((e: unknown) => e instanceof RespirePartitionCountError && /is grouped/.test(e.message));
    await expect(queueOf(3, name, { groups: {} }).send('x', { groupId: 'a' })).rejects.toSatisfy(
      (e: unknown) => e instanceof RespirePartitionCountError && /not grouped/.test(e.message),
    );
  });

  it('refuses bad input before any I/O, and a metadata key of another type or an unreadable value', async () => {
    const client = connection().client;
    const name = uniqueName();
    const key = queueOf(2, name).metadataKey;
    const refused = (argument: string) => (e: unknown) => isRespireError(e, 'INVALID_ARGUMENT') && (e as { argument?: string }).argument === argument;
    for (const count of [0, 257, 2.5, '4', undefined])
      await expect(PartitionedQueue.grow(client, name, count as number)).rejects.toSatisfy(refused('partitions'));
    for (const bad of ['', ' ', 'a{b}']) await expect(PartitionedQueue.grow(client, bad, 4)).rejects.toSatisfy(refused('name'));
    await expect(PartitionedQueue.grow(client, name, 4, { keyPrefix: '{x}' })).rejects.toSatisfy(refused('keyPrefix'));
    await expect(PartitionedQueue.grow(client, name, 4, { commandTimeoutMs: -1 })).rejects.toSatisfy(refused('commandTimeoutMs'));
    await expect(PartitionedQueue.grow(client, name, 4, { partitions: 4 } as never)).rejects.toSatisfy((e: unknown) => isRespireError(e, 'INVALID_ARGUMENT'));
    await expect(PartitionedQueue.grow({} as never, name, 4)).rejects.toSatisfy((e: unknown) => isRespireError(e, 'INVALID_ARGUMENT'));
    expect(await metadata(connection(), key)).toBeNull();

    await connection().raw(key, ['SET', key, 'six']);
    await expect(PartitionedQueue.grow(client, name, 6)).rejects.toSatisfy((e: unknown) => e instanceof RespirePartitionGrowthError);
    await expect(queueOf(2, name).send('x')).rejects.toSatisfy((e: unknown) => e instanceof RespirePartitionCountError);
    await connection().raw(key, ['DEL', key]);
    await connection().raw(key, ['XADD', key, '*', 'count', '3']);
    await expect(PartitionedQueue.grow(client, name, 6)).rejects.toSatisfy((e: unknown) => isRespireError(e, 'WRONG_TYPE'));
  });

  it('an instance follows a grow within its refresh interval; one with a count the queue never had is refused and told what to do', async () => {
    const name = uniqueName();
    const old = queueOf(3, name);
    await old.send('before');
    expect(old.partitions).toBe(3);
    await PartitionedQueue.grow(connection().client, name, 6);
    const newNames = partitionNames(name, 6);
    // A fresh instance made with the old count follows the history at its first call.
    const fresh = queueOf(3, name);
    await fresh.send('fresh');
    expect(fresh.partitions).toBe(6);
    expect(fresh.currentPartitions.map((n) => fresh.partitionNames[n])).toEqual(newNames);
    // The old instance finds out within REFRESH_MS: then its sends go over the new layout.
    await sleep(REFRESH_MS + 50);
    const after = await old.sendMany(Array.from({ length: 12 }, (_, i) => ({ payload: `after ${i}` })));
    expect(old.partitions).toBe(6);
    expect(new Set(after.map((r) => old.partitionNames[r.partition]))).toEqual(new Set(newNames));
    // Old partitions not in the new layout keep their numbers, after the new layout's new ones.
    expect(old.partitionNames.slice(0, 3)).toEqual(partitionNames(name, 3));
    expect(new Set(old.partitionNames)).toEqual(new Set([...partitionNames(name, 3), ...newNames]));

    for (const [count, advice] of [
      [4, /a count the queue has had/],
      [12, /PartitionedQueue\.grow\(client, name, 12\)/],
    ] as const) {
      const stranger = queueOf(count, name);
      for (const call of [() => stranger.send('no'), () => stranger.receive(1000)]) {
        await expect(call()).rejects.toSatisfy(
          (e: unknown) => e instanceof RespirePartitionCountError && e.expected === count && advice.test(e.message) && isRespireError(e, 'INVALID_STATE'),
        );
      }
    }
    const got = await drain(queueOf(6, name));
    expect(got.map((m) => m.payload).sort()).toEqual(['before', 'fresh', ...after.map((_, i) => `after ${i}`)].sort());
  });

  it('a refresh that fails keeps the view it had and is tried again; a deleted metadata key is restored with the known history', async () => {
    const name = uniqueName();
    const queue = queueOf(3, name);
    await queue.send('one');
    await PartitionedQueue.grow(connection().client, name, 4);
    await sleep(REFRESH_MS + 50);
    await queue.send('one b');
    expect(queue.partitions).toBe(4);
    const recorded = await metadata(connection(), queue.metadataKey);
    expect(recorded).toMatch(/^3,4@\d+$/);
    await connection().raw(queue.metadataKey, ['DEL', queue.metadataKey]);
    await connection().raw(queue.metadataKey, ['XADD', queue.metadataKey, '*', 'f', 'v']);
    await sleep(REFRESH_MS + 50);
    // The refresh meets WRONGTYPE: the send goes on with the view of 4 partitions.
    const sent = await queue.sendMany(Array.from({ length: 4 }, (_, i) => ({ payload: `two ${i}` })));
    expect(new Set(sent.map((r) => queue.partitionNames[r.partition]))).toEqual(new Set(partitionNames(name, 4)));
    await connection().raw(queue.metadataKey, ['DEL', queue.metadataKey]);
    await sleep(REFRESH_MS + 50);
    await queue.send('three');
    expect(await metadata(connection(), queue.metadataKey)).toBe(recorded);
    expect((await drain(queueOf(4, name))).map((m) => m.payload).sort()).toEqual(['one', 'one b', 'three', 'two 0', 'two 1', 'two 2', 'two 3']);
  });

  it('stops asking an old partition once it is seen empty after the grace, not while it holds a message', async () => {
    const name = uniqueName();
    const calls: string[] = [];
    const instrumentation = {
      startOperation: (start: { operation: string; queue: string }) => {
        if (start.operation === 'receive') calls.push(start.queue);
        return undefined;
      },
    };
    await queueOf(3, name).send('before');
    await PartitionedQueue.grow(connection().client, name, 6);
    const newNames = partitionNames(name, 6);
    const oldOnly = partitionNames(name, 3).filter((n) => !newNames.includes(n));
    expect(oldOnly.length).toBeGreaterThan(0);
    const queue = queueOf(6, name, { instrumentation });
    const [before] = await queue.receive(30_000, { max: 100 }); // learns the history
    expect(before!.payload).toBe('before');
    expect(await queue.ack(before!)).toBe(true);
    // A message in an old-only partition, as a send by an instance paused since before the grow lands.
    await new ReliableQueue<string>(connection().client, oldOnly[0]!, { codec: utf8Codec }).send('left behind');
    await sleep(DRAIN_GRACE_MS + 50);
    // Past the grace, empty old partitions are read (XLEN) in the background; a leased one is not empty.
    const got = await drain(queue);
    expect(got.map((m) => m.payload)).toEqual(['left behind']);
    let asked = new Set<string>();
    for (let attempt = 0; attempt < 40; attempt++) {
      calls.length = 0;
      expect(await queue.receive(30_000, { max: 100 })).toEqual([]);
      asked = new Set(calls);
      if (asked.size === newNames.length) break;
      await sleep(50);
    }
    expect(asked).toEqual(new Set(newNames));
  });

  it('receipts of old partitions still ack, nack and extend after a grow, on the receiving instance and on a fresh one; old dead letters stay listed', async () => {
    const name = uniqueName();
    const old = queueOf(2, name, { deliveryLimit: 1 });
    await old.sendMany(Array.from({ length: 6 }, (_, i) => ({ payload: `m${i}` })));
    const leased = await old.receive(30_000, { max: 6 });
    expect(leased).toHaveLength(6);
    await PartitionedQueue.grow(connection().client, name, 5);
    const oldNames = partitionNames(name, 2);
    // A fresh instance made with the new count: its first view holds only the new layout.
    const fresh = queueOf(5, name, { deliveryLimit: 1 });
    const [a, b, c, d, e, f] = leased as [PartitionedMessage<string>, ...PartitionedMessage<string>[]];
    expect(await fresh.extend(a, 60_000)).toBe(true);
    expect(await fresh.ackMany([a, b!])).toEqual([true, true]);
    expect(await old.ack(c!)).toBe(true);
    expect(await old.nack(d!)).toBe(true); // the delivery limit is 1: it is dead-lettered at the next receive
    expect(await fresh.nackMany([e!, f!])).toEqual([true, true]);
    expect(fresh.partitionNames.slice(0, 2)).toEqual(oldNames);
    const receiver = queueOf(5, name, { deliveryLimit: 1 });
    expect(await drain(receiver)).toEqual([]);
    const dead = await Promise.all(receiver.deadLetterStreamKeys.map((key) => length(connection(), key)));
    expect(dead.reduce((x, y) => x + y, 0)).toBe(3);
    for (const [number, count] of dead.entries()) if (count > 0) expect(oldNames).toContain(receiver.partitionNames[number]);
    // A receipt naming a partition the queue never had is still refused (after one history read).
    await expect(fresh.ack({ id: a.id, receipt: a.receipt.replace(/^p\d+~/, 'p4000~') })).rejects.toSatisfy((x: unknown) =>
      isRespireError(x, 'INVALID_ARGUMENT'),
    );
  });

  it("a repeat of a deduplication ID after a grow finds its first copy in the old layout's partition, within its window", async () => {
    const name = uniqueName();
    const oldNames = partitionNames(name, 3);
    const newNames = partitionNames(name, 6);
    // IDs whose partition name changes with the grow (else the repeat meets its key anyway).
    const moved: string[] = [];
    for (let n = 0; moved.length < 3; n++) if (oldNames[partitionOfId(`order-${n}`, 3)] !== newNames[partitionOfId(`order-${n}`, 6)]) moved.push(`order-${n}`);
    const old = queueOf(3, name);
    const first = await old.sendMany(moved.map((id) => ({ payload: `first ${id}`, deduplicationId: id })));
    await PartitionedQueue.grow(connection().client, name, 6);
    const fresh = queueOf(6, name);
    const repeat = await fresh.sendWithResult('again', { deduplicationId: moved[0]! });
    expect(repeat).toEqual({ id: first[0]!.id, partition: first[0]!.partition, duplicate: true });
    const batch = await fresh.sendMany([
      { payload: 'again', deduplicationId: moved[1]! },
      { payload: 'new', deduplicationId: 'brand-new' },
      { payload: 'again', deduplicationId: moved[2]! },
      { payload: 'again', deduplicationId: 'brand-new' },
    ]);
    expect(batch[0]).toEqual({ id: first[1]!.id, partition: first[1]!.partition, duplicate: true });
    expect(batch[2]).toEqual({ id: first[2]!.id, partition: first[2]!.partition, duplicate: true });
    expect(batch[1]!.duplicate).toBe(false);
    expect(fresh.partitionNames[batch[1]!.partition]).toBe(newNames[partitionOfId('brand-new', 6)]);
    expect(batch[3]).toEqual({ ...batch[1], duplicate: true });
    const got = await drain(fresh);
    expect(got.map((m) => m.payload).sort()).toEqual([...moved.map((id) => `first ${id}`), 'new'].sort());
  });

  it('grows from 3 to 6 under load: producers and consumers running, nothing lost, every message delivered and acknowledged', async () => {
    const name = uniqueName();
    // Sends go on until every producer has had time to see the grow (REFRESH_MS) and more.
    let stopAt = Infinity;
    const sentIds = new Map<string, number>();
    const sentAt = new Map<string, number>();
    let next = 0;
    const producer = async (queue: PartitionedQueue<string>): Promise<void> => {
      while (performance.now() < stopAt) {
        const start = next;
        const size = 1 + (start % 7);
        next += size;
        for (let i = 0; i < size; i++) sentAt.set(`m${start + i}`, performance.now());
        const items = Array.from({ length: size }, (_, i) => ({
          payload: `m${start + i}`,
          ...((start + i) % 2 === 0 ? { deduplicationId: `d${start + i}` } : {}),
        }));
        const { payload, ...options } = items[0]!;
        const results = size === 1 ? [await queue.sendWithResult(payload, options)] : await queue.sendMany(items);
        for (const [i, result] of results.entries()) {
          expect(result.duplicate).toBe(false);
          sentIds.set(`m${start + i}`, result.partition);
        }
        await sleep(2);
      }
    };
    const received = new Map<string, number>();
    let producing = true;
    const consumer = async (queue: PartitionedQueue<string>): Promise<void> => {
      for (let empty = 0; producing || empty < 5;) {
        const batch = await queue.receive(30_000, { max: 20 });
        if (batch.length === 0) {
          empty++;
          await sleep(5);
          continue;
        }
        empty = 0;
        for (const message of batch) received.set(message.payload, (received.get(message.payload) ?? 0) + 1);
        // Some are nacked once and come back; the rest are acknowledged.
        const nack = batch.filter((m) => m.deliveryCount === 1 && Number(m.payload.slice(1)) % 10 === 3);
        const ack = batch.filter((m) => !nack.includes(m));
        expect(await queue.ackMany(ack)).toEqual(ack.map(() => true));
        if (nack.length > 0) expect(await queue.nackMany(nack)).toEqual(nack.map(() => true));
      }
    };
    const producers = [queueOf(3, name), queueOf(3, name)];
    const consumers = [queueOf(3, name), queueOf(3, name)];
    const running = [...producers.map(producer), ...consumers.map(consumer)];
    while (next < 200) await sleep(5);
    const grow = await PartitionedQueue.grow(connection().client, name, 6);
    const grownAt = performance.now();
    stopAt = grownAt + REFRESH_MS + 500;
    expect(grow).toEqual({ previous: 3, partitions: 6, grown: true });
    // A consumer made with the new count joins.
    running.push(consumer(queueOf(6, name)));
    await Promise.all(running.slice(0, 2));
    producing = false;
    await Promise.all(running);

    const total = next;
    expect(sentIds.size).toBe(total);
    expect(total).toBeGreaterThan(200);
    const missing = [...sentIds.keys()].filter((payload) => !received.has(payload));
    expect(missing).toEqual([]);
    const nacked = [...received.entries()].filter(([payload]) => Number(payload.slice(1)) % 10 === 3);
    for (const [, count] of nacked) expect(count).toBe(2);
    expect([...received.values()].reduce((a, b) => a + b, 0)).toBe(total + nacked.length);
    const check = queueOf(6, name);
    await check.receive(1000, { max: 1 });
    for (const stream of check.streamKeys) expect(await length(connection(), stream)).toBe(0);
    // Sends after the grow reached the partitions only the new layout has.
    const onlyNew = new Set(partitionNames(name, 6).filter((n) => !partitionNames(name, 3).includes(n)));
    expect(onlyNew.size).toBeGreaterThan(0);
    const lateSends = [...sentIds.entries()].filter(([payload]) => sentAt.get(payload)! > grownAt + REFRESH_MS + 100);
    expect(lateSends.length).toBeGreaterThan(0);
    expect(lateSends.some(([, partition]) => onlyNew.has(producers[0]!.partitionNames[partition]!))).toBe(true);
    if (target.name.startsWith('cluster')) {
      const nodes = await Promise.all(partitionNames(name, 6).map((n) => connection().raw(`{respire-queue:${n}}`, ['CLUSTER', 'MYID'])));
      expect(new Set(nodes.map(String)).size).toBe(3);
    }
  }, 60_000);

  it('a grouped partitioned queue routes by group ID and keeps each group in send order', async () => {
    const name = uniqueName();
    const queue = queueOf(3, name, { groups: {} });
    const groups = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    const sent = new Map<string, string[]>(groups.map((g) => [g, []]));
    const partitionOf = new Map<string, Set<number>>(groups.map((g) => [g, new Set()]));
    for (let round = 0; round < 5; round++) {
      const items = groups.map((groupId) => ({ payload: `${groupId} ${round}a`, groupId }));
      for (const [i, result] of (await queue.sendMany(items)).entries()) {
        sent.get(items[i]!.groupId)!.push(items[i]!.payload);
        partitionOf.get(items[i]!.groupId)!.add(result.partition);
      }
      for (const groupId of groups) {
        const result = await queue.sendWithResult(`${groupId} ${round}b`, { groupId });
        sent.get(groupId)!.push(`${groupId} ${round}b`);
        partitionOf.get(groupId)!.add(result.partition);
      }
    }
    for (const groupId of groups) expect([...partitionOf.get(groupId)!]).toEqual([partitionOf.get(groupId)!.values().next().value]);
    expect(new Set(groups.map((g) => [...partitionOf.get(g)!][0])).size).toBeGreaterThan(1);
    const consumers = [queueOf(3, name, { groups: {} }), queueOf(3, name, { groups: {} })];
    const seen = new Map<string, string[]>(groups.map((g) => [g, []]));
    const inFlight = new Set<string>();
    let total = 0;
    for (let call = 0; total < 60 && call < 400; call++) {
      const consumer = consumers[call % 2]!;
      const batch = await consumer.receive(30_000, { max: 4 });
      for (const message of batch) {
        expect(message.groupId).toBe(message.payload.split(' ')[0]);
        expect(inFlight.has(message.groupId!)).toBe(false);
        inFlight.add(message.groupId!);
        seen.get(message.groupId!)!.push(message.payload);
      }
      total += batch.length;
      // Acknowledge in reverse order, by the other instance: order per group must not depend on it.
      if (batch.length > 0) expect(await consumers[(call + 1) % 2]!.ackMany([...batch].reverse())).toEqual(batch.map(() => true));
      for (const message of batch) inFlight.delete(message.groupId!);
    }
    expect(seen).toEqual(sent);
  });
});

it('earlierPartitions reads an earlier layout only while the grow is younger than the window plus the margin, and never the current partition', () => {
  const history = parseHistory('3,6@1000000,12@2000000')!;
  const set = partitionSet('orders', history);
  const id = 'order-7';
  const at3 = set.layouts[0]![partitionOfId(id, 3)]!;
  const at6 = set.layouts[1]![partitionOfId(id, 6)]!;
  const at12 = set.layouts[2]![partitionOfId(id, 12)]!;
  // Within a 10 s window of the grow to 12 only: the layout of 6.
  expect(earlierPartitions(history, set, id, 10_000, 2_000_000 + 5_000, at12)).toEqual(at6 === at12 ? [] : [at6]);
  // Within a long window of both grows: the layouts of 6 then 3, without repeats or the current partition.
  const both = [at6, at3].filter((n, i, all) => n !== at12 && all.indexOf(n) === i);
  expect(earlierPartitions(history, set, id, 86_400_000, 2_000_000 + 5_000, at12)).toEqual(both);
  // The grow to 12 is older than window + margin: nothing to read (the grow to 6 is older still).
  expect(earlierPartitions(history, set, id, 10_000, 2_000_000 + 10_000 + EARLIER_MARGIN_MS, at12)).toEqual([]);
  // Within the window of the grow to 12 but not of the grow to 6.
  const window = 1_000_000 - EARLIER_MARGIN_MS + 1000;
  expect(earlierPartitions(history, set, id, window, 2_000_000 + 5_000, at12)).toEqual(at6 === at12 ? [] : [at6]);
  expect(parseHistory('3,2@5')).toBeUndefined();
  expect(parseHistory('3,6')).toBeUndefined();
  expect(parseHistory('0')).toBeUndefined();
  expect(parseHistory('g3')).toEqual({ grouped: true, generations: [{ count: 3, sinceMs: 0 }] });
});

it('DrainedPartitions skips an old partition read empty after the grace, for RECHECK_MS; never one holding entries or one whose read failed', async () => {
  const drained = new DrainedPartitions();
  const current = [0, 2];
  expect(drained.receivable(4, current, 0)).toEqual([0, 1, 2, 3]);
  let reads = 0;
  const empty = async (): Promise<number> => {
    reads++;
    return 0;
  };
  expect(drained.noteEmpty(1, 0, DRAIN_GRACE_MS - 1, empty)).toBeUndefined();
  expect(reads).toBe(0);
  await drained.noteEmpty(1, 0, DRAIN_GRACE_MS, empty);
  expect(reads).toBe(1);
  expect(drained.receivable(4, current, DRAIN_GRACE_MS + 1)).toEqual([0, 2, 3]);
  // Seen empty already: no read again before the recheck.
  expect(drained.noteEmpty(1, 0, DRAIN_GRACE_MS + 5, empty)).toBeUndefined();
  await drained.noteEmpty(3, 0, DRAIN_GRACE_MS, async () => 2);
  await drained.noteEmpty(3, 0, DRAIN_GRACE_MS, async () => {
    throw new Error('reply lost');
  });
  expect(drained.receivable(4, current, DRAIN_GRACE_MS + 1)).toEqual([0, 2, 3]);
  // Asked again RECHECK_MS after it was seen empty; a later read that finds entries keeps it asked.
  expect(drained.receivable(4, current, DRAIN_GRACE_MS + RECHECK_MS)).toEqual([0, 1, 2, 3]);
  await drained.noteEmpty(1, 0, DRAIN_GRACE_MS + RECHECK_MS, async () => 1);
  expect(drained.receivable(4, current, DRAIN_GRACE_MS + RECHECK_MS + 1)).toEqual([0, 1, 2, 3]);
  // A current partition is asked whatever was noted.
  await drained.noteEmpty(0, 0, DRAIN_GRACE_MS, empty);
  expect(drained.receivable(4, current, DRAIN_GRACE_MS + 1)).toContain(0);
});
