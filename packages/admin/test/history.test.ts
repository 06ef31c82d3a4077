// History: samples recorded into Redis (one per interval between samplers, trimmed by age) and read back as rates and backlogs.
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin, historyKeys, type HistoryPoint, type StreamResource } from '../src/index.js';
import { addWorkerRecord, eventually, sleep, targets, uniqueKeys, uniqueQueue, type Connection } from './support.js';

/** The count a rate stands for over its interval (rates are per second). */
const over = (point: HistoryPoint, previous: HistoryPoint, rate: number | null) =>
  rate === null ? null : Math.round((rate * (point.atMs - previous.atMs)) / 1000);

describe.each(targets)('history on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it("a queue's sends, deliveries, acks and dead letters per second, and its ready, in-flight and oldest age, between two samples", async () => {
    const name = uniqueQueue('hist');
    const id = `{respire-queue:${name}}:stream`;
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, deliveryLimit: 1 });
    const admin = new RespireAdmin(conn.client, { queues: [{ name }] });
    for (let i = 0; i < 10; i++) await queue.send(`m${i}`);
    expect(await admin.recordHistory()).toEqual({ recorded: 1, skipped: 0, failed: [] });
    await sleep(30);
    const batch = await queue.receive(60_000, { max: 6 });
    await queue.ackMany(batch.slice(0, 3));
    const [short] = await queue.receive(1, { max: 1 }); // leased for 1 ms: dead-lettered by the next receive
    await sleep(5);
    await queue.receive(60_000, { max: 1 });
    for (let i = 0; i < 4; i++) await queue.send(`n${i}`);
    expect(short).toBeDefined();
    expect((await admin.recordHistory()).recorded).toBe(1);
    // Again at once: one sample per interval, whoever records it.
    expect(await admin.recordHistory({ minIntervalMs: 60_000 })).toEqual({ recorded: 0, skipped: 1, failed: [] });

    const h = await admin.history(id);
    expect(h).toMatchObject({ kept: true, samples: 2, truncated: false });
    const [series] = h.series;
    expect(series!.kind).toBe('queue');
    const [first, second] = series!.points;
    expect(first).toMatchObject({ sent: null, delivered: null, acknowledged: null, lag: 10, pending: 0, deadLetters: 0 });
    expect(first!.oldestAgeMs).toBeGreaterThanOrEqual(0);
    expect(over(second!, first!, second!.sent)).toBe(4);
    expect(over(second!, first!, second!.delivered)).toBe(8); // 6 + 1 + 1 first deliveries
    expect(over(second!, first!, second!.acknowledged)).toBe(3);
    expect(over(second!, first!, second!.deadLettered)).toBe(1);
    expect(second).toMatchObject({ lag: 6, pending: 4, deadLetters: 1, consumers: 1 });
    expect(second!.oldestAgeMs).toBeGreaterThanOrEqual(30);
  });

  it("a worker stream's sends and dead letters, and per group its deliveries, completions, lag, pending and oldest unacknowledged age", async () => {
    const { stream, dead } = uniqueKeys('hist');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }] });
    for (let i = 0; i < 5; i++) await conn.raw(stream, ['XADD', stream, '*', 'i', String(i)]);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'billing', '0']);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'audit', '$']);
    await admin.recordHistory();
    await sleep(30);
    const read = (await conn.raw(stream, ['XREADGROUP', 'GROUP', 'billing', 'c1', 'COUNT', '4', 'STREAMS', stream, '>'])) as unknown;
    expect(read).toBeTruthy();
    const ids = ((await conn.raw(stream, ['XRANGE', stream, '-', '+'])) as unknown[][]).map((e) => String(e[0]));
    await conn.raw(stream, ['XACK', stream, 'billing', ids[0]!, ids[1]!]);
    await addWorkerRecord(conn, dead, ids[2]!, ['i', '2'], { group: 'billing' });
    await conn.raw(stream, ['XACK', stream, 'billing', ids[2]!]);
    await conn.raw(stream, ['XADD', stream, '*', 'i', '5']);
    await admin.recordHistory();
    const h = await admin.history(stream);
    expect(h.series.map((s) => [s.kind, s.name]).sort()).toEqual([
      ['group', 'audit'],
      ['group', 'billing'],
      ['stream', ''],
    ]);
    const [whole, billing, audit] = ['', 'billing', 'audit'].map((name) => h.series.find((s) => s.name === name));
    const [w0, w1] = whole!.points;
    expect(over(w1!, w0!, w1!.sent)).toBe(1);
    expect(over(w1!, w0!, w1!.deadLettered)).toBe(1);
    expect(w1!.deadLetters).toBe(1);
    const [b0, b1] = billing!.points;
    expect(b0).toMatchObject({ lag: 5, pending: 0, consumers: 0 });
    expect(over(b1!, b0!, b1!.delivered)).toBe(4);
    expect(over(b1!, b0!, b1!.acknowledged)).toBe(3);
    expect(b1).toMatchObject({ lag: 2, pending: 1, consumers: 1 });
    expect(b1!.oldestAgeMs).toBeGreaterThanOrEqual(30); // the oldest pending entry is from before the first sample
    const [, a1] = audit!.points;
    // A group created at $ has no read counter until it reads: its lag is unknown, never shown as 0.
    expect(a1).toMatchObject({ lag: null, pending: 0 });
    expect(a1!.oldestAgeMs).toBeLessThan(30); // only the entry added after the first sample waits for audit
  });

  it('counters the producers keep (a hash in the slot) take the place of the derived rates', async () => {
    const { stream } = uniqueKeys('hist-c');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }] });
    const resource = (await admin.resource(stream)) as StreamResource;
    const { counters } = historyKeys(resource)!;
    const name = uniqueQueue('hist-c');
    const queueAdmin = new RespireAdmin(conn.client, { queues: [{ name }] });
    const qid = `{respire-queue:${name}}:stream`;
    const qcounters = historyKeys(await queueAdmin.resource(qid))!.counters;
    expect(qcounters).toBe(`{respire-queue:${name}}:counters`);
    await conn.raw(qid, ['XADD', qid, '*', 'payload', 'x']);
    await conn.raw(qcounters, ['HSET', qcounters, 'delivered', '100', 'acknowledged', '90', 'deadLettered', '1']);
    await queueAdmin.recordHistory();
    await sleep(20);
    await conn.raw(qcounters, ['HINCRBY', qcounters, 'delivered', '50']);
    await conn.raw(qcounters, ['HINCRBY', qcounters, 'acknowledged', '40']);
    await queueAdmin.recordHistory();
    const [p0, p1] = (await queueAdmin.history(qid)).series[0]!.points;
    expect(over(p1!, p0!, p1!.delivered)).toBe(50);
    expect(over(p1!, p0!, p1!.acknowledged)).toBe(40);
    expect(over(p1!, p0!, p1!.deadLettered)).toBe(0);
    expect(counters).toBe(`${stream}:respire-counters`);
  });

  it('trims samples older than the retention (whole stream nodes, as XADD MINID ~ does), and reads a time range', async () => {
    const name = uniqueQueue('hist-trim');
    const id = `{respire-queue:${name}}:stream`;
    const admin = new RespireAdmin(conn.client, { queues: [{ name }], history: { retentionMs: 60_000 } });
    const key = historyKeys(await admin.resource(id))!.history;
    for (let i = 1; i <= 250; i++) await conn.raw(key, ['XADD', key, `${i}-0`, 'v', '1', 'added', String(i), 'length', '0']);
    await conn.raw(id, ['XADD', id, '*', 'payload', 'x']);
    await admin.recordHistory();
    const left = Number(await conn.raw(key, ['XLEN', key]));
    expect(left).toBeLessThanOrEqual(51);
    const recent = await admin.history(id, { sinceMs: 1000 });
    expect(recent.samples).toBe(1);
    expect((await admin.history(id, { untilMs: 1000, maxPoints: 10 })).series[0]!.points.length).toBeLessThanOrEqual(10);
  });

  it('a sampler records at once and then on its interval, never overlapping; two samplers keep one sample per interval', async () => {
    const name = uniqueQueue('hist-s');
    const id = `{respire-queue:${name}}:stream`;
    await conn.raw(id, ['XADD', id, '*', 'payload', 'x']);
    const a = new RespireAdmin(conn.client, { queues: [{ name }] });
    const b = new RespireAdmin(conn.client, { queues: [{ name }] });
    const samplers = [a.startHistory({ intervalMs: 1000 }), b.startHistory({ intervalMs: 1000 })];
    try {
      await eventually(async () => (await a.history(id)).samples >= 2, 10_000);
    } finally {
      await Promise.all(samplers.map((s) => s.stop()));
    }
    const h = await a.history(id);
    const times = h.series[0]!.points.map((p) => p.atMs);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(850);
    expect(() => a.startHistory({ intervalMs: 10 })).toThrow(/intervalMs/);
  });
});

describe('history keys', () => {
  it("stay in the resource's slot: the queue's hash tag, the stream's hash tag, or the whole stream key as one", () => {
    const stream = (key: string): StreamResource => ({ kind: 'stream', id: key, stream: key, deadLetterStream: undefined, label: key, retryAtomic: false });
    expect(historyKeys(stream('{orders}:events'))).toEqual({ history: '{orders}:events:respire-history', counters: '{orders}:events:respire-counters' });
    expect(historyKeys(stream('orders'))).toEqual({ history: '{orders}:respire-history', counters: '{orders}:respire-counters' });
    expect(historyKeys(stream('a{b'))).toEqual({ history: '{a{b}:respire-history', counters: '{a{b}:respire-counters' });
    expect(historyKeys(stream('a}b'))).toBeUndefined();
  });
});
