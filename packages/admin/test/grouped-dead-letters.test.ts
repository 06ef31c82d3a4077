// A grouped queue's dead letters: listed with their groups, retried to the back of their groups, deleted, in bulk, audited, on every target.
import { createAclUser, standalone } from '@respire/harness';
import { ReliableQueue, utf8Codec } from '@respire/queue';
import type { RedisClientLike } from '@respire/core-scripts';
import { commandTarget, scriptCalls } from '@respire/core-scripts/internal';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RespireAdmin } from '../src/index.js';
import { addQueueRecord, operator, range, recordingAudit, targets, uniqueQueue, viewer, type Connection } from './support.js';

describe.each(targets)('RespireAdmin grouped dead letters on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  const grouped = (name: string, groups: { groupConcurrency?: number } = {}) =>
    new ReliableQueue(conn.client, name, { codec: utf8Codec, groups, deliveryLimit: 1 });
  const keysOf = (name: string) => {
    const base = `{respire-queue:${name}}:groups`;
    return { id: `${base}:stream`, dead: `${base}:dead-letter`, ready: `${base}:ready`, wake: `${base}:wake`, backlog: (g: string) => `${base}:group:${g}` };
  };

  /** Sends each [payload, group] and dead-letters them (deliveryLimit 1: receive, NACK, receive). */
  async function deadLettered(queue: ReliableQueue<string>, messages: [string, string, Record<string, string>?][]): Promise<void> {
    for (const [payload, groupId, headers] of messages) await queue.send(payload, { groupId, ...(headers ? { headers } : {}) });
    for (;;) {
      const batch = await queue.receive(60_000, { max: 100 });
      if (batch.length === 0) break;
      for (const m of batch) await queue.nack(m);
    }
  }

  /** Receives and ACKs until nothing is left, returning the payloads in delivery order with their counts. */
  async function drain(queue: ReliableQueue<string>): Promise<string[]> {
    const out: string[] = [];
    for (;;) {
      const batch = await queue.receive(60_000, { max: 1 });
      if (batch.length === 0) return out;
      for (const m of batch) {
        out.push(`${m.groupId}:${m.payload}:${m.deliveryCount}`);
        await queue.ack(m);
      }
    }
  }

  it('lists records with their groups; a retry into an empty group: a fresh message, headers kept, the group back on the ring, the wake stream appended', async () => {
    const name = uniqueQueue('gdl');
    const queue = grouped(name);
    const k = keysOf(name);
    await deadLettered(queue, [
      ['p1', 'a', { tenant: 't1' }],
      ['p2', 'b'],
    ]);
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }], audit });
    const page = await admin.groupedDeadLetters(k.id, { order: 'oldest' });
    expect(page.items.map((r) => (r.kind === 'queue' ? [r.group, r.payload.toString(), r.deliveryCount] : r.kind))).toEqual([
      ['a', 'p1', 1],
      ['b', 'p2', 1],
    ]);
    expect((await admin.groupedDeadLetters(k.id, { filter: { group: 'b' } })).items.map((r) => r.id)).toEqual([page.items[1]!.id]);
    expect(Number(await conn.raw(k.ready, ['ZCARD', k.ready]))).toBe(0);
    const lastWake = async () => String(((await conn.raw(k.wake, ['XREVRANGE', k.wake, '+', '-', 'COUNT', '1'])) as unknown[][])[0]?.[0]);
    const wakeBefore = await lastWake();

    const retried = await admin.retryGroupedDeadLetter(operator, k.id, page.items[0]!.id);
    expect(retried).toEqual({ status: 'retried', newId: expect.stringMatching(/^\d+-\d+$/) });
    expect(await conn.raw(k.backlog('a'), ['LRANGE', k.backlog('a'), '0', '-1'])).toEqual([(retried as { newId: string }).newId]);
    expect(await conn.raw(k.ready, ['ZRANGE', k.ready, '0', '-1'])).toEqual(['a']);
    expect(await lastWake()).not.toBe(wakeBefore);
    expect(Number(await conn.raw(k.wake, ['XLEN', k.wake]))).toBe(1);
    expect((await range(conn, k.dead)).map(([id]) => id)).toEqual([page.items[1]!.id]);
    const [m] = await queue.receive(60_000);
    expect([m!.id, m!.payload, m!.groupId, m!.deliveryCount, m!.headers]).toEqual([(retried as { newId: string }).newId, 'p1', 'a', 1, { tenant: 't1' }]);
    expect(records.map((r) => [r.action, r.result, r.resource, r.target])).toEqual([
      ['retry', 'ok', k.id, { recordId: page.items[0]!.id, newId: (retried as { newId: string }).newId }],
    ]);
  });

  it("a retried message goes behind its group's backlog; with the head leased (ordered) it comes only after the head is settled, in order", async () => {
    const name = uniqueQueue('gdl');
    const queue = grouped(name);
    const k = keysOf(name);
    await deadLettered(queue, [['dead', 'a']]);
    const [record] = (await admin0(name).groupedDeadLetters(k.id)).items;
    await queue.sendMany(['a1', 'a2'].map((payload) => ({ payload, groupId: 'a' })));
    const [head] = await queue.receive(60_000);
    expect(head!.payload).toBe('a1');
    expect(await admin0(name).retryGroupedDeadLetter(operator, k.id, record!.id)).toMatchObject({ status: 'retried' });
    // The head is leased: the group stays off the ring, nothing of it is delivered.
    expect(await conn.raw(k.ready, ['ZRANGE', k.ready, '0', '-1'])).toEqual([]);
    expect(await queue.receive(60_000)).toEqual([]);
    await queue.ack(head!);
    expect(await drain(queue)).toEqual(['a:a2:1', 'a:dead:1']);
  });

  it('fair groups: an idle group joins the ring; one with a message in flight waits for its settle, then comes', async () => {
    const name = uniqueQueue('gdl');
    const queue = grouped(name, { groupConcurrency: 3 });
    const k = keysOf(name);
    await deadLettered(queue, [
      ['x', 'f'],
      ['y', 'g'],
    ]);
    const admin = admin0(name);
    const [rx, ry] = (await admin.groupedDeadLetters(k.id, { order: 'oldest' })).items;
    await queue.send('f1', { groupId: 'f' });
    const [f1] = await queue.receive(60_000);
    expect(f1!.payload).toBe('f1');
    expect(await admin.retryGroupedDeadLetter(operator, k.id, rx!.id)).toMatchObject({ status: 'retried' });
    expect(await admin.retryGroupedDeadLetter(operator, k.id, ry!.id)).toMatchObject({ status: 'retried' });
    expect(await conn.raw(k.ready, ['ZRANGE', k.ready, '0', '-1'])).toEqual(['g']);
    expect((await queue.receive(60_000, { max: 10 })).map((m) => m.payload)).toEqual(['y']);
    await queue.ack(f1!);
    expect(await conn.raw(k.ready, ['ZRANGE', k.ready, '0', '-1'])).toEqual(['f']);
    expect((await queue.receive(60_000, { max: 10 })).map((m) => [m.payload, m.deliveryCount])).toEqual([['x', 1]]);
  });

  it('with groupConcurrency configured, a fair group with room joins the ring at once; a bad groupConcurrency is refused when the admin is made', async () => {
    const name = uniqueQueue('gdl');
    const queue = grouped(name, { groupConcurrency: 3 });
    const k = keysOf(name);
    await deadLettered(queue, [['x', 'f']]);
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name, groupConcurrency: 3 }] });
    const [record] = (await admin.groupedDeadLetters(k.id)).items;
    await queue.send('f1', { groupId: 'f' });
    const [f1] = await queue.receive(60_000);
    expect(await admin.retryGroupedDeadLetter(operator, k.id, record!.id)).toMatchObject({ status: 'retried' });
    expect(await conn.raw(k.ready, ['ZRANGE', k.ready, '0', '-1'])).toEqual(['f']);
    expect((await queue.receive(60_000, { max: 10 })).map((m) => m.payload)).toEqual(['x']);
    await queue.ack(f1!);
    for (const groupConcurrency of [0, 1001, 1.5, '2']) {
      expect(() => new RespireAdmin(conn.client, { groupedQueues: [{ name, groupConcurrency: groupConcurrency as number }] })).toThrow(
        expect.objectContaining({ name: 'RespireValidationError' }),
      );
    }
  });

  it('reports missing and foreign records and leaves them; the ungrouped retry refuses a grouped record, the grouped retry an ungrouped one', async () => {
    const name = uniqueQueue('gdl');
    const queue = grouped(name);
    const k = keysOf(name);
    await deadLettered(queue, [['p', 'a']]);
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }], queues: [{ name: `${name}-plain` }], audit });
    const [grouped0] = (await admin.groupedDeadLetters(k.id)).items;
    const ungrouped = await addQueueRecord(conn, k.dead, 'no group');
    expect((await admin.groupedDeadLetters(k.id, { order: 'oldest' })).items.map((r) => r.kind)).toEqual(['queue', 'foreign']);
    expect(await admin.retryGroupedDeadLetter(operator, k.id, '1-1')).toEqual({ status: 'missing' });
    expect(await admin.retryGroupedDeadLetter(operator, k.id, ungrouped)).toEqual({ status: 'refused', reason: expect.stringContaining('no group field') });
    expect(await admin.retryAllGroupedDeadLetters(operator, k.id)).toEqual({ done: 1, failed: 1, aborted: false });
    expect((await range(conn, k.dead)).map(([id]) => id)).toEqual([ungrouped]);

    // A grouped record in an ungrouped queue's dead letters: refused there, nothing changed.
    const plainId = `{respire-queue:${name}-plain}:stream`;
    const plainDead = `{respire-queue:${name}-plain}:dead-letter`;
    const fields = (await range(conn, k.id)).length;
    const copied = String(await conn.raw(plainDead, ['XADD', plainDead, '*', 'payload', 'p', 'source_id', '1-1', 'delivery_count', '1', 'group', 'a']));
    expect(await admin.retryDeadLetter(operator, plainId, copied)).toEqual({ status: 'refused', reason: expect.stringContaining('group field') });
    expect((await range(conn, plainDead)).map(([id]) => id)).toEqual([copied]);
    expect(Number(await conn.raw(plainId, ['EXISTS', plainId]))).toBe(0);
    expect((await range(conn, k.id)).length).toBe(fields);
    expect(records.map((r) => [r.action, r.result])).toEqual([
      ['retry', 'missing'],
      ['retry', 'refused'],
      ['retry-all', 'ok'],
      ['retry', 'refused'],
    ]);
    expect(grouped0!.kind).toBe('queue');
  });

  it('a backlog of another type fails the retry before any write; delete, delete-all, and a viewer refused before any I/O', async () => {
    const name = uniqueQueue('gdl');
    const queue = grouped(name);
    const k = keysOf(name);
    await deadLettered(queue, [
      ['p1', 'a'],
      ['p2', 'b'],
      ['p3', 'c'],
    ]);
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }], audit });
    const ids = (await admin.groupedDeadLetters(k.id, { order: 'oldest' })).items.map((r) => r.id);
    await conn.raw(k.backlog('b'), ['SET', k.backlog('b'), 'not a list']);
    const streamBefore = await range(conn, k.id);
    await expect(admin.retryAllGroupedDeadLetters(operator, k.id)).rejects.toMatchObject({ name: 'RespireKeyTypeError', code: 'WRONG_TYPE' });
    expect((await range(conn, k.dead)).map(([id]) => id)).toEqual(ids);
    expect(await range(conn, k.id)).toEqual(streamBefore);
    expect(await conn.raw(k.ready, ['ZCARD', k.ready])).toBe(0);
    expect(Number(await conn.raw(k.backlog('a'), ['EXISTS', k.backlog('a')]))).toBe(0);

    // One name, one mode: while the ungrouped queue's stream of the name exists, the retry refuses.
    await conn.raw(k.backlog('b'), ['DEL', k.backlog('b')]);
    const ungrouped = `{respire-queue:${name}}:stream`;
    await conn.raw(ungrouped, ['XADD', ungrouped, '*', 'payload', 'x']);
    await expect(admin.retryGroupedDeadLetter(operator, k.id, ids[0]!)).rejects.toMatchObject({
      name: 'RespireKeyTypeError',
      message: expect.stringContaining('ungrouped queue'),
    });
    expect((await range(conn, k.dead)).map(([id]) => id)).toEqual(ids);
    expect(await range(conn, k.id)).toEqual(streamBefore);
    await conn.raw(ungrouped, ['DEL', ungrouped]);

    await expect(admin.retryGroupedDeadLetter(viewer, k.id, ids[0]!)).rejects.toMatchObject({ name: 'RespirePermissionError' });
    await expect(admin.deleteAllGroupedDeadLetters(operator, k.id, { pageSize: 0 })).rejects.toMatchObject({ name: 'RespireValidationError' });
    await expect(admin.groupedDeadLetters(k.id, { count: 0 })).rejects.toMatchObject({ name: 'RespireValidationError' });
    await expect(admin.deleteGroupedDeadLetter(operator, k.id, 'nope')).rejects.toMatchObject({ name: 'RespireValidationError' });
    expect(await admin.deleteGroupedDeadLetter(operator, k.id, ids[1]!)).toEqual({ status: 'deleted' });
    expect(await admin.deleteGroupedDeadLetter(operator, k.id, ids[1]!)).toEqual({ status: 'missing' });
    expect(await admin.deleteAllGroupedDeadLetters(operator, k.id)).toEqual({ done: 2, failed: 0, aborted: false });
    expect(Number(await conn.raw(k.dead, ['XLEN', k.dead]))).toBe(0);
    expect(records.map((r) => [r.action, r.result])).toEqual([
      ['retry-all', 'refused'],
      ['retry', 'refused'],
      ['retry', 'refused'],
      ['delete', 'ok'],
      ['delete', 'missing'],
      ['delete-all', 'ok'],
    ]);
  });

  it("the script with the queue's groupConcurrency: a fair group with room joins the ring at once, one at its limit does not", async () => {
    const name = uniqueQueue('gdl');
    const queue = grouped(name, { groupConcurrency: 2 });
    const k = keysOf(name);
    await deadLettered(queue, [
      ['x', 'f'],
      ['y', 'h'],
    ]);
    const [rx, ry] = (await admin0(name).groupedDeadLetters(k.id, { order: 'oldest' })).items.map((r) => r.id);
    await queue.sendMany(['f1', 'h1', 'h2'].map((payload) => ({ payload, groupId: payload[0]! })));
    // One message of a group per turn of the ring: h2 comes on the second receive.
    const taken = [...(await queue.receive(60_000, { max: 10 })), ...(await queue.receive(60_000, { max: 10 }))];
    expect(taken.map((m) => m.payload).sort()).toEqual(['f1', 'h1', 'h2']);
    const base = `{respire-queue:${name}}`;
    const retry = (id: string) =>
      scriptCalls.adminRetryGroupedDeadLetters(commandTarget(conn.client), {
        deadLetterStream: k.dead,
        stream: k.id,
        ready: k.ready,
        ungroupedStream: `${base}:stream`,
        inflight: `${base}:groups:in-flight`,
        wake: k.wake,
        backlogPrefix: `${base}:groups:group:`,
        concurrency: 2,
        recordIds: [id, id],
      });
    // f: one in flight of two, room: it joins. h: two in flight, at its limit: it waits for a settle.
    expect(await retry(rx!)).toEqual([{ status: 'retried', entryId: expect.any(String) }, { status: 'missing' }]);
    expect(await retry(ry!)).toEqual([{ status: 'retried', entryId: expect.any(String) }, { status: 'missing' }]);
    expect(await conn.raw(k.ready, ['ZRANGE', k.ready, '0', '-1'])).toEqual(['f']);
    expect((await queue.receive(60_000, { max: 10 })).map((m) => m.payload)).toEqual(['x']);
    await queue.ack(taken.find((m) => m.payload === 'h1')!);
    expect((await queue.receive(60_000, { max: 10 })).map((m) => m.payload)).toEqual(['y']);
  });

  const admin0 = (name: string) => new RespireAdmin(conn.client, { groupedQueues: [{ name }] });
});

/** Real Redis only: ACL users. */
describe('grouped dead letters on the real server: ACL refusals change nothing', () => {
  let conn: Connection;
  const url = inject('redisUrl');
  beforeAll(async () => void (conn = await standalone<RedisClientLike>(url)));
  afterAll(async () => conn.close());

  it('a user without RPUSH on the backlogs, or without XDEL on the dead letters, gets a permission error; nothing changed', async () => {
    const name = uniqueQueue('gdl');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, groups: {}, deliveryLimit: 1 });
    await queue.send('p', { groupId: 'a' });
    const [m] = await queue.receive(60_000);
    await queue.nack(m!);
    expect(await queue.receive(60_000)).toEqual([]);
    const base = `{respire-queue:${name}}:groups`;
    const id = `${base}:stream`;
    const dead = `${base}:dead-letter`;
    const [record] = await range(conn, dead);
    for (const rule of ['-rpush', '-xdel']) {
      const user = await createAclUser([url], `gdl-${Math.random().toString(36).slice(2, 8)}`, ['~*', '+@all', rule]);
      const limited = await standalone<RedisClientLike>(user.urlFor(url));
      try {
        const admin = new RespireAdmin(limited.client, { groupedQueues: [{ name }] });
        await expect(admin.retryGroupedDeadLetter(operator, id, record![0])).rejects.toMatchObject({
          name: 'RespirePermissionError',
          code: 'PERMISSION_DENIED',
        });
      } finally {
        await limited.close();
      }
    }
    expect(await range(conn, dead)).toEqual([record]);
    expect(Number(await conn.raw(id, ['XLEN', id]))).toBe(0);
  });
});
