// Grouped queues for operators: counts, largest backlogs, the ready ring and the heads in flight, paged, on every target.
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { createAclUser, standalone } from '@respire/harness';
import type { RedisClientLike } from '@respire/core-scripts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RespireAdmin, isNotFound, isRespireError } from '../src/index.js';
import { targets, uniqueQueue, type Connection } from './support.js';

describe.each(targets)('RespireAdmin grouped queues on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  const grouped = (name: string, groups: { groupConcurrency?: number } = {}, keyPrefix = '') =>
    new ReliableQueue(conn.client, name, { codec: utf8Codec, groups, keyPrefix });

  /** Groups a (3 messages, head leased), b (1, head NACKed), c (5, ready), sent in that order. */
  async function world(keyPrefix = '') {
    const name = uniqueQueue('g');
    const queue = grouped(name, {}, keyPrefix);
    const sent = await queue.sendMany([
      ...['a1', 'a2', 'a3'].map((payload) => ({ payload, groupId: 'a' })),
      { payload: 'b1', groupId: 'b' },
      ...['c1', 'c2', 'c3', 'c4', 'c5'].map((payload) => ({ payload, groupId: 'c' })),
    ]);
    const [a, b] = await queue.receive(60_000, { max: 2 });
    await queue.nack(b!);
    return { name, queue, ids: sent.map((s) => s.id), a: a!, b: b! };
  }

  it('counts groups, lists the largest backlogs, and pages the ready ring and the blocked heads', async () => {
    const { name, ids, a, b } = await world();
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
    const id = `{respire-queue:${name}}:groups:stream`;
    const status = await admin.groupedQueue(id, { top: 2 });
    expect(status).toMatchObject({ kind: 'grouped-queue', id, name, messages: 9, readyGroups: 1, inFlight: 2, fair: false, groups: 3, deadLetters: 0 });
    expect(status.largestBacklogs).toMatchObject({ groupsRead: 3, truncated: false });
    expect(status.largestBacklogs.items).toEqual([
      { groupId: 'c', backlog: 5 },
      { groupId: 'a', backlog: 3 },
    ]);
    expect(await admin.readyGroups(id)).toMatchObject({ items: [{ groupId: 'c', backlog: 5 }], next: undefined });
    // b was NACKed without delay: due now, so it sorts before a's lease deadline.
    const heads = await admin.groupsInFlight(id);
    expect(heads.items).toEqual([
      { groupId: 'b', entryId: b.id, deliveryCount: 1, deadlineMs: expect.any(Number), due: true, leased: false },
      { groupId: 'a', entryId: a.id, deliveryCount: 1, deadlineMs: expect.any(Number), due: false, leased: true },
    ]);
    expect(heads.items[1]!.deadlineMs - heads.serverTimeMs).toBeGreaterThan(50_000);
    expect(await admin.messageGroup(id, 'a')).toEqual({ groupId: 'a', backlog: 3, state: 'blocked', headId: ids[0], inFlight: 1 });
    expect(await admin.messageGroup(id, 'c')).toEqual({ groupId: 'c', backlog: 5, state: 'ready', headId: ids[4], inFlight: 0 });
    expect(await admin.messageGroup(id, 'none')).toEqual({ groupId: 'none', backlog: 0, state: 'empty', headId: null, inFlight: 0 });
    expect((await admin.groupedQueues()).groupedQueues).toEqual([expect.objectContaining({ id, groups: 3, messages: 9 })]);
  });

  it('pages the ring in receive order and the in-flight heads across equal deadlines, each row once', async () => {
    const name = uniqueQueue('g');
    const queue = grouped(name);
    const groupIds = Array.from({ length: 23 }, (_, i) => `tenant-${String(i).padStart(2, '0')}`);
    await queue.sendMany(
      groupIds.flatMap((groupId) => [
        { payload: 'x', groupId },
        { payload: 'y', groupId },
      ]),
    );
    // One receive: seven heads with one deadline (ties in the deadlines index).
    await queue.receive(60_000, { max: 7 });
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
    const id = `{respire-queue:${name}}:groups:stream`;
    const ring: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await admin.readyGroups(id, { count: 5, cursor });
      expect(page.items.length).toBeLessThanOrEqual(5);
      for (const g of page.items) expect(g.backlog).toBe(2);
      ring.push(...page.items.map((g) => g.groupId));
      cursor = page.next;
    } while (cursor);
    expect(ring).toEqual(groupIds.slice(7));
    const inFlight: string[] = [];
    do {
      const page = await admin.groupsInFlight(id, { count: 3, cursor });
      inFlight.push(...page.items.map((h) => h.groupId!));
      cursor = page.next;
    } while (cursor);
    expect(inFlight.sort()).toEqual(groupIds.slice(0, 7));
    expect((await admin.groupedQueue(id)).groups).toBe(23);
  });

  it('fair groups: groups with messages in flight and in the ring are not double-counted (null), the walk reads each group once', async () => {
    const name = uniqueQueue('g');
    const queue = grouped(name, { groupConcurrency: 2 });
    await queue.sendMany([...Array.from({ length: 4 }, () => ({ payload: 'x', groupId: 'big' })), { payload: 'y', groupId: 'small' }]);
    await queue.receive(60_000, { max: 2 });
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
    const status = await admin.groupedQueue(`{respire-queue:${name}}:groups:stream`, { maxAgeMs: 0 });
    expect(status).toMatchObject({ fair: true, groups: null, inFlight: 2, messages: 5 });
    // big: 4 sent, 1 taken (left its backlog); small: its one message taken.
    expect(status.largestBacklogs.items).toEqual([{ groupId: 'big', backlog: 3 }]);
    // big is in the ring and in flight: read in both phases.
    expect(status.largestBacklogs.groupsRead).toBe(3);
  });

  it('reuses a walk for maxAgeMs; 0 walks again', async () => {
    const { name, queue } = await world();
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
    const id = `{respire-queue:${name}}:groups:stream`;
    const first = await admin.groupedQueue(id);
    await queue.send('c6', { groupId: 'c' });
    expect((await admin.groupedQueue(id)).largestBacklogs).toEqual(first.largestBacklogs);
    expect((await admin.groupedQueue(id, { maxAgeMs: 0 })).largestBacklogs.items[0]).toEqual({ groupId: 'c', backlog: 6 });
  });

  it('discovers grouped queues (with a key prefix) and names the nearest for an unknown id', async () => {
    const { name } = await world('app:');
    const admin = new RespireAdmin(conn.client, { discoverGroupedQueues: true });
    const id = `app:{respire-queue:${name}}:groups:stream`;
    const { groupedQueues } = await admin.groupedQueues();
    expect(groupedQueues).toContainEqual(expect.objectContaining({ id, name, keyPrefix: 'app:', discovered: true, groups: 3 }));
    expect((await admin.groupedQueue(id)).messages).toBe(9);
    const unknown = await admin.groupedQueue(`app:{respire-queue:${name}x}:groups:stream`).catch((e: unknown) => e);
    expect(isNotFound(unknown)).toMatchObject({ kind: 'resource', known: expect.arrayContaining([id]) });
  });

  it('leaves a discovered grouped queue whose keys hold other types out of the list, and lists the rest', async () => {
    const { name } = await world('app:');
    const damaged = await world('app:');
    const ready = `app:{respire-queue:${damaged.name}}:groups:ready`;
    await conn.raw(ready, ['DEL', ready]);
    await conn.raw(ready, ['SET', ready, 'x']);
    const admin = new RespireAdmin(conn.client, { discoverGroupedQueues: true });
    const ids = (await admin.groupedQueues()).groupedQueues.map((q) => q.id);
    expect(ids).toContain(`app:{respire-queue:${name}}:groups:stream`);
    expect(ids).not.toContain(`app:{respire-queue:${damaged.name}}:groups:stream`);
    // Configured, the same queue's damage is reported, not hidden.
    const configured = new RespireAdmin(conn.client, { groupedQueues: [{ name: damaged.name, keyPrefix: 'app:' }] });
    await expect(configured.groupedQueues()).rejects.toSatisfy((e: unknown) => isRespireError(e, 'WRONG_TYPE'));
  });

  it('refuses bad input before any I/O', async () => {
    const { name } = await world();
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
    const id = `{respire-queue:${name}}:groups:stream`;
    for (const call of [
      () => admin.groupedQueue(id, { top: 0 }),
      () => admin.groupedQueue(id, { top: 101 }),
      () => admin.readyGroups(id, { cursor: 'x' }),
      () => admin.groupsInFlight(id, { cursor: '12:not-a-member' }),
      () => admin.messageGroup(id, ''),
      () => admin.messageGroup(id, 'x'.repeat(1025)),
      () => admin.messageGroup(id, '\ud800'),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(isRespireError(error, 'INVALID_ARGUMENT')).toBe(true);
    }
    expect(() => new RespireAdmin(conn.client, { groupedQueues: [{ name: 'a{b' }] })).toThrow(/groupedQueues\[0\]/);
  });
});

// Scale: the walk is O(groups), a page is O(log groups + count). RESPIRE_ADMIN_GROUPS sets the size (default 10,000).
describe('RespireAdmin grouped queues at scale', () => {
  const target = targets[0]!;
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it(`finds the largest backlogs among many groups and pages deep into the ring (${target.name})`, async () => {
    const groups = Math.min(Number(process.env.RESPIRE_ADMIN_GROUPS ?? 10_000), 200_000);
    const name = uniqueQueue('g');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, groups: {} });
    const items = Array.from({ length: groups }, (_, i) => ({ payload: 'x', groupId: `tenant-${i}` }));
    // Three groups with longer backlogs, spread through the ring.
    for (const [g, extra] of [
      [7, 4],
      [groups - 1, 6],
      [groups >> 1, 2],
    ] as const) {
      for (let k = 0; k < extra; k++) items.push({ payload: 'y', groupId: `tenant-${g}` });
    }
    for (let i = 0; i < items.length; i += 1000) await queue.sendMany(items.slice(i, i + 1000));
    await queue.receive(60_000, { max: 5 });
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
    const id = `{respire-queue:${name}}:groups:stream`;
    let started = performance.now();
    const status = await admin.groupedQueue(id, { top: 3 });
    const walkMs = performance.now() - started;
    expect(status).toMatchObject({ groups, readyGroups: groups - 5, inFlight: 5 });
    expect(status.largestBacklogs.groupsRead).toBe(groups);
    expect(status.largestBacklogs.items).toEqual([
      { groupId: `tenant-${groups - 1}`, backlog: 7 },
      { groupId: 'tenant-7', backlog: 5 },
      { groupId: `tenant-${groups >> 1}`, backlog: 3 },
    ]);
    // Walk to the middle of the ring by cursor, then time one page there.
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) cursor = (await admin.readyGroups(id, { count: 1000, cursor })).next;
    started = performance.now();
    const page = await admin.readyGroups(id, { count: 50, cursor });
    const pageMs = performance.now() - started;
    expect(page.items[0]!.groupId).toBe('tenant-5005');
    console.log(
      `grouped admin at ${groups} groups: largest backlogs walk ${walkMs.toFixed(0)} ms, a 50-row ring page deep in the ring ${pageMs.toFixed(1)} ms`,
    );
  }, 120_000);
});

/** Real Redis only: a user that may read but not run scripts (`+@read`) still sees the largest backlogs. */
describe('RespireAdmin grouped queues for a read-only user', () => {
  let conn: Connection;
  const url = inject('redisUrl');
  beforeAll(async () => void (conn = await standalone<RedisClientLike>(url)));
  afterAll(async () => conn.close());

  it('walks the groups by commands when scripts are refused: the same largest backlogs, every view readable', async () => {
    const name = uniqueQueue('g');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, groups: {} });
    await queue.sendMany(['a', 'a', 'b', 'c', 'c', 'c'].map((groupId, i) => ({ payload: String(i), groupId })));
    await queue.receive(60_000, { max: 1 });
    const user = await createAclUser([url], `grouped-ro-${Math.random().toString(36).slice(2, 8)}`, ['~*', '+@read', '+@connection']);
    const reader = await standalone<RedisClientLike>(user.urlFor(url));
    try {
      const admin = new RespireAdmin(reader.client, { groupedQueues: [{ name }] });
      const id = `{respire-queue:${name}}:groups:stream`;
      const status = await admin.groupedQueue(id);
      expect(status).toMatchObject({ groups: 3, readyGroups: 2, inFlight: 1 });
      expect(status.largestBacklogs).toMatchObject({ groupsRead: 3, truncated: false });
      expect(status.largestBacklogs.items).toEqual([
        { groupId: 'c', backlog: 3 },
        { groupId: 'a', backlog: 2 },
        { groupId: 'b', backlog: 1 },
      ]);
      expect((await admin.groupsInFlight(id)).items).toEqual([expect.objectContaining({ groupId: 'a', deliveryCount: 1, leased: true })]);
      expect((await admin.readyGroups(id)).items.map((g) => g.groupId)).toEqual(['b', 'c']);
    } finally {
      await reader.close();
    }
  });
});
