// Attacks on the admin's grouped reads: heads deleted behind the queue's back, numbers past 2^31, odd group IDs, 1,000 groups paged, on every target.
import { MAX_GROUP_ID_BYTES, ReliableQueue, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin } from '../src/index.js';
import { operator, targets, uniqueQueue, type Connection } from './support.js';

describe.each(targets)('RespireAdmin grouped queues under attack on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  const grouped = (name: string, groups: { groupConcurrency?: number } = {}) => new ReliableQueue(conn.client, name, { codec: utf8Codec, groups });
  const keysOf = (name: string) => {
    const base = `{respire-queue:${name}}:groups`;
    return { id: `${base}:stream`, stream: `${base}:stream`, ready: `${base}:ready`, deadlines: `${base}:deadlines` };
  };

  /** Every row of a paged read, following its cursors. */
  async function allPages<T>(read: (cursor: string | undefined) => Promise<{ items: readonly T[]; next: string | undefined }>): Promise<T[]> {
    const rows: T[] = [];
    let cursor: string | undefined;
    for (let page = 0; page === 0 || cursor !== undefined; page++) {
      expect(page).toBeLessThan(2000);
      const read1 = await read(cursor);
      rows.push(...read1.items);
      cursor = read1.next;
    }
    return rows;
  }

  it('heads deleted while ready, while leased and a group deleted whole: the reads stay consistent and end empty', async () => {
    const name = uniqueQueue('g');
    const k = keysOf(name);
    const queue = grouped(name);
    const payloads = ['a1', 'a2', 'a3', 'b1', 'b2', 'c1', 'c2'];
    const sent = await queue.sendMany(payloads.map((payload) => ({ payload, groupId: payload[0]! })));
    const id = (payload: string): string => sent[payloads.indexOf(payload)]!.id;
    const [a1] = await queue.receive(60_000, { max: 1 });
    // a: its leased head deleted; b: its ready head; c: all of it, while ready.
    await conn.raw(k.stream, ['XDEL', k.stream, id('a1'), id('b1'), id('c1'), id('c2')]);
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
    expect(await admin.groupedQueue(k.id, { maxAgeMs: 0 })).toMatchObject({ messages: 3, readyGroups: 2, inFlight: 1, groups: 3 });
    // Still listed as they are stored until a receive walks past them.
    expect(await admin.messageGroup(k.id, 'c')).toEqual({ groupId: 'c', backlog: 2, state: 'ready', headId: id('c1'), inFlight: 0 });
    expect(await admin.groupsInFlight(k.id)).toMatchObject({ items: [{ groupId: 'a', entryId: id('a1'), deliveryCount: 1, leased: true }] });
    const batch = await queue.receive(60_000, { max: 10 });
    expect(batch.map((m) => m.payload)).toEqual(['b2']);
    expect(await admin.messageGroup(k.id, 'c')).toEqual({ groupId: 'c', backlog: 0, state: 'empty', headId: null, inFlight: 0 });
    expect(await admin.messageGroup(k.id, 'b')).toEqual({ groupId: 'b', backlog: 1, state: 'blocked', headId: id('b2'), inFlight: 1 });
    expect(await queue.ackMany([a1!, ...batch])).toEqual([true, true]);
    const rest = await queue.receive(60_000, { max: 10 });
    expect(rest.map((m) => m.payload)).toEqual(['a2']);
    expect(await queue.ackMany(rest)).toEqual([true]);
    const [a3] = await queue.receive(60_000, { max: 10 });
    expect(await queue.ack(a3!)).toBe(true);
    expect(await admin.groupedQueue(k.id, { maxAgeMs: 0 })).toMatchObject({ messages: 0, readyGroups: 0, inFlight: 0, groups: 0 });
    expect((await admin.groupedQueue(k.id, { maxAgeMs: 0 })).largestBacklogs.items).toEqual([]);
    expect((await admin.readyGroups(k.id)).items).toEqual([]);
    expect((await admin.groupsInFlight(k.id)).items).toEqual([]);
  });

  it('delivery counts of 2^31 - 1 and 2^53 - 1 and ring positions past 2^31 and 2^52 are read exactly, each row once', async () => {
    const name = uniqueQueue('g');
    const k = keysOf(name);
    const queue = grouped(name);
    await queue.sendMany(['a', 'b', 'c', 'd', 'e'].flatMap((groupId) => [1, 2].map((n) => ({ payload: `${groupId}${n}`, groupId }))));
    const heads = await queue.receive(60_000, { max: 2 });
    for (const [m, count] of [
      [heads[0]!, 2n ** 31n - 1n],
      [heads[1]!, 2n ** 53n - 1n],
    ] as const) {
      await conn.raw(k.deadlines, ['ZREM', k.deadlines, `${m.id}:${m.receipt}`]);
      await conn.raw(k.deadlines, ['ZADD', k.deadlines, '1', `${m.id}:${count}`]);
    }
    const positions = [2 ** 31 + 1, 2 ** 31 + 2, 2 ** 52 + 3];
    for (const [i, group] of ['c', 'd', 'e'].entries()) await conn.raw(k.ready, ['ZADD', k.ready, 'XX', String(positions[i]), group]);
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
    const ring = await allPages((cursor) => admin.readyGroups(k.id, { count: 1, cursor }));
    expect(ring).toEqual([
      { groupId: 'c', position: positions[0], backlog: 2 },
      { groupId: 'd', position: positions[1], backlog: 2 },
      { groupId: 'e', position: positions[2], backlog: 2 },
    ]);
    const inFlight = await allPages((cursor) => admin.groupsInFlight(k.id, { count: 1, cursor }));
    expect(inFlight.map((h) => [h.groupId, h.deliveryCount, h.due, h.leased])).toEqual([
      ['a', 2 ** 31 - 1, true, false],
      ['b', 2 ** 53 - 1, true, false],
    ]);
  });

  for (const groups of [{}, { groupConcurrency: 2 }]) {
    it(`group IDs at the byte limit and with binary, UTF-8, ':' and '{}' characters: listed and looked up exactly (${groups.groupConcurrency ? 'fair' : 'ordered'})`, async () => {
      const name = uniqueQueue('g');
      const k = keysOf(name);
      const queue = grouped(name, groups);
      const ids = [
        'é'.repeat(MAX_GROUP_ID_BYTES / 2),
        '😀'.repeat(MAX_GROUP_ID_BYTES / 4),
        ':',
        '{}',
        '}{x',
        'a:b{c}d',
        '\u0000\u0001\n\r\t ',
        '}:groups:ready',
        '*',
        '1e400',
      ];
      await queue.sendMany(ids.flatMap((groupId, i) => [1, 2, 3].map((n) => ({ payload: `${i}/${n}`, groupId }))));
      const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
      expect((await allPages((cursor) => admin.readyGroups(k.id, { count: 3, cursor }))).map((g) => [g.groupId, g.backlog])).toEqual(ids.map((g) => [g, 3]));
      const status = await admin.groupedQueue(k.id, { top: ids.length, maxAgeMs: 0 });
      expect(status.largestBacklogs.items.map((b) => b.groupId).sort()).toEqual([...ids].sort());
      for (const groupId of ids) expect(await admin.messageGroup(k.id, groupId)).toMatchObject({ groupId, backlog: 3, state: 'ready', inFlight: 0 });
      await queue.receive(60_000, { max: 100 });
      const inFlight = await allPages((cursor) => admin.groupsInFlight(k.id, { count: 4, cursor }));
      expect(inFlight.map((h) => h.groupId).sort()).toEqual([...ids].sort());
      for (const groupId of ids) expect(await admin.messageGroup(k.id, groupId)).toMatchObject({ groupId, inFlight: 1 });
    });
  }

  it('1,000 groups: the ring and the heads in flight paged in odd page sizes, each row once, in order', async () => {
    const name = uniqueQueue('g');
    const k = keysOf(name);
    const queue = grouped(name);
    const ids = Array.from({ length: 1000 }, (_, i) => `g${String(i).padStart(4, '0')}`);
    await queue.sendMany(ids.map((groupId) => ({ payload: 'x', groupId })));
    await queue.sendMany(ids.map((groupId) => ({ payload: 'y', groupId })));
    // 300 heads leased by three receives (ties in the deadlines index), 700 groups ready.
    for (let i = 0; i < 3; i++) await queue.receive(60_000, { max: 100 });
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
    const ring = await allPages((cursor) => admin.readyGroups(k.id, { count: 37, cursor }));
    expect(ring.map((g) => g.groupId)).toEqual(ids.slice(300));
    const inFlight = await allPages((cursor) => admin.groupsInFlight(k.id, { count: 11, cursor }));
    expect(inFlight.map((h) => h.groupId).sort()).toEqual(ids.slice(0, 300));
    expect(await admin.groupedQueue(k.id, { maxAgeMs: 0 })).toMatchObject({ messages: 2000, readyGroups: 700, inFlight: 300, groups: 1000 });
  });

  it("dead letters retried into groups whose heads were deleted behind the queue's back: each comes once, after what its group had, no key left", async () => {
    const name = uniqueQueue('g');
    const k = keysOf(name);
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, groups: {}, deliveryLimit: 1 });
    // Dead letters of groups a and b (deliveryLimit 1: receive, NACK, receive).
    await queue.sendMany(['a/dead', 'b/dead'].map((payload) => ({ payload, groupId: payload[0]! })));
    for (const m of await queue.receive(60_000, { max: 10 })) await queue.nack(m);
    expect(await queue.receive(60_000, { max: 10 })).toEqual([]);
    // a: its head leased, then deleted; b: every message deleted while it is on the ring.
    const sent = await queue.sendMany(['a/1', 'a/2', 'b/1', 'b/2'].map((payload) => ({ payload, groupId: payload[0]! })));
    const [a1] = await queue.receive(60_000, { max: 1 });
    expect(a1!.payload).toBe('a/1');
    await conn.raw(k.stream, ['XDEL', k.stream, sent[0]!.id, sent[2]!.id, sent[3]!.id]);
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
    expect(await admin.retryAllGroupedDeadLetters(operator, k.id)).toMatchObject({ done: 2, failed: 0 });
    const delivered: string[] = [];
    for (let round = 0; round < 10; round++) {
      const batch = await queue.receive(60_000, { max: 10 });
      delivered.push(...batch.map((m) => m.payload));
      if (round === 0) expect(await queue.ack(a1!)).toBe(true);
      expect((await queue.ackMany(batch)).every(Boolean)).toBe(true);
    }
    // b's deleted messages are walked past; a's retried one waits behind a/2.
    expect(delivered).toEqual(['b/dead', 'a/2', 'a/dead']);
    const keys = (await conn.raw(k.stream, ['KEYS', `{respire-queue:${name}}:*`])) as string[];
    expect(keys.map(String).sort()).toEqual([`{respire-queue:${name}}:groups:dead-letter`, k.stream, `{respire-queue:${name}}:groups:wake`].sort());
  });
});
