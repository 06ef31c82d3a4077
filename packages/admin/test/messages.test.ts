// A queue's messages (ready, leased, delayed), the fenced release and delete of one, and find by every kind of ID.
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin } from '../src/index.js';
import { addWorkerRecord, operator, pendingPair, recordingAudit, sleep, targets, uniqueKeys, uniqueQueue, viewer, type Connection } from './support.js';

describe.each(targets)('queue messages and find on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  function world(deliveryLimit = 3) {
    const name = uniqueQueue('msg');
    const { records, audit } = recordingAudit();
    return {
      name,
      id: `{respire-queue:${name}}:stream`,
      queue: new ReliableQueue(conn.client, name, { codec: utf8Codec, deliveryLimit }),
      admin: new RespireAdmin(conn.client, { queues: [{ name }], audit }),
      records,
    };
  }

  it('lists ready messages (not yet delivered) in pages both ways, and tells each message where it stands', async () => {
    const { id, queue, admin } = world();
    const sent: string[] = [];
    for (let i = 0; i < 7; i++) sent.push(await queue.send(`m${i}`));
    // Before the first receive there is no group: every entry is ready.
    expect((await admin.queueMessages(id, { count: 10 })).total).toBe(7);
    const [leased] = await queue.receive(60_000, { max: 1 });
    const [delayed] = await queue.receive(60_000, { max: 1 });
    await queue.nack(delayed!, 30_000);
    const first = await admin.queueMessages(id, { count: 3 });
    expect(first.items.map((m) => [m.id, m.payload.toString(), m.state, m.deliveryCount])).toEqual([
      [sent[2], 'm2', 'ready', 0],
      [sent[3], 'm3', 'ready', 0],
      [sent[4], 'm4', 'ready', 0],
    ]);
    expect(first.total).toBe(5);
    const last = await admin.queueMessages(id, { count: 3, last: true });
    expect(last.items.map((m) => m.id)).toEqual(sent.slice(4));
    expect((await admin.queueMessages(id, { count: 3, before: last.previous! })).items.map((m) => m.id)).toEqual(sent.slice(1 + 1, 4).slice(-3));
    expect((await admin.queueMessages(id, { count: 10, order: 'newest' })).items.map((m) => m.id)).toEqual(sent.slice(2).reverse());

    expect(await admin.queueMessage(id, sent[5]!)).toMatchObject({ state: 'ready', deliveryCount: 0, untilMs: null, due: false });
    const lease = await admin.queueMessage(id, leased!.id);
    expect(lease).toMatchObject({ state: 'leased', deliveryCount: 1, due: false });
    expect(lease!.untilMs! - lease!.serverTimeMs).toBeGreaterThan(50_000);
    expect(lease!.payload.toString()).toBe('m0');
    expect(JSON.stringify(lease)).not.toContain(leased!.receipt);
    expect(await admin.queueMessage(id, delayed!.id)).toMatchObject({ state: 'delayed', deliveryCount: 1 });
    expect(await admin.queueMessage(id, '1-1')).toBeNull();
  });

  it("shows a delayed send's due time and a message's headers: ready while it waits, then delayed with delivery count 0", async () => {
    const { id, queue, admin } = world();
    const delayedId = await queue.send('later', { delayMs: 600_000, headers: { trace: 't', raw: Buffer.from([0, 255]) } });
    const plainId = await queue.send('plain');
    const waiting = await admin.queueMessage(id, delayedId);
    expect(waiting).toMatchObject({ state: 'ready', deliveryCount: 0, headers: { trace: 't', raw: Buffer.from([0, 255]) } });
    expect(waiting!.dueMs! - waiting!.serverTimeMs).toBeGreaterThan(500_000);
    expect(await admin.queueMessage(id, plainId)).toMatchObject({ dueMs: null, headers: {} });
    expect((await queue.receive(60_000)).map((m) => m.id)).toEqual([plainId]);
    const parked = await admin.queueMessage(id, delayedId);
    expect(parked).toMatchObject({ state: 'delayed', deliveryCount: 0, untilMs: waiting!.dueMs, due: false, dueMs: waiting!.dueMs });
    // An operator can release it as shown (delivery count 0): it is receivable at once, as its first delivery.
    expect(await admin.releaseQueueMessage(operator, id, delayedId, { deliveryCount: 0, untilMs: parked!.untilMs! })).toEqual({ status: 'released' });
    expect((await queue.receive(60_000)).map((m) => [m.id, m.deliveryCount])).toEqual([[delayedId, 1]]);
  });

  it('releases a leased message (due now, count kept: the next receive redelivers it and the holder can no longer ack) only while its count and deadline are what the operator saw', async () => {
    const { id, queue, admin, records } = world();
    await queue.send('a');
    const [held] = await queue.receive(60_000, { max: 1 });
    const shown = (await admin.queueMessage(id, held!.id))!;
    expect(await admin.releaseQueueMessage(operator, id, held!.id, { deliveryCount: 2, untilMs: shown.untilMs! })).toEqual({
      status: 'changed',
      deliveryCount: 1,
    });
    expect(await admin.releaseQueueMessage(operator, id, held!.id, { deliveryCount: 1, untilMs: shown.untilMs! + 1 })).toEqual({
      status: 'changed',
      deliveryCount: null,
    });
    expect(await admin.releaseQueueMessage(operator, id, held!.id, { deliveryCount: 1, untilMs: shown.untilMs! })).toEqual({ status: 'released' });
    const now = (await admin.queueMessage(id, held!.id))!;
    expect(now).toMatchObject({ state: 'delayed', deliveryCount: 1, due: true });
    expect(await queue.ack(held!)).toBe(false);
    const [again] = await queue.receive(60_000, { max: 1 });
    expect(again).toMatchObject({ id: held!.id, deliveryCount: 2, payload: 'a' });
    expect(records.map((r) => [r.action, r.result])).toEqual([
      ['release-message', 'changed'],
      ['release-message', 'changed'],
      ['release-message', 'ok'],
    ]);
    expect(records[2]!.target).toMatchObject({ entryId: held!.id, deliveryCount: 1 });
  });

  it('deletes a leased or delayed message (an ACK by the operator): gone from the stream and the deadlines, never delivered again', async () => {
    const { id, queue, admin, records } = world();
    await queue.send('a');
    await queue.send('b');
    const [x, y] = await queue.receive(60_000, { max: 2 });
    await queue.nack(y!, 60_000);
    for (const m of [x!, y!]) {
      const shown = (await admin.queueMessage(id, m.id))!;
      expect(await admin.deleteQueueMessage(operator, id, m.id, { deliveryCount: 1, untilMs: shown.untilMs! })).toEqual({ status: 'deleted' });
      expect(await admin.deleteQueueMessage(operator, id, m.id, { deliveryCount: 1, untilMs: shown.untilMs! })).toEqual({ status: 'missing' });
    }
    expect(await admin.queueStatus(id)).toMatchObject({ length: 0, inFlight: 0 });
    expect(await queue.ack(x!)).toBe(false);
    await sleep(5);
    expect(await queue.receive(1, { max: 10 })).toEqual([]);
    expect(records.map((r) => r.result)).toEqual(['ok', 'missing', 'ok', 'missing']);
    await expect(admin.deleteQueueMessage(viewer, id, x!.id, { deliveryCount: 1, untilMs: 1 })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(admin.deleteQueueMessage(operator, id, x!.id, { deliveryCount: 1, untilMs: Number.NaN })).rejects.toMatchObject({
      argument: 'expected.untilMs',
    });
  });

  it('finds a queue message by entry ID and by deduplication ID, and its dead letter by source ID', async () => {
    const { id, queue, admin } = world(1);
    const sent = await queue.sendWithResult('order 42', { deduplicationId: 'order-42' });
    const [m] = await queue.receive(1, { max: 1 });
    await sleep(5);
    await queue.receive(60_000, { max: 1 }); // the lease expired at the delivery limit: dead-lettered
    const bySource = await admin.find(id, sent.id);
    expect(bySource.entry).toBeNull();
    expect(bySource.message).toBeNull();
    expect(bySource.bySource!.items).toHaveLength(1);
    expect(bySource.bySource!.items[0]).toMatchObject({ kind: 'queue', sourceId: m!.id, deliveryCount: 1 });
    const byDedup = await admin.find(id, 'order-42');
    expect(byDedup.deduplication).toMatchObject({ entryId: sent.id });
    expect(byDedup.deduplication!.expiresInMs).toBeGreaterThan(0);
    expect(byDedup.bySource!.items.map((r) => r.id)).toEqual(bySource.bySource!.items.map((r) => r.id));
    const record = bySource.bySource!.items[0]!.id;
    expect((await admin.find(id, record)).deadLetter).toMatchObject({ id: record, kind: 'queue' });
    const live = await queue.send('still here');
    expect((await admin.find(id, ` ${live} `)).message).toMatchObject({ state: 'ready', id: live });
    expect(await admin.find(id, 'no-such-thing')).toMatchObject({ entry: null, deadLetter: null, bySource: null, deduplication: null });
  });

  it("finds a worker stream's entry with where it stands in each group, and its dead letters", async () => {
    const { stream, dead } = uniqueKeys('find');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }] });
    const [a, b] = await pendingPair(conn, stream, 'c1');
    await conn.raw(stream, ['XACK', stream, 'g', a]);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'late', '$']);
    const record = await addWorkerRecord(conn, dead, b, ['k', 'b'], { group: 'g' });
    const found = await admin.find(stream, b);
    expect(found.entry!.fields.map(([f, v]) => [f.toString(), v.toString()])).toEqual([['k', 'b']]);
    expect(found.groups).toEqual([
      { group: 'g', state: 'pending', pending: expect.objectContaining({ consumer: 'c1', deliveryCount: 1, released: false }) },
      { group: 'late', state: 'done' },
    ]);
    expect(found.bySource!.items.map((r) => r.id)).toEqual([record]);
    expect((await admin.find(stream, a)).groups).toEqual([
      { group: 'g', state: 'done' },
      { group: 'late', state: 'done' },
    ]);
    const c = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'c']));
    expect((await admin.find(stream, c)).groups!.map((g) => g.state)).toEqual(['waiting', 'waiting']);
  });
});
