// First / previous / next / last pages of dead letters and of the PEL, searches with filters, and released entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin, type Page } from '../src/index.js';
import { addQueueRecord, addWorkerRecord, operator, pendingRows, targets, uniqueKeys, uniqueQueue, type Connection } from './support.js';

/** Every page of `read`, walking forward from the first page. */
async function forward<T>(read: (options: { cursor?: string }) => Promise<Page<T>>): Promise<Page<T>[]> {
  const pages: Page<T>[] = [];
  let cursor: string | undefined;
  do {
    const page = await read(cursor ? { cursor } : {});
    pages.push(page);
    cursor = page.next;
  } while (cursor && pages.length < 100);
  return pages;
}

/** Every page of `read`, walking backward from the last page. */
async function backward<T>(read: (options: { before?: string; last?: boolean }) => Promise<Page<T>>): Promise<Page<T>[]> {
  const pages: Page<T>[] = [];
  let before: string | undefined;
  do {
    const page = await read(before ? { before } : { last: true });
    pages.unshift(page);
    before = page.previous;
  } while (before && pages.length < 100);
  return pages;
}

describe.each(targets)('pages on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('dead letters: the same records in the same pages walked forward from the first and backward from the last, in both orders', async () => {
    const { stream, dead } = uniqueKeys('dlpages');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }] });
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) ids.push(await addWorkerRecord(conn, dead, `1-${i}`, ['i', String(i)]));
    for (const order of ['oldest', 'newest'] as const) {
      const expected = order === 'oldest' ? ids : [...ids].reverse();
      const ahead = await forward((o) => admin.deadLetters(stream, { count: 4, order, ...o }));
      const back = await backward((o) => admin.deadLetters(stream, { count: 4, order, ...o }));
      expect(ahead.flatMap((p) => p.items.map((r) => r.id))).toEqual(expected);
      expect(back.flatMap((p) => p.items.map((r) => r.id))).toEqual(expected);
      expect(ahead.map((p) => p.items.length)).toEqual([4, 4, 3]);
      // Walking back from the last page gives whole pages ending at the last record.
      expect(back.map((p) => p.items.length)).toEqual([3, 4, 4]);
      expect(ahead[0]!.previous).toBeUndefined();
      expect(back.at(-1)!.next).toBeUndefined();
      // previous of a page leads back to the page before it.
      const second = ahead[1]!;
      const before = await admin.deadLetters(stream, { count: 4, order, before: second.previous! });
      expect(before.items.map((r) => r.id)).toEqual(ahead[0]!.items.map((r) => r.id));
      expect(before.next).toBe(ahead[0]!.items.at(-1)!.id);
    }
    await expect(admin.deadLetters(stream, { cursor: ids[0]!, last: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'options' });
  });

  it('dead letters: a filter by reason, group, exception type, source ID and time range; a search stops at its scan limit and continues from where it stopped', async () => {
    const { stream, dead } = uniqueKeys('dlsearch');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }] });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push(
        await addWorkerRecord(conn, dead, `${i + 1}-0`, ['i', String(i)], {
          reason: i % 3 === 0 ? 'processing-failed' : 'nack',
          group: i % 2 === 0 ? 'billing' : 'shipping',
          exceptionType: i % 3 === 0 ? (i % 2 === 0 ? 'TimeoutError' : 'TypeError') : '',
        }),
      );
    }
    const failed = await admin.deadLetters(stream, { order: 'oldest', filter: { reason: 'processing-failed' } });
    expect(failed.items.map((r) => r.id)).toEqual(ids.filter((_, i) => i % 3 === 0));
    expect(failed).toMatchObject({ complete: true, next: undefined, scanned: 30 });
    const timeouts = await admin.deadLetters(stream, { order: 'oldest', filter: { exceptionType: 'TimeoutError', group: 'billing' } });
    expect(timeouts.items.map((r) => r.id)).toEqual(ids.filter((_, i) => i % 6 === 0));
    expect((await admin.deadLetters(stream, { filter: { sourceId: '8-0' } })).items.map((r) => r.id)).toEqual([ids[7]]);
    const at = (id: string) => Number(id.split('-')[0]);
    const window = await admin.deadLetters(stream, { order: 'oldest', filter: { sinceMs: at(ids[10]!), untilMs: at(ids[12]!) } });
    for (const r of window.items) expect(at(r.id)).toBeGreaterThanOrEqual(at(ids[10]!));
    expect(window.items.map((r) => r.id)).toEqual(expect.arrayContaining([ids[10], ids[11], ids[12]]));

    // A scan limit of 7: each call reads at most 7 records; the pages still add up to every match.
    const found: string[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const page = await admin.deadLetters(stream, {
        order: 'oldest',
        count: 4,
        scanLimit: 7,
        filter: { reason: 'processing-failed' },
        ...(cursor ? { cursor } : {}),
      });
      expect(page.scanned).toBeLessThanOrEqual(7);
      found.push(...page.items.map((r) => r.id));
      cursor = page.next;
      calls++;
    } while (cursor && calls < 50);
    expect(found).toEqual(ids.filter((_, i) => i % 3 === 0));
    const partial = await admin.deadLetters(stream, { order: 'oldest', scanLimit: 2, filter: { reason: 'processing-failed' } });
    expect(partial).toMatchObject({ complete: false, scanned: 2 });
    expect(partial.next).toBe(ids[1]);
    await expect(admin.deadLetters(stream, { filter: { reason: 'x', color: 'red' } as never })).rejects.toMatchObject({ argument: 'filter' });
    await expect(admin.deadLetters(stream, { filter: { sinceMs: 5, untilMs: 4 } })).rejects.toMatchObject({ argument: 'filter.untilMs' });
  });

  it('queue dead letters match a reason of delivery-limit only, and no group or exception type', async () => {
    const name = uniqueQueue('dlq');
    const admin = new RespireAdmin(conn.client, { queues: [{ name }] });
    const id = `{respire-queue:${name}}:stream`;
    const record = await addQueueRecord(conn, `{respire-queue:${name}}:dead-letter`, 'p', '5-5');
    expect((await admin.deadLetters(id, { filter: { reason: 'delivery-limit' } })).items.map((r) => r.id)).toEqual([record]);
    expect((await admin.deadLetters(id, { filter: { sourceId: '5-5' } })).items.map((r) => r.id)).toEqual([record]);
    expect((await admin.deadLetters(id, { filter: { reason: 'nack' } })).items).toEqual([]);
    expect((await admin.deadLetters(id, { filter: { group: 'g' } })).items).toEqual([]);
  });

  it('pending entries: walked backward from the last page (a search, XPENDING reads forward only) in the same pages as forward, with the consumer and idle filters', async () => {
    const { stream } = uniqueKeys('pelpages');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }] });
    for (let i = 0; i < 23; i++) await conn.raw(stream, ['XADD', stream, '*', 'i', String(i)]);
    // Explicit IDs of one millisecond with many sequence numbers, and a gap of years.
    for (let i = 0; i < 9; i++) await conn.raw(stream, ['XADD', stream, `99999999999999-${i * 7}`, 'i', `x${i}`]);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '20', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c2', 'COUNT', '20', 'STREAMS', stream, '>']);
    const all = (await pendingRows(conn, stream, 'g')).map((p) => p.id);
    expect(all).toHaveLength(32);
    for (const count of [1, 5, 32, 50]) {
      const ahead = await forward((o) => admin.pending(stream, 'g', { count, ...o }));
      const back = await backward((o) => admin.pending(stream, 'g', { count, ...o }));
      expect(
        ahead.flatMap((p) => p.items.map((e) => e.id)),
        `count ${count}`,
      ).toEqual(all);
      expect(
        back.flatMap((p) => p.items.map((e) => e.id)),
        `count ${count}`,
      ).toEqual(all);
      expect(back.at(-1)!.next).toBeUndefined();
      expect(back[0]!.previous).toBeUndefined();
    }
    const c2 = (await pendingRows(conn, stream, 'g')).filter((p) => p.consumer === 'c2').map((p) => p.id);
    const last = await admin.pending(stream, 'g', { count: 5, consumer: 'c2', last: true });
    expect(last.items.map((e) => e.id)).toEqual(c2.slice(-5));
    const before = await admin.pending(stream, 'g', { count: 5, consumer: 'c2', before: last.previous! });
    expect(before.items.map((e) => e.id)).toEqual(c2.slice(-10, -5));
    // IDLE: nothing has been idle for an hour; everything for 0+ ms.
    expect((await admin.pending(stream, 'g', { minIdleMs: 3_600_000, last: true })).items).toEqual([]);
    expect((await admin.pending(stream, 'g', { minIdleMs: 1, count: 100 })).items).toHaveLength(32);
  });

  it('pending entries: a released entry says so (an operator release, or Redis 8.8 XNACK), instead of an idle time of weeks', async () => {
    const { stream } = uniqueKeys('released');
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }] });
    const a = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'a']));
    const b = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'b']));
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', stream, '>']);
    expect(await admin.releasePending(operator, stream, 'g', a, { deliveryCount: 1, consumer: 'c1' })).toEqual({ status: 'released' });
    const rows = (await admin.pending(stream, 'g')).items;
    expect(rows.map((r) => [r.id, r.released])).toEqual([
      [a, true],
      [b, false],
    ]);
  });
});
