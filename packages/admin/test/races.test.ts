// Races and faults: concurrent admins, workers, lost replies, BUSY, SCRIPT FLUSH.
import { StreamWorker, type StreamEntry } from '@respire/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin } from '../src/index.js';
import {
  addQueueRecord,
  addWorkerRecord,
  eventually,
  onFakeServer,
  operator,
  pendingRows,
  range,
  recordingAudit,
  sleep,
  targets,
  uniqueKeys,
  uniqueQueue,
  type Connection,
} from './support.js';

/** Two operators, or an operator and the workers, acting on the same records at once. */
describe.each(targets)('races on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('two admins retrying (or retrying and deleting) the same record at once: exactly one wins, the entry is appended at most once', async () => {
    const { stream, dead } = uniqueKeys('race');
    const name = uniqueQueue('race');
    const config = { streams: [{ stream, deadLetterStream: dead }], queues: [{ name }] };
    const [a, b] = [new RespireAdmin(conn.client, config), new RespireAdmin(conn.client, config)];
    const qid = `{respire-queue:${name}}:stream`;
    const qdead = `{respire-queue:${name}}:dead-letter`;
    let appended = 0;
    let queued = 0;
    for (let round = 0; round < 10; round++) {
      const rid = await addWorkerRecord(conn, dead, `1-${round}`, ['round', String(round)]);
      const both = await Promise.all([a.retryDeadLetter(operator, stream, rid), b.retryDeadLetter(operator, stream, rid)]);
      expect(both.map((r) => r.status).sort()).toEqual(['missing', 'retried']);
      appended++;
      const qrid = await addQueueRecord(conn, qdead, `m${round}`);
      const [retry, del] = await Promise.all([a.retryDeadLetter(operator, qid, qrid), b.deleteDeadLetter(operator, qid, qrid)]);
      // Either the retry or the delete took the record, never both.
      expect([retry.status, del.status]).toContainEqual(retry.status === 'retried' ? 'missing' : 'deleted');
      expect(retry.status === 'retried' ? del.status : retry.status).toBe('missing');
      if (retry.status === 'retried') queued++;
    }
    expect(await range(conn, stream)).toHaveLength(appended);
    expect(await range(conn, dead)).toEqual([]);
    expect(Number(await conn.raw(qid, ['XLEN', qid]))).toBe(queued);
    expect(Number(await conn.raw(qdead, ['XLEN', qdead]))).toBe(0);
  });

  it('retry-all while new dead letters keep arriving touches only the records present at its start', async () => {
    const { stream, dead } = uniqueKeys('flood');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }] });
    for (let i = 0; i < 20; i++) await addWorkerRecord(conn, dead, `1-${i}`, ['old', String(i)]);
    let stop = false;
    let added = 0;
    const flood = (async () => {
      while (!stop) {
        await addWorkerRecord(conn, dead, `2-${added}`, ['new', String(added)]);
        added++;
      }
    })();
    const result = await admin.retryAllDeadLetters(operator, stream, { pageSize: 3, onProgress: () => sleep(1) });
    stop = true;
    await flood;
    // It ended although records kept arriving (a retry-all cannot loop). What it retried is the
    // oldest part of the stream as it stood at its start: the 20 old records and the few new ones
    // added before it read its bounds; everything after stayed in place, in order, none lost.
    expect(result.failed).toBe(0);
    expect(result.aborted).toBe(false);
    const retried = (await range(conn, stream)).map(([, f]) => f.join('='));
    const kept = (await range(conn, dead)).map(([, f]) => f.slice(10).join('='));
    expect(retried).toHaveLength(result.done);
    expect(result.done).toBeLessThan(20 + added);
    expect([...retried, ...kept]).toEqual([...Array.from({ length: 20 }, (_, i) => `old=${i}`), ...Array.from({ length: added }, (_, i) => `new=${i}`)]);
    expect(kept.length).toBeGreaterThan(0);
  });
});

/** The workers and an operator on one group (node-redis 6 targets: the worker's own connections). */
describe.each(targets.filter((t) => t.name !== 'standalone node-redis 5'))('an operator and running workers on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('releasing entries while the worker acknowledges them: every entry is completed, none is lost', async () => {
    const { stream } = uniqueKeys('relrace');
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    const handled = new Map<string, number>();
    const worker = new StreamWorker<StreamEntry>({
      client: conn.client,
      stream,
      group: 'g',
      batchSize: 4,
      readWaitMs: 50,
      minimumIdleTimeMs: 3_600_000, // only a release makes an entry recoverable
      recoveryPollIntervalMs: 30,
      handler: async (entry) => {
        handled.set(entry.id, (handled.get(entry.id) ?? 0) + 1);
        await sleep(5);
        return 'ack';
      },
    });
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }] });
    await worker.start();
    const ids: string[] = [];
    const results: string[] = [];
    try {
      for (let i = 0; i < 40; i++) ids.push(String(await conn.raw(stream, ['XADD', stream, '*', 'i', String(i)])));
      const until = Date.now() + 1500;
      while (Date.now() < until) {
        const page = await admin.pending(stream, 'g', { count: 20 });
        const released = await Promise.all(
          page.items.map((p) => admin.releasePending(operator, stream, 'g', p.id, { deliveryCount: p.deliveryCount, consumer: p.consumer })),
        );
        results.push(...released.map((r) => r.status));
        if (page.items.length === 0 && handled.size === ids.length) break;
      }
      await eventually(async () => handled.size === ids.length && (await pendingRows(conn, stream, 'g')).length === 0);
    } finally {
      await worker.stop(2000);
    }
    expect([...handled.keys()].sort()).toEqual([...ids].sort());
    expect(new Set(results).size).toBeGreaterThan(0);
    for (const status of results) expect(['released', 'missing', 'changed']).toContain(status);
  });

  it('removing idle consumers over and over while workers read: no entry is lost or left pending', async () => {
    const { stream } = uniqueKeys('prune');
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    const handled = new Set<string>();
    const worker = new StreamWorker<StreamEntry>({
      client: conn.client,
      stream,
      group: 'g',
      consumerCount: 2,
      readWaitMs: 40,
      minimumIdleTimeMs: 3_600_000,
      handler: async (entry) => {
        handled.add(entry.id);
        await sleep(2);
        return 'ack';
      },
    });
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }] });
    await worker.start();
    const ids: string[] = [];
    let removed = 0;
    try {
      let producing = true;
      const pruning = (async () => {
        while (producing) {
          removed += (await admin.removeIdleConsumers(operator, stream, 'g', 1)).removed.length;
          await sleep(3);
        }
      })();
      for (let i = 0; i < 60; i++) {
        ids.push(String(await conn.raw(stream, ['XADD', stream, '*', 'i', String(i)])));
        await sleep(i % 3 === 0 ? 45 : 1);
      }
      await eventually(() => handled.size === ids.length);
      producing = false;
      await pruning;
      await eventually(async () => (await pendingRows(conn, stream, 'g')).length === 0);
    } finally {
      await worker.stop(2000);
    }
    expect([...handled].sort()).toEqual([...ids].sort());
    expect(removed).toBeGreaterThan(0);
  });
});

/** Faults between the admin and the server, injected by the fake server (which runs the same Lua). */
describe('faults (fake server)', () => {
  const fake = onFakeServer('7.0');

  it('a lost reply mid-bulk fails with an unknown outcome and an audit of what was done; running it again finishes without loss or duplicate', async () => {
    const { stream, dead } = uniqueKeys('lost');
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(fake.conn.client, { streams: [{ stream, deadLetterStream: dead }], audit });
    for (let i = 0; i < 7; i++) await addWorkerRecord(fake.conn, dead, `1-${i}`, ['i', String(i)]);
    let pages = 0;
    const fault = () => fake.server.faults.inject({ script: 'admin-retry-worker-dead-letters', action: { type: 'lost-reply' } });
    await expect(admin.retryAllDeadLetters(operator, stream, { pageSize: 3, onProgress: () => void (++pages === 1 && fault()) })).rejects.toMatchObject({
      name: 'RespireTransportError',
      code: 'TRANSPORT_FAILED',
    });
    expect(records[0]).toMatchObject({ action: 'retry-all', result: 'failed', target: { done: 3 } });
    // The lost page ran on the server (its reply was lost): 6 appended, 1 left.
    expect(await range(fake.conn, dead)).toHaveLength(1);
    await sleep(50); // the client reconnects
    expect(await admin.retryAllDeadLetters(operator, stream, { pageSize: 3 })).toEqual({ done: 1, failed: 0, aborted: false });
    expect((await range(fake.conn, stream)).map(([, f]) => f[1])).toEqual(['0', '1', '2', '3', '4', '5', '6']);
  });

  it('a dropped connection before a page is sent fails the bulk with nothing of that page done; the rest is retried later', async () => {
    const name = uniqueQueue('drop');
    const admin = new RespireAdmin(fake.conn.client, { queues: [{ name }] });
    const qid = `{respire-queue:${name}}:stream`;
    const qdead = `{respire-queue:${name}}:dead-letter`;
    for (let i = 0; i < 5; i++) await addQueueRecord(fake.conn, qdead, `m${i}`);
    let pages = 0;
    await expect(
      admin.deleteAllDeadLetters(operator, qid, {
        pageSize: 2,
        onProgress: () => void (++pages === 1 && fake.server.faults.inject({ command: 'XDEL', action: { type: 'drop' } })),
      }),
    ).rejects.toMatchObject({ code: 'TRANSPORT_FAILED' });
    expect(await range(fake.conn, qdead)).toHaveLength(3);
    await sleep(50);
    expect(await admin.deleteAllDeadLetters(operator, qid)).toEqual({ done: 3, failed: 0, aborted: false });
  });

  it('BUSY (a script running too long on the server) and NOSCRIPT after SCRIPT FLUSH: a typed error with nothing changed, then the action works', async () => {
    const { stream, dead } = uniqueKeys('busy');
    const admin = new RespireAdmin(fake.conn.client, { streams: [{ stream, deadLetterStream: dead }] });
    const rid = await addWorkerRecord(fake.conn, dead, '1-0', ['k', 'v']);
    fake.server.faults.inject({
      script: 'admin-retry-worker-dead-letters',
      action: { type: 'error', message: 'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.' },
    });
    await expect(admin.retryDeadLetter(operator, stream, rid)).rejects.toMatchObject({
      name: 'RespireServerError',
      code: 'SERVER_ERROR',
      message: expect.stringMatching(/BUSY/),
    });
    expect((await range(fake.conn, dead)).map(([i]) => i)).toEqual([rid]);
    await fake.conn.raw(stream, ['SCRIPT', 'FLUSH']);
    expect(await admin.retryDeadLetter(operator, stream, rid)).toMatchObject({ status: 'retried' });
    expect(await range(fake.conn, stream)).toHaveLength(1);
  });
});

/** SCRIPT FLUSH on the real servers (every master of the Cluster). */
describe.each(targets.filter((t) => t.name !== 'fake server node-redis 6'))('SCRIPT FLUSH between actions on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('every action runs after SCRIPT FLUSH (EVALSHA falls back to EVAL)', async () => {
    const { stream, dead } = uniqueKeys('flush');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }] });
    const rid = await addWorkerRecord(conn, dead, '1-0', ['k', 'v']);
    const id = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'v']));
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', stream, '>']);
    const flush = () => conn.raw(stream, ['SCRIPT', 'FLUSH']);
    await flush();
    expect(await admin.retryDeadLetter(operator, stream, rid)).toMatchObject({ status: 'retried' });
    await flush();
    expect(await admin.releasePending(operator, stream, 'g', id, { deliveryCount: 1, consumer: 'c' })).toEqual({ status: 'released' });
    await flush();
    expect(await admin.ackPending(operator, stream, 'g', id, { deliveryCount: 1, consumer: 'c' })).toEqual({ status: 'acknowledged' });
    await flush();
    expect(await admin.removeIdleConsumers(operator, stream, 'g', 1)).toMatchObject({ removed: ['c'] });
  });
});
