// Partitioned queues for operators: one queue with its partitions, per master on the Cluster, and their dead letters as one list.
import { PartitionedQueue, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin, isNotFound, isRespireError } from '../src/index.js';
import { operator, recordingAudit, sleep, targets, uniqueQueue, viewer, type Connection } from './support.js';

// The fake server has no SET ... NX GET, which a PartitionedQueue's first call runs.
const real = targets.filter((t) => !t.name.startsWith('fake'));

describe.each(real)('RespireAdmin partitioned queues on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  /**
   * A 3-partition queue with delivery limit 1: 9 messages (3 a partition, by deduplication ID's
   * partition as the queue reports it), 2 leased, 3 dead-lettered; the partitions of each as the queue says.
   */
  async function world(keyPrefix = '') {
    const name = uniqueQueue('pq');
    const queue = new PartitionedQueue(conn.client, name, { codec: utf8Codec, partitions: 3, deliveryLimit: 1, keyPrefix });
    const sent = await queue.sendMany(Array.from({ length: 9 }, (_, i) => ({ payload: `m${i}` })));
    // Three messages dead-lettered: leased for 1 ms, then the next receive of each partition moves them.
    const lapsed = await queue.receive(1, { max: 3 });
    await sleep(20);
    const leased = await queue.receive(60_000, { max: 2 });
    const held = await queue.receive(60_000, { max: 3 });
    await queue.nackMany(held, 3_600_000);
    return { name, queue, sent, lapsed, leased, held, id: `${keyPrefix}{respire-partitioned:${name}}:partitions` };
  }

  const per = (partitions: readonly { partition: number }[], n: number) =>
    Array.from({ length: n }, (_, p) => partitions.filter((m) => m.partition === p).length);

  it("lists every partition a grown queue has had with the queue's numbering, the current count's marked; a grouped queue too", async () => {
    const name = uniqueQueue('pq');
    const id = `{respire-partitioned:${name}}:partitions`;
    const before = new PartitionedQueue(conn.client, name, { codec: utf8Codec, partitions: 3 });
    const first = await before.sendWithResult('before the grow');
    const grown = await PartitionedQueue.grow(conn.client, name, 6);
    expect(grown).toMatchObject({ previous: 3, partitions: 6, grown: true });
    const queue = new PartitionedQueue(conn.client, name, { codec: utf8Codec, partitions: 6 });
    const second = await queue.sendWithResult('after the grow');
    // The queue's own view: every partition it has had, by permanent number (more than 6: the layouts differ).
    expect(queue.partitionNames.length).toBeGreaterThan(6);
    const admin = new RespireAdmin(conn.client, { partitionedQueues: [{ name }] });
    const status = await admin.partitionedQueue(id);
    expect(status).toMatchObject({ partitions: 6, grouped: false, unreadable: null, allPartitions: queue.partitionNames.length });
    expect(status.history).toEqual([
      { count: 3, sinceMs: 0 },
      { count: 6, sinceMs: expect.any(Number) },
    ]);
    expect(Math.abs(status.history![1]!.sinceMs - status.serverTimeMs)).toBeLessThan(60_000);
    expect(status.partitionList.map((p) => p.queue)).toEqual(queue.partitionNames);
    expect(status.partitionList.map((p) => p.index)).toEqual(queue.partitionNames.map((_, n) => n));
    expect(status.partitionList.map((p) => p.status.resource.keys.stream)).toEqual(queue.streamKeys);
    expect(status.partitionList.filter((p) => p.current).map((p) => p.index)).toEqual([...queue.currentPartitions].sort((x, y) => x - y));
    // Both messages, each in the partition the queue reported, also one only the first count has.
    expect(status.partitionList[first.partition]!.status.length).toBe(first.partition === second.partition ? 2 : 1);
    expect(status.partitionList[second.partition]!.status.length).toBe(first.partition === second.partition ? 2 : 1);
    expect(status.totals.length).toBe(2);
    const list = await admin.partitionedQueues();
    expect(list.unavailable).toEqual([]);
    expect(list.partitionedQueues.map((q) => [q.name, q.partitions, q.allPartitions, q.totals.length])).toEqual([[name, 6, queue.partitionNames.length, 2]]);
    // A partition only an earlier count has is still addressable by its number (the queue still drains it).
    const old = status.partitionList.find((p) => !p.current)!;
    expect(await admin.deletePartitionedDeadLetter(operator, id, old.index, '1-1')).toEqual({ status: 'missing' });
    const beyond = await admin.deletePartitionedDeadLetter(operator, id, queue.partitionNames.length, '1-1').catch((e: unknown) => e);
    expect(isRespireError(beyond, 'INVALID_ARGUMENT')).toBe(true);

    const groupedName = uniqueQueue('pq');
    const grouped = new PartitionedQueue(conn.client, groupedName, { codec: utf8Codec, partitions: 4, groups: {} });
    await grouped.sendMany([{ payload: 'g', groupId: 'account-1' }]);
    const groupedId = `{respire-partitioned:${groupedName}}:partitions`;
    const groupedStatus = await new RespireAdmin(conn.client, { partitionedQueues: [{ name: groupedName }] }).partitionedQueue(groupedId);
    expect(groupedStatus).toMatchObject({ partitions: 4, grouped: true, history: [{ count: 4, sinceMs: 0 }], unreadable: null, allPartitions: 4 });
    expect(groupedStatus.partitionList.map((p) => [p.index, p.queue, p.current])).toEqual(grouped.partitionNames.map((queueName, n) => [n, queueName, true]));
  });

  it("counts a grouped queue's partitions with the grouped queue's counts: messages, in flight, dead letters, groups", async () => {
    const name = uniqueQueue('pq');
    const queue = new PartitionedQueue(conn.client, name, { codec: utf8Codec, partitions: 3, deliveryLimit: 1, groups: {} });
    const sent = await queue.sendMany(Array.from({ length: 12 }, (_, i) => ({ payload: `m${i}`, groupId: `g${i % 6}` })));
    // One head dead-lettered: leased for 1 ms, then the next receive of its partition moves it (every partition is asked: max 3).
    const lapsed = await queue.receive(1, { max: 1 });
    expect(lapsed).toHaveLength(1);
    await sleep(20);
    const leased = await queue.receive(60_000, { max: 3 });
    expect(leased.length).toBeGreaterThan(0);
    const id = `{respire-partitioned:${name}}:partitions`;
    const admin = new RespireAdmin(conn.client, { partitionedQueues: [{ name }] });
    const status = await admin.partitionedQueue(id);
    const groupIds = (p: number) =>
      new Set(
        Array.from({ length: 12 }, (_, i) => i)
          .filter((i) => sent[i]!.partition === p)
          .map((i) => `g${i % 6}`),
      );
    for (const p of [0, 1, 2]) {
      const length = per(sent, 3)[p]! - per(lapsed, 3)[p]!;
      const inFlight = per(leased, 3)[p]!;
      const row = status.partitionList[p]!;
      expect(row.status, `partition ${p}`).toMatchObject({ length, inFlight, ready: length - inFlight, due: 0, deadLetters: per(lapsed, 3)[p]! });
      // Every group of the partition still has a message: ready or blocked by its leased head.
      expect(row.grouped, `partition ${p}`).toMatchObject({
        messages: length,
        inFlight,
        deadLetters: per(lapsed, 3)[p]!,
        groups: groupIds(p).size,
        fair: false,
      });
    }
    expect(status.totals).toEqual({ length: 11, ready: 11 - leased.length, inFlight: leased.length, due: 0, deadLetters: 1 });
    const list = await admin.partitionedQueues();
    expect(list.partitionedQueues.map((q) => [q.name, q.grouped, q.totals])).toEqual([[name, true, status.totals]]);
    await queue.ackMany(leased);
  });

  it('shows each partition with the counts of its queue, the totals, and on a Cluster client the partitions of each master', async () => {
    const w = await world();
    const admin = new RespireAdmin(conn.client, { partitionedQueues: [{ name: w.name }] });
    const status = await admin.partitionedQueue(w.id);
    expect(status).toMatchObject({ kind: 'partitioned-queue', id: w.id, name: w.name, keyPrefix: '', partitions: 3, unreadable: null, discovered: false });
    expect(status.partitionList.map((p) => p.queue)).toEqual(w.queue.partitionNames);
    const dead = per(w.lapsed, 3);
    const leased = per(w.leased, 3);
    const delayed = per(w.held, 3);
    const sent = per(w.sent, 3);
    for (const p of status.partitionList) {
      expect(p.status.resource.keys.stream).toBe(w.queue.streamKeys[p.index]);
      expect(p.status.deadLetters).toBe(dead[p.index]);
      expect(p.status.inFlight).toBe(leased[p.index]! + delayed[p.index]!);
      expect(p.status.length).toBe(sent[p.index]! - dead[p.index]!);
      expect(p.status.ready).toBe(sent[p.index]! - dead[p.index]! - leased[p.index]! - delayed[p.index]!);
    }
    expect(status.totals).toEqual({ length: 6, ready: 1, inFlight: 5, due: 0, deadLetters: 3 });
    if (conn.cluster) {
      // Three partitions on the harness's 3 masters: one each (queue README "Scaling past one master").
      expect(status.masters).toHaveLength(3);
      expect(status.masters!.map((m) => m.partitions.length)).toEqual([1, 1, 1]);
      expect(new Set(status.partitionList.map((p) => p.master)).size).toBe(3);
      for (const m of status.masters!) {
        const p = status.partitionList[m.partitions[0]!]!;
        expect(p.master).toBe(m.master);
        expect(m).toMatchObject({ length: p.status.length, inFlight: p.status.inFlight, deadLetters: p.status.deadLetters });
        // The master named serves the partition's slot: the key is there, not MOVED.
        expect(Number(await conn.raw(p.status.resource.keys.stream, ['XLEN', p.status.resource.keys.stream]))).toBe(p.status.length);
      }
    } else {
      expect(status.masters).toBeNull();
      expect(status.partitionList.every((p) => p.master === null)).toBe(true);
    }
  });

  it('discovers partitioned queues by their metadata key under any key prefix; an unknown one is not found, with the nearest', async () => {
    const w = await world('ops:');
    const admin = new RespireAdmin(conn.client, { discoverPartitionedQueues: { scanCount: 100, maxPages: 1000 } });
    const { partitionedQueues, discoveryTruncated } = await admin.partitionedQueues();
    expect(discoveryTruncated).toBe(false);
    expect(partitionedQueues.filter((q) => q.name === w.name)).toEqual([
      expect.objectContaining({
        id: w.id,
        keyPrefix: 'ops:',
        partitions: 3,
        discovered: true,
        totals: { length: 6, ready: 1, inFlight: 5, due: 0, deadLetters: 3 },
      }),
    ]);
    const error = await admin.partitionedQueue(`ops:{respire-partitioned:${w.name}x}:partitions`).catch((e: unknown) => e);
    expect(isNotFound(error)).toMatchObject({ kind: 'resource', known: expect.arrayContaining([w.id]) });
    // The SCAN is bounded: one page of one key per master says the list may be incomplete.
    expect((await new RespireAdmin(conn.client, { discoverPartitionedQueues: { scanCount: 1, maxPages: 1 } }).partitionedQueues()).discoveryTruncated).toBe(
      true,
    );
    // Without discovery only configured ones are known.
    expect(isNotFound(await new RespireAdmin(conn.client).partitionedQueue(w.id).catch((e: unknown) => e))).toMatchObject({ kind: 'resource', known: [] });
  });

  it('pages the dead letters of every partition as one list, each naming its partition; retry and delete go to that partition, audited; a viewer is refused', async () => {
    const w = await world();
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { partitionedQueues: [{ name: w.name }], audit });
    const first = await admin.partitionedDeadLetters(w.id, { count: 2 });
    expect(first.items).toHaveLength(2);
    const second = await admin.partitionedDeadLetters(w.id, { count: 2, cursor: first.next! });
    const rows = [...first.items, ...second.items];
    expect(rows).toHaveLength(3);
    if (second.next !== undefined) expect((await admin.partitionedDeadLetters(w.id, { count: 2, cursor: second.next })).items).toEqual([]);
    // Each row names the partition the queue said its message was in, and carries its payload.
    const expected = w.lapsed.map((m) => [m.partition, m.id, m.payload]).sort();
    expect(
      rows.map((r) => [r.partition, r.record.kind === 'queue' ? r.record.sourceId : '', r.record.kind === 'queue' ? r.record.payload.toString() : '']).sort(),
    ).toEqual(expected);
    expect(rows.every((r) => r.queue === w.queue.partitionNames[r.partition])).toBe(true);

    const [retried, deleted, kept] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0]];
    const refused = await admin.retryPartitionedDeadLetter(viewer, w.id, retried.partition, retried.record.id).catch((e: unknown) => e);
    expect(isRespireError(refused, 'PERMISSION_DENIED')).toBe(true);
    expect(
      isRespireError(await admin.deletePartitionedDeadLetter(viewer, w.id, kept.partition, kept.record.id).catch((e: unknown) => e), 'PERMISSION_DENIED'),
    ).toBe(true);

    const before = Number(await conn.raw(w.queue.streamKeys[retried.partition]!, ['XLEN', w.queue.streamKeys[retried.partition]!]));
    const result = await admin.retryPartitionedDeadLetter(operator, w.id, retried.partition, retried.record.id);
    expect(result.status).toBe('retried');
    expect(Number(await conn.raw(w.queue.streamKeys[retried.partition]!, ['XLEN', w.queue.streamKeys[retried.partition]!]))).toBe(before + 1);
    expect(await admin.deletePartitionedDeadLetter(operator, w.id, deleted.partition, deleted.record.id)).toEqual({ status: 'deleted' });
    expect(await admin.deletePartitionedDeadLetter(operator, w.id, deleted.partition, deleted.record.id)).toEqual({ status: 'missing' });
    const left = await admin.partitionedDeadLetters(w.id);
    expect(left.items.map((r) => [r.partition, r.record.id])).toEqual([[kept.partition, kept.record.id]]);
    // The retried message comes back from its partition.
    const again = await w.queue.receive(60_000, { max: 10 });
    expect(again.filter((m) => m.payload === (retried.record.kind === 'queue' ? retried.record.payload.toString() : '')).map((m) => m.partition)).toEqual([
      retried.partition,
    ]);

    const actions = records.map((r) => [r.actor, r.action, r.resource, r.target.partition, r.result]);
    expect(actions).toEqual([
      ['victor', 'retry', w.id, String(retried.partition), 'refused'],
      ['victor', 'delete', w.id, String(kept.partition), 'refused'],
      ['alice', 'retry', w.id, retried.partition, 'ok'],
      ['alice', 'delete', w.id, deleted.partition, 'ok'],
      ['alice', 'delete', w.id, deleted.partition, 'missing'],
    ]);
  });

  it('refuses a bad partition, record ID or cursor before any I/O, and a partition the recorded count lacks', async () => {
    const w = await world();
    const admin = new RespireAdmin(conn.client, { partitionedQueues: [{ name: w.name }] });
    for (const p of [-1, 1.5, 4096, '0' as unknown as number]) {
      expect(isRespireError(await admin.retryPartitionedDeadLetter(operator, w.id, p, '1-1').catch((e: unknown) => e), 'INVALID_ARGUMENT')).toBe(true);
    }
    expect(isRespireError(await admin.deletePartitionedDeadLetter(operator, w.id, 0, 'nope').catch((e: unknown) => e), 'INVALID_ARGUMENT')).toBe(true);
    expect(isRespireError(await admin.partitionedDeadLetters(w.id, { cursor: 'garbage' }).catch((e: unknown) => e), 'INVALID_ARGUMENT')).toBe(true);
    expect(isRespireError(await admin.partitionedDeadLetters(w.id, { count: 0 }).catch((e: unknown) => e), 'INVALID_ARGUMENT')).toBe(true);
    const missing = await admin.retryPartitionedDeadLetter(operator, w.id, 3, '1-1').catch((e: unknown) => e);
    expect(isRespireError(missing, 'INVALID_ARGUMENT')).toBe(true);
    expect((missing as Error).message).toMatch(/has 3 partitions \(numbers 0\.\.2\): no partition 3/);
    expect(() => new RespireAdmin(conn.client, { partitionedQueues: [{ name: 'a{b}' }] })).toThrow(/must not contain/);
  });

  it('a metadata key it cannot read as a count is shown as unreadable, with no partitions', async () => {
    const name = uniqueQueue('pq');
    const key = `{respire-partitioned:${name}}:partitions`;
    await conn.raw(key, ['SET', key, 'generation:2']);
    const admin = new RespireAdmin(conn.client, { partitionedQueues: [{ name }] });
    expect(await admin.partitionedQueue(key)).toMatchObject({ partitions: null, unreadable: 'generation:2', partitionList: [] });
    expect(await admin.partitionedDeadLetters(key)).toEqual({ items: [], next: undefined });
  });

  it('lists a partitioned queue the server refuses to read as unavailable, without hiding the others', async () => {
    const w = await world();
    const broken = uniqueQueue('pq');
    const key = `{respire-partitioned:${broken}}:partitions`;
    await conn.raw(key, ['HSET', key, 'partitions', '3']);
    const admin = new RespireAdmin(conn.client, { partitionedQueues: [{ name: broken }, { name: w.name }] });
    const list = await admin.partitionedQueues();
    expect(list.partitionedQueues.map((q) => [q.name, q.partitions])).toEqual([[w.name, 3]]);
    expect(list.unavailable).toEqual([{ resource: expect.objectContaining({ id: key, name: broken }), code: 'WRONG_TYPE', message: expect.any(String) }]);
  });
});
