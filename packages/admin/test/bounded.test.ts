// Every read stays bounded on big data.
import { standalone } from '@respire/harness';
import type { RedisClientLike } from '@respire/core-scripts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RespireAdmin } from '../src/index.js';
import { operator, uniqueKeys, uniqueQueue, type Connection } from './support.js';

const BIG = 200_000;
const PEL = 100_000;

/**
 * Every read is bounded: on a 200,000-entry dead-letter stream, a 100,000-entry PEL and a
 * 100,000-member deadlines set, each page sends commands whose ranges carry COUNT (or a rank
 * range) of at most page + 1, never KEYS or an unbounded range, and reads back one page.
 */
describe('bounded reads on big data (real Redis)', { timeout: 60_000 }, () => {
  let conn: Connection;
  const sent: string[][] = [];
  let admin: RespireAdmin;
  const { stream, dead } = uniqueKeys('big');
  const queue = uniqueQueue('big');
  const qid = `{respire-queue:${queue}}:stream`;

  beforeAll(async () => {
    conn = await standalone<RedisClientLike>(inject('redisUrl'));
    // Fill with server-side loops (well under a minute): records, a stream read into one PEL, a deadlines set.
    await conn.raw(dead, [
      'EVAL',
      "for i = 1, tonumber(ARGV[1]) do redis.call('XADD', KEYS[1], '*', '_respire.source_id', '1-' .. i, '_respire.group', 'g', '_respire.attempt', '1', '_respire.reason', 'nack', '_respire.exception_type', '', 'i', i) end",
      '1',
      dead,
      String(BIG),
    ]);
    await conn.raw(stream, ['EVAL', "for i = 1, tonumber(ARGV[1]) do redis.call('XADD', KEYS[1], '*', 'i', i) end", '1', stream, String(PEL)]);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', String(PEL), 'STREAMS', stream, '>']);
    const deadlines = `{respire-queue:${queue}}:deadlines`;
    await conn.raw(deadlines, [
      'EVAL',
      "for i = 1, tonumber(ARGV[1]) do redis.call('ZADD', KEYS[1], 1000 + i, i .. '-0:1.tok.' .. i) end",
      '1',
      deadlines,
      String(PEL),
    ]);
    const real = conn.client as unknown as { sendCommand(args: string[], options?: object): Promise<unknown> };
    const recording = { isOpen: true, sendCommand: (args: string[], options?: object) => (sent.push(args.map(String)), real.sendCommand(args, options)) };
    admin = new RespireAdmin(recording, { streams: [{ stream, deadLetterStream: dead }], queues: [{ name: queue }] });
  }, 120_000);
  afterAll(async () => {
    await conn.raw(dead, ['DEL', dead]);
    await conn.raw(stream, ['DEL', stream]);
    await conn.raw(qid, ['DEL', `{respire-queue:${queue}}:deadlines`]);
    await conn.close();
  });

  /** The largest range a command asked for, or Infinity for an unbounded one. */
  function bound(args: string[]): number {
    const name = args[0]!.toUpperCase();
    const count = args.findIndex((a) => a.toUpperCase() === 'COUNT');
    switch (name) {
      case 'XRANGE':
      case 'XREVRANGE':
        if (args[2] === args[3]) return 1; // one ID
        return count < 0 ? Infinity : Number(args[count + 1]);
      case 'XPENDING':
        return args.length >= 6 ? Number(args[5]) : Infinity;
      case 'ZRANGE':
        return Number(args[3]) - Number(args[2]) + 1;
      case 'SCAN':
      case 'KEYS':
        return Infinity;
      default:
        return 0; // O(1) or bounded by nature: XLEN, ZCARD, ZCOUNT, TIME, XINFO GROUPS, EVALSHA of the admin scripts
    }
  }

  it('pages of a 200,000-record dead-letter stream, both orders, from the middle', async () => {
    sent.length = 0;
    const first = await admin.deadLetters(stream, { count: 50 });
    expect(first.items).toHaveLength(50);
    const next = await admin.deadLetters(stream, { count: 50, cursor: first.next! });
    expect(next.items).toHaveLength(50);
    const oldest = await admin.deadLetters(stream, { count: 1000, order: 'oldest' });
    expect(oldest.items).toHaveLength(1000);
    expect(oldest.items[999]).toMatchObject({ kind: 'worker', sourceId: '1-1000' });
    expect(sent.map(bound)).toEqual([51, 51, 1001]);
    const status = await admin.streamStatus(stream);
    expect(status.deadLetters).toBe(BIG);
  });

  it('pages of a 100,000-entry PEL, from the middle', async () => {
    sent.length = 0;
    const first = await admin.pending(stream, 'g', { count: 100 });
    const middle = await admin.pending(stream, 'g', { count: 100, cursor: first.items[99]!.id });
    expect(middle.items).toHaveLength(100);
    expect(middle.items[0]!.id).not.toBe(first.items[99]!.id);
    expect(sent.map(bound)).toEqual([101, 101]);
    expect((await admin.streamStatus(stream)).groups[0]).toMatchObject({ pending: PEL, lag: 0 });
  });

  it('a group of 20,000 consumers: consumers() declines after XINFO GROUPS, never sending XINFO CONSUMERS', async () => {
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'crowd', '$']);
    await conn.raw(stream, ['EVAL', "for i = 1, 20000 do redis.call('XGROUP', 'CREATECONSUMER', KEYS[1], 'crowd', 'w-' .. i) end", '1', stream]);
    sent.length = 0;
    expect(await admin.consumers(stream, 'crowd')).toEqual({ items: [], total: 20_000, truncated: true });
    expect(await admin.consumers(stream, 'crowd', { limit: 200 })).toEqual({ items: [], total: 20_000, truncated: true });
    expect(sent.map((a) => a.slice(0, 2).join(' ').toUpperCase())).toEqual(['XINFO GROUPS', 'XINFO GROUPS']);
    const list = await admin.consumers(stream, 'crowd', { limit: 20_000 });
    expect(list).toMatchObject({ total: 20_000, truncated: false });
    expect(list.items).toHaveLength(20_000);
  });

  it('pages of a 100,000-member deadlines set by rank, and the queue counts', async () => {
    sent.length = 0;
    const page = await admin.queueDeliveries(qid, { count: 200, cursor: '50000' });
    expect(page.items).toHaveLength(200);
    expect(page.items[0]).toMatchObject({ id: '50001-0', state: 'leased', deliveryCount: 1, untilMs: 51_001, due: true });
    expect(Math.max(...sent.map(bound))).toBe(201);
    expect(await admin.queueStatus(qid)).toMatchObject({ inFlight: PEL, due: PEL });
  });

  it('a bulk action with a limit reads and deletes only its pages', async () => {
    sent.length = 0;
    expect(await admin.deleteAllDeadLetters(operator, stream, { limit: 30, pageSize: 10 })).toEqual({ done: 30, failed: 0, aborted: false });
    const ranges = sent.filter((a) => /^X(REV)?RANGE$/i.test(a[0]!));
    expect(ranges.map(bound)).toEqual([1, 10, 10, 10]); // the last ID at the start, then three pages
    const deletes = sent.filter((a) => a[0] === 'XDEL');
    expect(deletes.map((a) => a.length - 2)).toEqual([10, 10, 10]);
    expect(Math.max(...sent.map(bound))).toBeLessThanOrEqual(10);
    expect(Number(await conn.raw(dead, ['XLEN', dead]))).toBe(BIG - 30);
  });
});
