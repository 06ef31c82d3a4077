// The admin against a real server: workers, cross-slot retries, ACL users.
import { createAclUser, redisAtLeast, standalone } from '@respire/harness';
import type { RedisClientLike } from '@respire/core-scripts';
import { StreamWorker, type StreamEntry } from '@respire/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RespireAdmin } from '../src/index.js';
import { addWorkerRecord, eventually, operator, pendingRows, range, sleep, targets, uniqueKeys, type Connection } from './support.js';

/** Retry end to end: a real StreamWorker dead-letters an entry, the admin retries it, the worker processes it again. */
describe.each(targets.filter((t) => t.name !== 'standalone node-redis 5'))('retry end to end with a running StreamWorker on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('the retried entry is handled again and acknowledged', async () => {
    const { stream, dead } = uniqueKeys('e2e');
    let fixed = false;
    const handled: { order: string; attempt: number; fixed: boolean }[] = [];
    const worker = new StreamWorker<StreamEntry>({
      client: conn.client,
      stream,
      group: 'fulfil',
      deadLetterStream: dead,
      deliveryLimit: 1,
      readWaitMs: 100,
      handler: (entry) => {
        handled.push({ order: entry.getString('order')!, attempt: entry.deliveryCount, fixed });
        return fixed ? 'ack' : 'nack';
      },
    });
    await worker.start();
    try {
      const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }] });
      await conn.raw(stream, ['XADD', stream, '*', 'order', '42', 'traceparent', 'none']);
      const record = await eventually(async () => (await admin.deadLetters(stream)).items[0]);
      expect(record).toMatchObject({ kind: 'worker', group: 'fulfil', attempt: 1, reason: 'nack' });
      fixed = true;
      const result = await admin.retryDeadLetter(operator, stream, record!.id);
      expect(result.status).toBe('retried');
      await eventually(() => handled.length === 2);
      expect(handled).toEqual([
        { order: '42', attempt: 1, fixed: false },
        { order: '42', attempt: 1, fixed: true },
      ]);
      await eventually(async () => (await pendingRows(conn, stream, 'fulfil')).length === 0);
      expect(await range(conn, dead)).toEqual([]);
      const status = await admin.streamStatus(stream);
      expect(status).toMatchObject({ length: 2, deadLetters: 0 });
      expect(status.groups[0]).toMatchObject({ name: 'fulfil', pending: 0, lag: 0 });
    } finally {
      await worker.stop(2000);
    }
  });

  it('a released pending entry is recovered by the worker at once, with its delivery count kept until that claim', async () => {
    const { stream } = uniqueKeys('rel');
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    const id = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'v']));
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'crashed-host-0', 'STREAMS', stream, '>']);
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }] });
    const seen: number[] = [];
    const worker = new StreamWorker<StreamEntry>({
      client: conn.client,
      stream,
      group: 'g',
      readWaitMs: 100,
      minimumIdleTimeMs: 3_600_000, // an hour: only the release makes it recoverable now
      recoveryPollIntervalMs: 100,
      handler: (entry) => (seen.push(entry.deliveryCount), 'ack'),
    });
    await worker.start();
    try {
      await sleep(300);
      expect(seen).toEqual([]);
      expect(await admin.releasePending(operator, stream, 'g', id, { deliveryCount: 1, consumer: 'crashed-host-0' })).toEqual({ status: 'released' });
      await eventually(() => seen.length === 1);
      expect(seen).toEqual([2]);
      await eventually(async () => (await pendingRows(conn, stream, 'g')).length === 0);
    } finally {
      await worker.stop(2000);
    }
  });
});

/** A worker dead-letter stream an operator configured in another slot: append first, then delete. */
describe.each(targets.filter((t) => t.name !== 'standalone node-redis 5'))('cross-slot retry on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('appends the original fields to the source and then deletes the record (single and bulk)', async () => {
    const a = uniqueKeys('src');
    const b = uniqueKeys('dlq');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream: a.stream, deadLetterStream: b.dead }] });
    expect((await admin.resource(a.stream)).kind === 'stream' && ((await admin.resource(a.stream)) as { retryAtomic: boolean }).retryAtomic).toBe(false);
    const r1 = await addWorkerRecord(conn, b.dead, '1-0', ['k', Buffer.from([0xff, 0x00])]);
    const result = await admin.retryDeadLetter(operator, a.stream, r1);
    expect(result.status).toBe('retried');
    const body = await admin.entry(a.stream, (result as { newId: string }).newId);
    expect(body!.fields[0]![1].equals(Buffer.from([0xff, 0x00]))).toBe(true);
    expect(await range(conn, b.dead)).toEqual([]);
    for (let i = 0; i < 5; i++) await addWorkerRecord(conn, b.dead, `2-${i}`, ['i', String(i)]);
    await conn.raw(b.dead, ['XADD', b.dead, '*', 'foreign', '1']);
    expect(await admin.retryAllDeadLetters(operator, a.stream, { pageSize: 2 })).toEqual({ done: 5, failed: 1, aborted: false });
    expect((await range(conn, a.stream)).map(([, f]) => f.join('='))).toEqual(['k=\ufffd\u0000', 'i=0', 'i=1', 'i=2', 'i=3', 'i=4']);
    expect(await range(conn, b.dead)).toHaveLength(1);
  });
});

/** Real Redis only: ACL users (the fake server's ACL model is not the subject here), version-gated IDMP. */
describe('on the real server: ACL refusals change nothing; a repeated cross-slot retry', () => {
  let conn: Connection;
  const url = inject('redisUrl');
  const server = { version: inject('redisVersion'), flavour: inject('redisFlavour') };
  beforeAll(async () => void (conn = await standalone<RedisClientLike>(url)));
  afterAll(async () => conn.close());

  async function as(rules: string[]): Promise<Connection> {
    const user = await createAclUser([url], `admin-${Math.random().toString(36).slice(2, 8)}`, rules);
    return standalone<RedisClientLike>(user.urlFor(url));
  }

  it('a user without XADD on the source gets a typed permission error; the record and the source are unchanged', async () => {
    const { stream, dead, tag } = uniqueKeys('acl');
    await conn.raw(stream, ['XADD', stream, '*', 'existing', '1']);
    const rid = await addWorkerRecord(conn, dead, '1-0', ['k', 'v']);
    const limited = await as([`~{${tag}}:*`, '+@all', '-xadd']);
    try {
      const admin = new RespireAdmin(limited.client, { streams: [{ stream, deadLetterStream: dead }] });
      await expect(admin.retryDeadLetter(operator, stream, rid)).rejects.toMatchObject({ name: 'RespirePermissionError', code: 'PERMISSION_DENIED' });
      await expect(admin.retryAllDeadLetters(operator, stream)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      expect((await range(conn, dead)).map(([i]) => i)).toEqual([rid]);
      expect(await range(conn, stream)).toHaveLength(1);
    } finally {
      await limited.close();
    }
  });

  it('a user without XCLAIM, XACK or XGROUP DELCONSUMER cannot release, ack or prune; nothing changes', async () => {
    const { stream, tag } = uniqueKeys('acl');
    const id = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'v']));
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XGROUP', 'CREATECONSUMER', stream, 'g', 'idle']);
    const limited = await as([`~{${tag}}:*`, '+@all', '-xclaim', '-xack', '-xgroup|delconsumer']);
    try {
      const admin = new RespireAdmin(limited.client, { streams: [{ stream }] });
      const expected = { deliveryCount: 1, consumer: 'c1' };
      await expect(admin.releasePending(operator, stream, 'g', id, expected)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      await expect(admin.ackPending(operator, stream, 'g', id, expected)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      await sleep(5);
      await expect(admin.removeIdleConsumers(operator, stream, 'g', 1)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      const [row] = await pendingRows(conn, stream, 'g');
      expect(row).toMatchObject({ id, consumer: 'c1', count: 1 });
      expect(row!.idle).toBeLessThan(60_000);
      expect(((await conn.raw(stream, ['XINFO', 'CONSUMERS', stream, 'g'])) as unknown[]).length).toBe(2);
    } finally {
      await limited.close();
    }
  });

  it('a user without ZADD on the deadlines cannot release a leased queue message, nor delete one without XDEL; nothing changes', async () => {
    const name = `acl-msg-${Math.random().toString(36).slice(2, 8)}`;
    const id = `{respire-queue:${name}}:stream`;
    const { ReliableQueue, utf8Codec } = await import('@respire/queue');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec });
    await queue.send('a');
    const [m] = await queue.receive(60_000, { max: 1 });
    const expected = { deliveryCount: 1, untilMs: (await new RespireAdmin(conn.client, { queues: [{ name }] }).queueMessage(id, m!.id))!.untilMs! };
    for (const [rule, act] of [
      ['-zadd', 'releaseQueueMessage'],
      ['-xdel', 'deleteQueueMessage'],
    ] as const) {
      const server = { flavour: inject('redisFlavour'), version: inject('redisVersion') };
      const limited = await as([`~{respire-queue:${name}}:*`, '+@all', rule, ...(redisAtLeast(server, 8, 2) ? ['-xackdel'] : [])]);
      try {
        const admin = new RespireAdmin(limited.client, { queues: [{ name }] });
        await expect(admin[act](operator, id, m!.id, expected)).rejects.toMatchObject({ name: 'RespirePermissionError', code: 'PERMISSION_DENIED' });
      } finally {
        await limited.close();
      }
    }
    expect(await queue.ack(m!)).toBe(true);
  });

  it('a read-only user (+@read, no TIME, no scripts) reads every view; its actions are refused and change nothing', async () => {
    const { stream, dead, tag } = uniqueKeys('ro');
    const name = `ro-${tag}`;
    const qid = `{respire-queue:${name}}:stream`;
    await conn.raw(qid, ['XADD', qid, '*', 'payload', 'x']);
    await conn.raw(qid, ['XGROUP', 'CREATE', qid, 'respire', '0']);
    await conn.raw(`{respire-queue:${name}}:deadlines`, ['ZADD', `{respire-queue:${name}}:deadlines`, '1', '1-0:1']);
    const id = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'v']));
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', stream, '>']);
    const rid = await addWorkerRecord(conn, dead, '1-0', ['k', 'v']);
    const reader = await as(['~*', '+@read', '+@connection']);
    try {
      const admin = new RespireAdmin(reader.client, { streams: [{ stream, deadLetterStream: dead }], queues: [{ name }], discoverQueues: true });
      const overview = await admin.overview();
      // (Other tests leave queues with keys of another type on this server: only ours must read.)
      expect(overview.unavailable.filter((u) => u.resource.id === qid || u.resource.id === stream)).toEqual([]);
      expect(Math.abs(overview.serverTimeMs - Date.now())).toBeLessThan(60_000);
      expect(overview.queues.find((q) => q.resource.name === name)).toMatchObject({ length: 1, ready: 1, inFlight: 1, due: 1 });
      expect(await admin.queueStatus(qid)).toMatchObject({ inFlight: 1, due: 1 });
      expect((await admin.queueDeliveries(qid)).items).toEqual([{ id: '1-0', deliveryCount: 1, state: 'delayed', untilMs: 1, due: true }]);
      expect(await admin.streamStatus(stream)).toMatchObject({ length: 1, deadLetters: 1 });
      expect((await admin.pending(stream, 'g')).items.map((p) => p.id)).toEqual([id]);
      expect((await admin.consumers(stream, 'g')).items.map((c) => c.name)).toEqual(['c1']);
      expect((await admin.deadLetters(stream)).items.map((r) => r.id)).toEqual([rid]);
      expect(await admin.entry(stream, id)).not.toBeNull();
      await expect(admin.retryDeadLetter(operator, stream, rid)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      await expect(admin.deleteDeadLetter(operator, stream, rid)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      await expect(admin.ackPending(operator, stream, 'g', id, { deliveryCount: 1, consumer: 'c1' })).rejects.toMatchObject({ name: 'RespirePermissionError' });
      expect((await range(conn, dead)).map(([i]) => i)).toEqual([rid]);
      expect(await pendingRows(conn, stream, 'g')).toHaveLength(1);
    } finally {
      await reader.close();
    }
  });

  it('a user without XDEL cannot delete or retry (same slot) a dead letter; a user without XADD on the queue cannot retry a queue dead letter; nothing changes', async () => {
    const { stream, dead, tag } = uniqueKeys('acl');
    const name = `acl-${tag}`;
    const qid = `{respire-queue:${name}}:stream`;
    const qdead = `{respire-queue:${name}}:dead-letter`;
    const rid = await addWorkerRecord(conn, dead, '1-0', ['k', 'v']);
    const qrid = String(await conn.raw(qdead, ['XADD', qdead, '*', 'payload', 'p', 'source_id', '1-1', 'delivery_count', '5']));
    const noDel = await as([`~{${tag}}:*`, `~{respire-queue:${name}}:*`, '+@all', '-xdel']);
    const noAdd = await as([`~{respire-queue:${name}}:*`, '+@all', '-xadd']);
    try {
      const a = new RespireAdmin(noDel.client, { streams: [{ stream, deadLetterStream: dead }], queues: [{ name }] });
      await expect(a.deleteDeadLetter(operator, stream, rid)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      await expect(a.deleteAllDeadLetters(operator, stream)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      await expect(a.retryDeadLetter(operator, stream, rid)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      await expect(a.retryDeadLetter(operator, qid, qrid)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      const b = new RespireAdmin(noAdd.client, { queues: [{ name }] });
      await expect(b.retryDeadLetter(operator, qid, qrid)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      await expect(b.retryAllDeadLetters(operator, qid)).rejects.toMatchObject({ name: 'RespirePermissionError' });
      expect((await range(conn, dead)).map(([i]) => i)).toEqual([rid]);
      expect((await range(conn, qdead)).map(([i]) => i)).toEqual([qrid]);
      expect(Number(await conn.raw(stream, ['EXISTS', stream, qid]))).toBe(0);
    } finally {
      await noDel.close();
      await noAdd.close();
    }
  });

  it('two admins retrying one cross-slot record at once: never lost; appended once with IDMP (Redis 8.6+), else at most twice (documented)', async () => {
    const a = uniqueKeys('src');
    const b = uniqueKeys('dlq');
    const config = { streams: [{ stream: a.stream, deadLetterStream: b.dead }] };
    const [x, y] = [new RespireAdmin(conn.client, config), new RespireAdmin(conn.client, config)];
    const rid = await addWorkerRecord(conn, b.dead, '1-0', ['k', 'v']);
    const results = await Promise.all([x.retryDeadLetter(operator, a.stream, rid), y.retryDeadLetter(operator, a.stream, rid)]);
    expect(await range(conn, b.dead)).toEqual([]);
    const appended = (await range(conn, a.stream)).map(([id]) => id);
    for (const r of results) if (r.status === 'retried') expect(appended).toContain(r.newId);
    expect(results.some((r) => r.status === 'retried')).toBe(true);
    if (redisAtLeast(server, 8, 6)) expect(appended).toHaveLength(1);
    else expect(appended.length).toBeLessThanOrEqual(2);
  });

  it('a cross-slot retry interrupted between append and delete is repeated safely: no loss; IDMP (Redis 8.6+) appends once, else a documented duplicate', async () => {
    const a = uniqueKeys('src');
    const b = uniqueKeys('dlq');
    const rid = await addWorkerRecord(conn, b.dead, '1-0', ['k', 'v']);
    const limited = await as(['~*', '+@all', '-xdel']); // the delete fails after the append: as a crash between the two
    try {
      const broken = new RespireAdmin(limited.client, { streams: [{ stream: a.stream, deadLetterStream: b.dead }] });
      await expect(broken.retryDeadLetter(operator, a.stream, rid)).rejects.toMatchObject({ name: 'RespirePermissionError' });
    } finally {
      await limited.close();
    }
    expect((await range(conn, b.dead)).map(([i]) => i)).toEqual([rid]);
    const [first] = await range(conn, a.stream);
    const admin = new RespireAdmin(conn.client, { streams: [{ stream: a.stream, deadLetterStream: b.dead }] });
    const again = await admin.retryDeadLetter(operator, a.stream, rid);
    expect(again.status).toBe('retried');
    expect(await range(conn, b.dead)).toEqual([]);
    const appended = await range(conn, a.stream);
    if (redisAtLeast(server, 8, 6)) {
      expect(appended).toHaveLength(1);
      expect((again as { newId: string }).newId).toBe(first![0]);
    } else {
      expect(appended.map(([, f]) => f.join('='))).toEqual(['k=v', 'k=v']);
    }
  });
});
