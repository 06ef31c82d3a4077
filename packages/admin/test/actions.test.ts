// The admin's actions on every target: retries, deletes, bulk, pending, idle consumers, audit.
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin, isNotFound, type AuditRecord } from '../src/index.js';
import {
  addQueueRecord,
  addWorkerRecord,
  operator,
  pendingPair,
  pendingRows,
  range,
  recordingAudit,
  sleep,
  targets,
  uniqueKeys,
  uniqueQueue,
  viewer,
  type Connection,
} from './support.js';

/** Every action's effect on the keys, on node-redis 6 and 5, the Cluster and the fake server. */
describe.each(targets)('RespireAdmin actions on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('retries a worker dead letter: original fields (binary, in order, colliding names) appended to the source, record deleted, audited', async () => {
    const { stream, dead } = uniqueKeys();
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }], audit });
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    const keep = await addWorkerRecord(conn, dead, '1-0', ['k', 'keep']);
    const rid = await addWorkerRecord(conn, dead, '1-1', [binary, binary, '_respire.group', 'payload-field', 'k', 'v']);
    const result = await admin.retryDeadLetter(operator, stream, rid);
    expect(result.status).toBe('retried');
    const newId = (result as { newId: string }).newId;
    const raw = (await conn.raw(stream, ['XRANGE', stream, '-', '+'])) as [Buffer | string, (Buffer | string)[]][];
    expect(raw).toHaveLength(1);
    expect(String(raw[0]![0])).toBe(newId);
    const body = await admin.entry(stream, newId);
    expect(body!.fields[0]![0].equals(binary) && body!.fields[0]![1].equals(binary)).toBe(true);
    expect(body!.fields.slice(1).map(([f, v]) => `${f}=${v}`)).toEqual(['_respire.group=payload-field', 'k=v']);
    expect((await range(conn, dead)).map(([id]) => id)).toEqual([keep]);
    expect(await admin.retryDeadLetter(operator, stream, rid)).toEqual({ status: 'missing' });
    expect(records.map((r) => [r.action, r.result, r.actor, r.role, r.resource])).toEqual([
      ['retry', 'ok', 'alice', 'operator', stream],
      ['retry', 'missing', 'alice', 'operator', stream],
    ]);
    expect(records[0]!.target).toMatchObject({ recordId: rid, newId });
    expect(Math.abs(records[0]!.atMs - Date.now())).toBeLessThan(60_000);
  });

  it('refuses to retry a foreign record and a stream without a dead-letter stream; changes nothing', async () => {
    const { stream, dead } = uniqueKeys();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }, { stream: `${stream}:plain` }] });
    const foreign = String(await conn.raw(dead, ['XADD', dead, '*', '_respire.source_id', '1-1', 'k', 'v']));
    const noAttempt = await addWorkerRecord(conn, dead, '1-2', ['k', 'v'], { attempt: 'x' as unknown as number });
    expect(await admin.retryDeadLetter(operator, stream, foreign)).toMatchObject({ status: 'refused' });
    expect(await admin.retryDeadLetter(operator, stream, noAttempt)).toMatchObject({ status: 'refused' });
    expect(await admin.retryDeadLetter(operator, `${stream}:plain`, foreign)).toMatchObject({ status: 'refused' });
    expect(await range(conn, dead)).toHaveLength(2);
    expect(Number(await conn.raw(stream, ['EXISTS', stream]))).toBe(0);
  });

  it('retries a queue dead letter as a fresh message that a ReliableQueue receives again (delivery count 1)', async () => {
    const name = uniqueQueue();
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, deliveryLimit: 1 });
    const admin = new RespireAdmin(conn.client, { queues: [{ name }] });
    const id = `{respire-queue:${name}}:stream`;
    await queue.send('order 42', { deduplicationId: 'order-42' });
    const [first] = await queue.receive(60_000);
    await queue.nack(first!, 0);
    expect(await queue.receive(60_000)).toEqual([]); // dead-lettered by this receive
    const [record] = (await admin.deadLetters(id)).items;
    expect(record).toMatchObject({ kind: 'queue', sourceId: first!.id, deliveryCount: 1 });
    const retried = await admin.retryDeadLetter(operator, id, record!.id);
    expect(retried.status).toBe('retried');
    const [again] = await queue.receive(60_000);
    expect(again).toMatchObject({ payload: 'order 42', deliveryCount: 1, id: (retried as { newId: string }).newId });
    expect(await queue.ack(again!)).toBe(true);
    expect(await admin.queueStatus(id)).toMatchObject({ length: 0, inFlight: 0, deadLetters: 0 });
  });

  it('a 1 MiB binary payload (every byte value, invalid UTF-8) comes back intact and is retried intact', async () => {
    const name = uniqueQueue();
    const admin = new RespireAdmin(conn.client, { queues: [{ name }] });
    const id = `{respire-queue:${name}}:stream`;
    const payload = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 7 + 3) % 256;
    const rid = await addQueueRecord(conn, `{respire-queue:${name}}:dead-letter`, payload);
    const record = await admin.deadLetter(id, rid);
    expect(record!.kind === 'queue' && record!.payload.equals(payload)).toBe(true);
    const retried = await admin.retryDeadLetter(operator, id, rid);
    const body = await admin.entry(id, (retried as { newId: string }).newId);
    expect(body!.fields[0]![0].toString()).toBe('payload');
    expect(body!.fields[0]![1].equals(payload)).toBe(true);
  });

  it('refuses a queue record of another shape, and a source key of another type fails typed with nothing changed', async () => {
    const name = uniqueQueue();
    const admin = new RespireAdmin(conn.client, { queues: [{ name }] });
    const id = `{respire-queue:${name}}:stream`;
    const dead = `{respire-queue:${name}}:dead-letter`;
    const odd = String(await conn.raw(dead, ['XADD', dead, '*', 'payload', 'p', 'source_id', '1-1', 'delivery_count', 'five']));
    expect(await admin.retryDeadLetter(operator, id, odd)).toEqual({ status: 'refused', reason: 'delivery_count is not a whole number' });
    const good = await addQueueRecord(conn, dead, 'p');
    await conn.raw(id, ['SET', id, 'not a stream']);
    await expect(admin.retryDeadLetter(operator, id, good)).rejects.toMatchObject({ name: 'RespireKeyTypeError', code: 'WRONG_TYPE' });
    expect((await range(conn, dead)).map(([i]) => i)).toEqual([odd, good]);
    expect(String(await conn.raw(id, ['GET', id]))).toBe('not a stream');

    const { stream, dead: wdead } = uniqueKeys();
    const worker = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: wdead }] });
    const rid = await addWorkerRecord(conn, wdead, '1-0', ['k', 'v']);
    await conn.raw(stream, ['HSET', stream, 'k', 'v']);
    await expect(worker.retryDeadLetter(operator, stream, rid)).rejects.toMatchObject({ name: 'RespireKeyTypeError' });
    expect((await range(conn, wdead)).map(([i]) => i)).toEqual([rid]);
  });

  it('deletes one dead letter; a second delete is missing', async () => {
    const name = uniqueQueue();
    const admin = new RespireAdmin(conn.client, { queues: [{ name }] });
    const dead = `{respire-queue:${name}}:dead-letter`;
    const rid = await addQueueRecord(conn, dead, 'p');
    const other = await addQueueRecord(conn, dead, 'q');
    const id = `{respire-queue:${name}}:stream`;
    expect(await admin.deleteDeadLetter(operator, id, rid)).toEqual({ status: 'deleted' });
    expect(await admin.deleteDeadLetter(operator, id, rid)).toEqual({ status: 'missing' });
    expect((await range(conn, dead)).map(([i]) => i)).toEqual([other]);
  });

  it('retry-all goes oldest first in pages, reports progress, leaves foreign records, and never loops over records appended meanwhile', async () => {
    const { stream, dead } = uniqueKeys();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }] });
    for (let i = 0; i < 7; i++) await addWorkerRecord(conn, dead, `1-${i}`, ['i', String(i)]);
    await conn.raw(dead, ['XADD', dead, '*', 'foreign', 'yes']);
    const progress: { done: number; failed: number }[] = [];
    let appended = false;
    const result = await admin.retryAllDeadLetters(operator, stream, {
      pageSize: 3,
      onProgress: (p) => {
        progress.push(p);
        // A retried entry failing again while the action runs: a new record that must not be touched.
        if (!appended) {
          appended = true;
          void addWorkerRecord(conn, dead, '2-0', ['again', '1']);
        }
      },
    });
    expect(result).toEqual({ done: 7, failed: 1, aborted: false });
    expect(progress).toEqual([
      { done: 3, failed: 0 },
      { done: 6, failed: 0 },
      { done: 7, failed: 1 },
    ]);
    expect((await range(conn, stream)).map(([, f]) => f.join('='))).toEqual(['i=0', 'i=1', 'i=2', 'i=3', 'i=4', 'i=5', 'i=6']);
    expect((await range(conn, dead)).map(([, f]) => f[0])).toEqual(['foreign', '_respire.source_id']);
  });

  it('delete-all honours limit and an AbortSignal between pages', async () => {
    const name = uniqueQueue();
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { queues: [{ name }], audit });
    const id = `{respire-queue:${name}}:stream`;
    const dead = `{respire-queue:${name}}:dead-letter`;
    for (let i = 0; i < 10; i++) await addQueueRecord(conn, dead, String(i));
    expect(await admin.deleteAllDeadLetters(operator, id, { limit: 4, pageSize: 3 })).toEqual({ done: 4, failed: 0, aborted: false });
    expect(await range(conn, dead)).toHaveLength(6);
    const controller = new AbortController();
    const result = await admin.deleteAllDeadLetters(operator, id, { pageSize: 2, signal: controller.signal, onProgress: () => controller.abort() });
    expect(result).toEqual({ done: 2, failed: 0, aborted: true });
    expect((await range(conn, dead)).map(([, f]) => f[1])).toEqual(['6', '7', '8', '9']);
    expect(await admin.deleteAllDeadLetters(operator, id)).toEqual({ done: 4, failed: 0, aborted: false });
    expect(Number(await conn.raw(dead, ['XLEN', dead]))).toBe(0);
    expect(records.map((r) => [r.action, r.result, r.target.done])).toEqual([
      ['delete-all', 'ok', 4],
      ['delete-all', 'ok', 2],
      ['delete-all', 'ok', 4],
    ]);
    expect(records[1]!.target.aborted).toBe('true');
  });

  it('releases a pending entry fenced by count and owner: delivery count kept, idle past any minimum idle time', async () => {
    const { stream } = uniqueKeys();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }] });
    const id = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'v']));
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XCLAIM', stream, 'g', 'c1', '0', id]); // delivery count 2

    // Stale views: the count or the owner changed since the page was rendered.
    expect(await admin.releasePending(operator, stream, 'g', id, { deliveryCount: 1, consumer: 'c1' })).toEqual({
      status: 'changed',
      deliveryCount: 2,
      consumer: 'c1',
    });
    expect(await admin.releasePending(operator, stream, 'g', id, { deliveryCount: 2, consumer: 'c9' })).toEqual({
      status: 'changed',
      deliveryCount: 2,
      consumer: 'c1',
    });
    const before = (await pendingRows(conn, stream, 'g'))[0]!;
    expect(before.idle).toBeLessThan(60_000);

    expect(await admin.releasePending(operator, stream, 'g', id, { deliveryCount: 2, consumer: 'c1' })).toEqual({ status: 'released' });
    const after = (await pendingRows(conn, stream, 'g'))[0]!;
    expect(after).toMatchObject({ id, consumer: 'c1', count: 2 });
    expect(after.idle).toBeGreaterThanOrEqual(2_147_483_647);
    // Recovery with the largest minimum idle time a worker accepts claims it at once.
    const claimed = (await conn.raw(stream, ['XAUTOCLAIM', stream, 'g', 'c2', '2147483647', '0-0', 'COUNT', '10'])) as unknown[];
    expect((claimed[1] as unknown[][]).map((e) => String(e[0]))).toEqual([id]);
    expect(await admin.releasePending(operator, stream, 'g', '1-1', { deliveryCount: 1, consumer: 'c1' })).toEqual({ status: 'missing' });
    const noGroup = await admin.releasePending(operator, stream, 'gg', id, { deliveryCount: 1, consumer: 'c1' }).catch((e: unknown) => e);
    expect(isNotFound(noGroup)).toEqual({ kind: 'group', name: 'gg', known: ['g'] });
  });

  it('acks a pending entry fenced by count and owner, deleting its body when asked', async () => {
    const { stream } = uniqueKeys();
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }], audit });
    const [a, b] = await pendingPair(conn, stream, 'c1');
    expect(await admin.ackPending(operator, stream, 'g', a, { deliveryCount: 2, consumer: 'c1' })).toEqual({
      status: 'changed',
      deliveryCount: 1,
      consumer: 'c1',
    });
    expect(await pendingRows(conn, stream, 'g')).toHaveLength(2);
    expect(await admin.ackPending(operator, stream, 'g', a, { deliveryCount: 1, consumer: 'c1' })).toEqual({ status: 'acknowledged' });
    expect(await admin.ackPending(operator, stream, 'g', b, { deliveryCount: 1, consumer: 'c1' }, { deleteEntry: true })).toEqual({
      status: 'acknowledged',
      entryDeleted: true,
    });
    expect(await pendingRows(conn, stream, 'g')).toEqual([]);
    expect((await range(conn, stream)).map(([id]) => id)).toEqual([a]);
    expect(await admin.ackPending(operator, stream, 'g', a, { deliveryCount: 1, consumer: 'c1' })).toEqual({ status: 'missing' });
    expect(records.map((r) => r.result)).toEqual(['changed', 'ok', 'ok', 'missing']);
    expect(records[0]!.detail).toContain("'c1' at delivery count 1");
  });

  it('removes only idle consumers without pending entries, and names the idle ones kept for their pending entries', async () => {
    const { stream } = uniqueKeys();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }] });
    await conn.raw(stream, ['XADD', stream, '*', 'k', 'v']);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'holder', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XGROUP', 'CREATECONSUMER', stream, 'g', 'old-1']);
    await conn.raw(stream, ['XGROUP', 'CREATECONSUMER', stream, 'g', 'old-2']);
    await sleep(60);
    await conn.raw(stream, ['XGROUP', 'CREATECONSUMER', stream, 'g', 'fresh']);
    const result = await admin.removeIdleConsumers(operator, stream, 'g', 50);
    expect([...result.removed].sort()).toEqual(['old-1', 'old-2']);
    expect(result.keptWithPending).toEqual(['holder']);
    expect((await admin.consumers(stream, 'g')).items.map((c) => c.name).sort()).toEqual(['fresh', 'holder']);
    expect(await pendingRows(conn, stream, 'g')).toHaveLength(1);
    expect(isNotFound(await admin.removeIdleConsumers(operator, stream, 'gg', 50).catch((e: unknown) => e))).toEqual({
      kind: 'group',
      name: 'gg',
      known: ['g'],
    });
  });

  it('trims the entries every group has acknowledged, bounded by max, audited; a viewer and a bad max are refused before any I/O', async () => {
    const { stream } = uniqueKeys();
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }], audit });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(String(await conn.raw(stream, ['XADD', stream, '*', 'i', String(i)])));
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'a', '0']);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'b', '0']);
    // a has acknowledged all five; b has read three and acknowledged the first two.
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'a', 'c', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XACK', stream, 'a', ...ids]);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'b', 'c', 'COUNT', '3', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XACK', stream, 'b', ids[0]!, ids[1]!]);
    expect(await admin.trimAcknowledged(operator, stream, { max: 1 })).toEqual({ trimmed: 1 });
    expect(await admin.trimAcknowledged(operator, stream)).toEqual({ trimmed: 1 });
    expect(await admin.trimAcknowledged(operator, stream)).toEqual({ trimmed: 0 });
    expect((await range(conn, stream)).map(([id]) => id)).toEqual(ids.slice(2));
    expect(records.map((r) => [r.action, r.result, r.target.trimmed])).toEqual([
      ['trim-acknowledged', 'ok', 1],
      ['trim-acknowledged', 'ok', 1],
      ['trim-acknowledged', 'ok', 0],
    ]);
    records.length = 0;
    await expect(admin.trimAcknowledged(viewer, stream)).rejects.toMatchObject({ name: 'RespirePermissionError', code: 'PERMISSION_DENIED' });
    const bad = await admin.trimAcknowledged(operator, stream, { max: 1001 }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'max' });
    expect((await range(conn, stream)).length).toBe(3);
    // The viewer's refusal is audited (as every refusal); the bad max never reached the auditor.
    expect(records.map((r) => [r.action, r.result])).toEqual([['trim-acknowledged', 'refused']]);
  });

  it('appends audit records to the audit stream; a failed append is reported to the logger and the action stands; a throwing logger is contained', async () => {
    const { stream, dead, tag } = uniqueKeys();
    const auditKey = `{${tag}}:audit`;
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }], audit, auditStream: auditKey });
    const rid = await addWorkerRecord(conn, dead, '1-0', ['k', 'v']);
    await admin.deleteDeadLetter(operator, stream, rid);
    const fields = (await range(conn, auditKey))[0]![1];
    const entry: Record<string, string> = Object.fromEntries(fields.flatMap((_, i) => (i % 2 ? [] : [[fields[i]!, fields[i + 1]!]])));
    expect(entry).toMatchObject({ actor: 'alice', role: 'operator', action: 'delete', resource: stream, result: 'ok', detail: '' });
    expect(JSON.parse(entry.target!)).toEqual({ recordId: rid });
    expect(Number(entry.at)).toBe(records[0]!.atMs);
    expect(records[0]!.auditStreamError).toBeUndefined();

    // The audit key holds a string: the append fails, the deletion stands.
    const brokenKey = `{${tag}}:audit-broken`;
    await conn.raw(brokenKey, ['SET', brokenKey, 'x']);
    const broken = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }], audit, auditStream: brokenKey });
    const rid2 = await addWorkerRecord(conn, dead, '1-1', ['k', 'v']);
    expect(await broken.deleteDeadLetter(operator, stream, rid2)).toEqual({ status: 'deleted' });
    expect(records[1]).toMatchObject({ action: 'delete', result: 'ok', auditStreamError: expect.stringMatching(/WRONGTYPE/) });

    const throwing = new RespireAdmin(conn.client, {
      streams: [{ stream, deadLetterStream: dead }],
      audit: () => {
        throw new Error('logger down');
      },
    });
    const rid3 = await addWorkerRecord(conn, dead, '1-2', ['k', 'v']);
    expect(await throwing.retryDeadLetter(operator, stream, rid3)).toMatchObject({ status: 'retried' });
  });

  it('a viewer is refused with a typed permission error and audited; nothing changes', async () => {
    const { stream, dead } = uniqueKeys();
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }], audit });
    const rid = await addWorkerRecord(conn, dead, '1-0', ['k', 'v']);
    await expect(admin.retryDeadLetter(viewer, stream, rid)).rejects.toMatchObject({ name: 'RespirePermissionError', code: 'PERMISSION_DENIED' });
    await expect(admin.deleteAllDeadLetters(viewer, stream)).rejects.toMatchObject({ name: 'RespirePermissionError' });
    expect(await range(conn, dead)).toHaveLength(1);
    expect(records.map((r: AuditRecord) => [r.actor, r.role, r.action, r.result])).toEqual([
      ['victor', 'viewer', 'retry', 'refused'],
      ['victor', 'viewer', 'delete-all', 'refused'],
    ]);
  });
});
