// Hostile input and odd data: cursor ends, big IDs, empty consumers, foreign records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin } from '../src/index.js';
import {
  addQueueRecord,
  addWorkerRecord,
  onFakeServer,
  operator,
  pendingPair,
  pendingRows,
  range,
  recordingAudit,
  targets,
  uniqueKeys,
  uniqueQueue,
  type Connection,
} from './support.js';

const MAX_ID = '18446744073709551615-18446744073709551615';

/** Hostile arguments and hostile data, on node-redis 6 and 5, the Cluster and the fake server. */
describe.each(targets)('RespireAdmin against hostile input on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('a cursor at either end of the ID space reads an empty page (no server error), in both orders and for pending entries', async () => {
    const { stream, dead } = uniqueKeys('edge');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }] });
    await addWorkerRecord(conn, dead, '1-0', ['k', 'v']);
    const id = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'v']));
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', stream, '>']);
    expect(await admin.deadLetters(stream, { cursor: '0-0' })).toMatchObject({ items: [], next: undefined });
    expect(await admin.deadLetters(stream, { cursor: MAX_ID, order: 'oldest' })).toMatchObject({ items: [], next: undefined });
    expect((await admin.deadLetters(stream, { cursor: MAX_ID })).items).toHaveLength(1);
    expect((await admin.deadLetters(stream, { cursor: '0-0', order: 'oldest' })).items).toHaveLength(1);
    expect(await admin.pending(stream, 'g', { cursor: MAX_ID })).toMatchObject({ items: [], next: undefined });
    expect((await admin.pending(stream, 'g', { cursor: '0-0' })).items.map((p) => p.id)).toEqual([id]);
    expect(await admin.entry(stream, MAX_ID)).toBeNull();
    expect(await admin.deadLetter(stream, '0-0')).toBeNull();
  });

  it('entry IDs are read as numbers: leading zeros address the same record, and the audit names it canonically', async () => {
    const name = uniqueQueue();
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { queues: [{ name }], audit });
    const id = `{respire-queue:${name}}:stream`;
    const rid = await addQueueRecord(conn, `{respire-queue:${name}}:dead-letter`, 'p');
    const [ms, seq] = rid.split('-');
    expect(await admin.deadLetter(id, `000${ms}-00${seq}`)).toMatchObject({ id: rid, kind: 'queue' });
    expect(await admin.deleteDeadLetter(operator, id, `0${ms}-0${seq}`)).toEqual({ status: 'deleted' });
    expect(records[0]!.target).toEqual({ recordId: rid });
  });

  it('an entry owned by the consumer named "" (Redis allows it) can be listed, released and acknowledged', async () => {
    const { stream } = uniqueKeys('empty');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }] });
    const [a, b] = await pendingPair(conn, stream, '');
    expect((await admin.pending(stream, 'g', { consumer: '' })).items.map((p) => [p.id, p.consumer])).toEqual([
      [a, ''],
      [b, ''],
    ]);
    expect(await admin.releasePending(operator, stream, 'g', a, { deliveryCount: 1, consumer: '' })).toEqual({ status: 'released' });
    expect(await admin.ackPending(operator, stream, 'g', b, { deliveryCount: 1, consumer: '' })).toEqual({ status: 'acknowledged' });
    expect((await pendingRows(conn, stream, 'g')).map((p) => p.id)).toEqual([a]);
  });

  it('ack with deleteEntry deletes the body only when no other group still needs it (pending there, or not yet delivered to it)', async () => {
    const { stream } = uniqueKeys('groups');
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }], audit });
    const a = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'a']));
    const b = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'b']));
    const c = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'c']));
    for (const g of ['poisoned', 'billing', 'audit']) await conn.raw(stream, ['XGROUP', 'CREATE', stream, g, '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'poisoned', 'p', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'billing', 'b', 'COUNT', '2', 'STREAMS', stream, '>']); // a, b pending in billing
    await conn.raw(stream, ['XACK', stream, 'billing', a]);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'audit', 'x', 'COUNT', '1', 'STREAMS', stream, '>']); // a delivered to audit
    await conn.raw(stream, ['XACK', stream, 'audit', a]);
    const expected = { deliveryCount: 1, consumer: 'p' };
    // a: every other group has read and acknowledged it -> deleted.
    expect(await admin.ackPending(operator, stream, 'poisoned', a, expected, { deleteEntry: true })).toEqual({ status: 'acknowledged', entryDeleted: true });
    // b: pending in billing, not yet delivered to audit -> acknowledged in poisoned only, body kept.
    expect(await admin.ackPending(operator, stream, 'poisoned', b, expected, { deleteEntry: true })).toEqual({
      status: 'acknowledged',
      entryKeptFor: ['audit', 'billing'],
    });
    // c: not yet delivered to billing or audit -> kept.
    expect(await admin.ackPending(operator, stream, 'poisoned', c, expected, { deleteEntry: true })).toEqual({
      status: 'acknowledged',
      entryKeptFor: ['audit', 'billing'],
    });
    expect((await range(conn, stream)).map(([id]) => id)).toEqual([b, c]);
    expect(await pendingRows(conn, stream, 'poisoned')).toEqual([]);
    expect((await pendingRows(conn, stream, 'billing')).map((p) => p.id)).toEqual([b]);
    expect(records[1]!.detail).toMatch(/kept.*billing/);
  });

  it('discovery finds queues whose names hold glob characters, newlines and backslashes, and a queue whose ready stream is gone but whose dead letters remain', async () => {
    const tag = uniqueQueue('glob');
    const names = [`${tag}*`, `${tag}?x`, `${tag}[ab]`, `${tag}\\`, `${tag}\nline`, `${tag} space`];
    for (const name of names) await conn.raw(`{respire-queue:${name}}:stream`, ['XADD', `{respire-queue:${name}}:stream`, '*', 'payload', 'x']);
    const orphan = uniqueQueue('orphan');
    const orphanDead = `{respire-queue:${orphan}}:dead-letter`;
    const rid = await addQueueRecord(conn, orphanDead, 'lost?');
    const admin = new RespireAdmin(conn.client, { discoverQueues: { scanCount: 1000, maxPages: 1000 } });
    const found = (await admin.resources()).resources.filter((r) => r.kind === 'queue').map((r) => (r.kind === 'queue' ? r.name : ''));
    for (const name of [...names, orphan]) expect(found.filter((n) => n === name)).toEqual([name]);
    for (const name of names) expect(await admin.queueStatus(`{respire-queue:${name}}:stream`)).toMatchObject({ length: 1 });
    const id = `{respire-queue:${orphan}}:stream`;
    expect(await admin.queueStatus(id)).toMatchObject({ length: 0, deadLetters: 1 });
    expect(await admin.retryDeadLetter(operator, id, rid)).toMatchObject({ status: 'retried' });
    expect(Number(await conn.raw(id, ['XLEN', id]))).toBe(1);
  });

  it('a key of another type at each key: every read and action fails typed (RespireKeyTypeError) and changes nothing', async () => {
    const { stream, dead } = uniqueKeys('types');
    const name = uniqueQueue('types');
    const q = { stream: `{respire-queue:${name}}:stream`, deadlines: `{respire-queue:${name}}:deadlines`, dead: `{respire-queue:${name}}:dead-letter` };
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }], queues: [{ name }] });
    const expected = { deliveryCount: 1, consumer: 'c' };
    const calls: [string, string, () => Promise<unknown>][] = [
      [stream, 'hash', () => admin.streamStatus(stream)],
      [stream, 'hash', () => admin.consumers(stream, 'g')],
      [stream, 'hash', () => admin.pending(stream, 'g')],
      [stream, 'hash', () => admin.entry(stream, '1-1')],
      [stream, 'hash', () => admin.releasePending(operator, stream, 'g', '1-1', expected)],
      [stream, 'hash', () => admin.ackPending(operator, stream, 'g', '1-1', expected, { deleteEntry: true })],
      [stream, 'hash', () => admin.removeIdleConsumers(operator, stream, 'g', 1)],
      [dead, 'string', () => admin.deadLetters(stream)],
      [dead, 'string', () => admin.deleteDeadLetter(operator, stream, '1-1')],
      [dead, 'string', () => admin.retryDeadLetter(operator, stream, '1-1')],
      [dead, 'string', () => admin.retryAllDeadLetters(operator, stream)],
      [q.stream, 'hash', () => admin.queueStatus(q.stream)],
      [q.deadlines, 'string', () => admin.queueStatus(q.stream)],
      [q.deadlines, 'string', () => admin.queueDeliveries(q.stream)],
      [q.dead, 'hash', () => admin.deleteAllDeadLetters(operator, q.stream)],
    ];
    for (const [key, type, call] of calls) {
      const write = type === 'hash' ? ['HSET', key, 'f', 'v'] : ['SET', key, 'v'];
      await conn.raw(key, write);
      await expect(call(), `${key} as a ${type}`).rejects.toMatchObject({ name: 'RespireKeyTypeError', code: 'WRONG_TYPE' });
      expect(String(await conn.raw(key, ['TYPE', key]))).toBe(type);
      await conn.raw(key, ['DEL', key]);
    }
  });

  it('queue dead letters of another shape (an extra field, fields reordered or repeated) are foreign and never retried', async () => {
    const name = uniqueQueue('qshape');
    const admin = new RespireAdmin(conn.client, { queues: [{ name }] });
    const id = `{respire-queue:${name}}:stream`;
    const dead = `{respire-queue:${name}}:dead-letter`;
    const shapes = [
      ['payload', 'p', 'source_id', '1-1', 'delivery_count', '5', 'extra', 'x'],
      ['source_id', '1-1', 'payload', 'p', 'delivery_count', '5'],
      ['payload', 'p', 'payload', 'q', 'delivery_count', '5'],
      ['payload', 'p', 'source_id', '1-1'],
      ['payload', 'p', 'source_id', '1-1', 'delivery_count', '-1'],
    ];
    const ids: string[] = [];
    for (const fields of shapes) ids.push(String(await conn.raw(dead, ['XADD', dead, '*', ...fields])));
    expect((await admin.deadLetters(id, { order: 'oldest' })).items.map((r) => r.kind)).toEqual(shapes.map(() => 'foreign'));
    for (const rid of ids) expect(await admin.retryDeadLetter(operator, id, rid)).toMatchObject({ status: 'refused' });
    expect(await admin.retryAllDeadLetters(operator, id)).toEqual({ done: 0, failed: shapes.length, aborted: false });
    expect(Number(await conn.raw(dead, ['XLEN', dead]))).toBe(shapes.length);
    expect(Number(await conn.raw(id, ['EXISTS', id]))).toBe(0);
  });

  it('overview shows every other resource when one is broken (a key of another type), and names the broken one', async () => {
    const good = uniqueQueue('good');
    const bad = uniqueQueue('bad');
    const { stream, dead } = uniqueKeys('ov');
    const admin = new RespireAdmin(conn.client, { queues: [{ name: good }, { name: bad }], streams: [{ stream, deadLetterStream: dead }] });
    await conn.raw(`{respire-queue:${good}}:stream`, ['XADD', `{respire-queue:${good}}:stream`, '*', 'payload', 'x']);
    await conn.raw(`{respire-queue:${bad}}:deadlines`, ['SET', `{respire-queue:${bad}}:deadlines`, 'not a sorted set']);
    await conn.raw(dead, ['HSET', dead, 'k', 'v']);
    const overview = await admin.overview();
    expect(overview.queues.map((q) => [q.resource.name, q.length])).toEqual([[good, 1]]);
    expect(overview.streams).toEqual([]);
    expect(overview.unavailable.map((u) => [u.resource.id, u.code])).toEqual([
      [`{respire-queue:${bad}}:stream`, 'WRONG_TYPE'],
      [stream, 'WRONG_TYPE'],
    ]);
    expect(overview.unavailable[0]!.message).toMatch(/deadlines|WRONGTYPE|another type/);
  });

  it('records of every hostile shape are read and retried alike: the view calls foreign exactly what retry refuses', async () => {
    const { stream, dead } = uniqueKeys('shape');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }] });
    const meta = ['_respire.source_id', '1-1', '_respire.group', 'g', '_respire.attempt', '2', '_respire.reason', 'nack', '_respire.exception_type', ''];
    const swap = (i: number, j: number) => {
      const m = [...meta];
      [m[2 * i], m[2 * j]] = [m[2 * j]!, m[2 * i]!];
      [m[2 * i + 1], m[2 * j + 1]] = [m[2 * j + 1]!, m[2 * i + 1]!];
      return m;
    };
    const shapes: Record<string, (string | Buffer)[]> = {
      valid: [...meta, 'k', 'v'],
      'binary original fields': [...meta, Buffer.from([0xff, 0x00]), Buffer.from([0xc3, 0x28])],
      'pairs out of order': [...swap(1, 2), 'k', 'v'],
      'a duplicated pair': [...meta.slice(0, 4), ...meta.slice(2, 4), ...meta.slice(6), 'k', 'v'],
      'no original fields': [...meta],
      'attempt not a number': [...meta.slice(0, 5), ' 2', ...meta.slice(6), 'k', 'v'],
      'attempt with a newline': [...meta.slice(0, 5), '2\n', ...meta.slice(6), 'k', 'v'],
      'a metadata name in other bytes': [Buffer.from('_RESPIRE.source_id'), '1-1', ...meta.slice(2), 'k', 'v'],
      'a queue record': ['payload', 'x', 'source_id', '1-1', 'delivery_count', '5'],
    };
    const ids: Record<string, string> = {};
    for (const [name, fields] of Object.entries(shapes)) ids[name] = String(await conn.raw(dead, ['XADD', dead, '*', ...fields]));
    const page = await admin.deadLetters(stream, { order: 'oldest', count: 100 });
    const kinds = Object.fromEntries(Object.keys(shapes).map((name, i) => [name, page.items[i]!.kind]));
    const retried: string[] = [];
    for (const name of Object.keys(shapes)) {
      const result = await admin.retryDeadLetter(operator, stream, ids[name]!);
      expect([name, result.status]).toEqual([name, kinds[name] === 'worker' ? 'retried' : 'refused']);
      if (result.status === 'retried') retried.push(result.newId);
    }
    expect(
      Object.entries(kinds)
        .filter(([, k]) => k === 'worker')
        .map(([n]) => n),
    ).toEqual(['valid', 'binary original fields']);
    // Exactly the original fields, in order, bytes intact.
    const bodies = await Promise.all(retried.map((id) => admin.entry(stream, id)));
    expect(bodies.map((b) => b!.fields.map(([f, v]) => [f.toString('hex'), v.toString('hex')]))).toEqual([[['6b', '76']], [['ff00', 'c328']]]);
    expect(Number(await conn.raw(stream, ['XLEN', stream]))).toBe(2);
    expect(Number(await conn.raw(dead, ['XLEN', dead]))).toBe(Object.keys(shapes).length - 2);
  });
});

/** Redis 8.8 (modelled by the fake server): a worker's XNACK leaves an entry pending to nobody (owner ""). */
describe('RespireAdmin on the fake server as Redis 8.8 (XNACK)', () => {
  const fake = onFakeServer('8.8');

  it('an unowned entry (XNACKed, owner "") can be acknowledged and released', async () => {
    const { stream } = uniqueKeys('xnack');
    const admin = new RespireAdmin(fake.conn.client, { streams: [{ stream }] });
    const [a, b] = await pendingPair(fake.conn, stream, 'c');
    await fake.conn.raw(stream, ['XNACK', stream, 'g', 'FAIL', 'IDS', '2', a, b]);
    const page = await admin.pending(stream, 'g');
    expect(page.items.map((p) => [p.id, p.consumer, p.deliveryCount])).toEqual([
      [a, '', 1],
      [b, '', 1],
    ]);
    expect(await admin.ackPending(operator, stream, 'g', a, { deliveryCount: 1, consumer: '' })).toEqual({ status: 'acknowledged' });
    expect(await admin.releasePending(operator, stream, 'g', b, { deliveryCount: 1, consumer: '' })).toEqual({ status: 'released' });
    expect((await pendingRows(fake.conn, stream, 'g')).map((p) => [p.id, p.count])).toEqual([[b, 1]]);
  });
});
