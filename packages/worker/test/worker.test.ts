// The worker's main paths on every target: results, recovery, fencing, dead letters, groups, consumer names, stop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamWorker, StreamWorkerResult, type StreamEntry } from '../src/index.js';
import {
  add,
  eventually,
  pendingCount,
  pendingEntries,
  range,
  recordingLogger,
  sleep,
  targets,
  uniqueKeys,
  workerFixture,
  type Connection,
  type TestOptions,
} from './support.js';

/** The worker's main paths (README), on node-redis 6 (RESP3), node-redis 5 (RESP2), a 3-master Cluster and the fake server. */
describe.each(targets)('StreamWorker on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());
  const create = workerFixture(() => conn, 2000);

  async function start<T = StreamEntry>(options: TestOptions<T>): Promise<StreamWorker<T>> {
    const worker = create(options);
    await worker.start();
    return worker;
  }

  it('acknowledges only after the handler returns ack, and keeps the body', async () => {
    const { stream } = uniqueKeys();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    await start({
      stream,
      group: 'g',
      consumerCount: 2,
      handler: async (e) => (e.getString('k') === 'a' && (await gate), seen.push(e.getString('k')!), 'ack'),
    });
    await add(conn, stream, { k: 'a' });
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 1);
    // The other reader takes 'b', handles and acknowledges it: the worker has completed work since
    // 'a' was read, yet 'a', whose handler has not returned, is still pending.
    await add(conn, stream, { k: 'b' });
    await eventually(() => seen.includes('b'));
    await eventually(async () => (await pendingEntries(conn, stream, 'g')).length === 1);
    expect(seen).toEqual(['b']);
    release();
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0);
    expect(seen).toEqual(['b', 'a']);
    expect((await range(conn, stream)).length).toBe(2);
  });

  it('nack, exceptions and unknown results leave entries pending while the worker keeps reading; warnings carry the type only', async () => {
    const { stream } = uniqueKeys();
    const logger = recordingLogger();
    class PaymentDeclinedError extends Error {}
    const handled: string[] = [];
    await start({
      stream,
      group: 'g',
      logger,
      handler: (e) => {
        const k = e.getString('k')!;
        handled.push(k);
        if (k === 'nack') return 'nack';
        if (k === 'throw') throw new PaymentDeclinedError('card 4111 secret');
        if (k === 'unknown') return 'maybe' as unknown as StreamWorkerResult;
        return 'ack';
      },
    });
    for (const k of ['nack', 'throw', 'unknown', 'ok']) await add(conn, stream, { k });
    await eventually(() => handled.length === 4);
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 3);
    const warnings = logger.entries.filter((e) => e.level === 'warn');
    const thrown = warnings.find((w) => w.context?.exceptionType === 'PaymentDeclinedError');
    expect(thrown).toBeDefined();
    expect(JSON.stringify(logger.entries)).not.toContain('4111');
    expect(JSON.stringify(logger.entries)).not.toContain('secret');
    expect(warnings.some((w) => /unknown result/.test(w.message))).toBe(true);
    // The warning names what came back and what is allowed (issue: a handler returning 'ACK' or true).
    const unknown = warnings.find((w) => /unknown result/.test(w.message))!;
    expect(unknown.message).toContain('"maybe"');
    expect(unknown.message).toContain("expected 'ack', 'nack' or 'dead-letter'");
    expect(unknown.message).toContain('the entry stays pending');
    expect(thrown!.message).toContain('the entry stays pending');
  });

  it('a thrown handler is outcome error with its exception type; on the final attempt the warning and the outcome say dead-lettered', async () => {
    const { stream, dead } = uniqueKeys();
    const logger = recordingLogger();
    class PaymentDeclinedError extends Error {}
    const ends: [string, string | undefined][] = [];
    const instrumentation = { startDelivery: () => ({ end: (outcome: string, errorType?: string) => void ends.push([outcome, errorType]) }) };
    await start({
      stream,
      group: 'g',
      logger,
      deadLetterStream: dead,
      deliveryLimit: 2,
      minimumIdleTimeMs: 100,
      recoveryPollIntervalMs: 50,
      instrumentation,
      handler: (e) => {
        if (e.getString('k') === 'true') return true as unknown as StreamWorkerResult;
        throw new PaymentDeclinedError('card 4111');
      },
    });
    await add(conn, stream, { k: 'throw' });
    await eventually(async () => (await range(conn, dead)).length === 1);
    await eventually(() => ends.length === 2);
    expect(ends).toEqual([
      ['error', 'PaymentDeclinedError'],
      ['dead-letter', 'PaymentDeclinedError'],
    ]);
    const failures = logger.entries.filter((e) => e.level === 'warn' && e.context?.exceptionType === 'PaymentDeclinedError');
    expect(failures.map((w) => w.message)).toEqual([
      'stream handler failed; the entry stays pending for recovery',
      'stream handler failed; its final attempt (deliveryLimit 2): the entry is dead-lettered',
    ]);
    await add(conn, stream, { k: 'true' });
    await eventually(() => logger.entries.some((w) => w.message.startsWith('handler returned an unknown result (true)')));
  });

  it('recovers an idle pending entry after minimumIdleTimeMs with an incremented delivery count', async () => {
    const { stream } = uniqueKeys();
    const attempts: number[] = [];
    await start({
      stream,
      group: 'g',
      minimumIdleTimeMs: 300,
      recoveryPollIntervalMs: 100,
      handler: (e) => (attempts.push(e.deliveryCount), e.deliveryCount < 3 ? 'nack' : 'ack'),
    });
    await add(conn, stream, { k: 'x' });
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0 && attempts.length === 3);
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('dead-letters explicitly with the five metadata pairs first, then the original fields in order', async () => {
    const { stream, dead } = uniqueKeys();
    await start({ stream, group: 'orders-g', deadLetterStream: dead, handler: () => StreamWorkerResult.DeadLetter });
    const id = String(await conn.raw(stream, ['XADD', stream, '1-1', 'b', '2', 'a', '1', '_respire_x', 'y']));
    await eventually(async () => (await range(conn, dead)).length > 0);
    expect(await pendingCount(conn, stream, 'orders-g')).toBe(0);
    const records = await range(conn, dead);
    expect(records).toHaveLength(1);
    expect(records[0]![0]).not.toBe(id);
    expect(records[0]![1]).toEqual([
      '_respire.source_id',
      id,
      '_respire.group',
      'orders-g',
      '_respire.attempt',
      '1',
      '_respire.reason',
      'explicit',
      '_respire.exception_type',
      '',
      'b',
      '2',
      'a',
      '1',
      '_respire_x',
      'y',
    ]);
    expect((await range(conn, stream)).map((r) => r[0])).toEqual([id]); // the source body is kept
  });

  it('a poison entry neither stops the worker nor blocks others, and ends dead-lettered as processing-failed at the limit', async () => {
    const { stream, dead } = uniqueKeys();
    class BadPayload extends Error {}
    const orders: string[] = [];
    const calls: number[] = [];
    const worker = await start<{ id: string }>({
      stream,
      group: 'g',
      deadLetterStream: dead,
      deliveryLimit: 3,
      minimumIdleTimeMs: 200,
      recoveryPollIntervalMs: 50,
      deserialize: (e) => {
        calls.push(e.deliveryCount);
        const id = e.getString('id')!;
        if (id === 'poison') throw new BadPayload('bad json');
        return { id };
      },
      handler: (order) => (orders.push(order.id), 'ack'),
    });
    await add(conn, stream, { id: 'poison' });
    await add(conn, stream, { id: 'o1' });
    await add(conn, stream, { id: 'o2' });
    await eventually(async () => (await range(conn, dead)).length === 1, 10_000);
    expect(orders).toEqual(['o1', 'o2']);
    expect(calls.filter((c) => c >= 1).length).toBeGreaterThanOrEqual(5);
    const [record] = await range(conn, dead);
    expect(record![1].slice(0, 10)).toEqual([
      '_respire.source_id',
      record![1][1],
      '_respire.group',
      'g',
      '_respire.attempt',
      '3',
      '_respire.reason',
      'processing-failed',
      '_respire.exception_type',
      'BadPayload',
    ]);
    expect(record![1].slice(10)).toEqual(['id', 'poison']);
    expect(JSON.stringify(record)).not.toContain('bad json');
    expect(await pendingCount(conn, stream, 'g')).toBe(0);
    expect(worker.state).toBe('running');
  });

  it('dead-letters a nack on the final attempt with reason nack', async () => {
    const { stream, dead } = uniqueKeys();
    await start({ stream, group: 'g', deadLetterStream: dead, deliveryLimit: 1, handler: () => 'nack' });
    await add(conn, stream, { k: 'v' });
    await eventually(async () => (await range(conn, dead)).length === 1);
    const [record] = await range(conn, dead);
    expect(record![1].slice(4, 8)).toEqual(['_respire.attempt', '1', '_respire.reason', 'nack']);
  });

  it('a stale handler cannot acknowledge a delivery recovered by another consumer', async () => {
    const { stream } = uniqueKeys();
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((r) => (releaseSlow = r));
    let slowResult: string | undefined;
    const logger = recordingLogger();
    const first = await start({
      stream,
      group: 'g',
      consumerName: 'slow',
      minimumIdleTimeMs: 60_000,
      logger,
      handler: async () => {
        await slowGate;
        slowResult = 'done';
        return 'ack';
      },
    });
    await add(conn, stream, { k: 'v' });
    await eventually(async () => (await pendingEntries(conn, stream, 'g'))[0]?.consumer === 'slow-0');
    // Another worker recovers it while the first handler still runs.
    const recovered: number[] = [];
    let releaseSecond!: () => void;
    const secondGate = new Promise<void>((r) => (releaseSecond = r));
    await start({
      stream,
      group: 'g',
      consumerName: 'other',
      minimumIdleTimeMs: 1,
      recoveryPollIntervalMs: 50,
      handler: async (e) => (recovered.push(e.deliveryCount), await secondGate, 'ack'),
    });
    await eventually(() => recovered.length === 1);
    releaseSlow();
    await eventually(() => slowResult === 'done');
    // The slow handler's ack was fenced out (outcome stale): the entry is still pending to 'other' at count 2.
    await eventually(() => logger.entries.some((e) => e.level === 'debug' && /recovered by another owner or attempt/.test(e.message)));
    expect(await pendingEntries(conn, stream, 'g')).toMatchObject([{ consumer: 'other-0', count: 2 }]);
    expect(first.state).toBe('running');
    releaseSecond();
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0);
  });

  it('a stale handler cannot acknowledge even under the same consumer name, once a restart replayed its delivery', async () => {
    const { stream } = uniqueKeys();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let oldDone = false;
    const logger = recordingLogger();
    await start({ stream, group: 'g', consumerName: 'same', logger, handler: async () => (await gate, (oldDone = true), 'ack') });
    await add(conn, stream, { k: 'v' });
    await eventually(async () => (await pendingEntries(conn, stream, 'g'))[0]?.count === 1);
    // A second process with the same stable name starts while the first still runs: its startup
    // replay re-delivers the entry (count 2) to 'same-0'.
    const replayed: number[] = [];
    let releaseNew!: () => void;
    const gateNew = new Promise<void>((r) => (releaseNew = r));
    await start({ stream, group: 'g', consumerName: 'same', handler: async (e) => (replayed.push(e.deliveryCount), await gateNew, 'ack') });
    await eventually(() => replayed.length === 1);
    expect(replayed).toEqual([2]);
    release();
    await eventually(() => oldDone);
    await eventually(() => logger.entries.some((e) => e.level === 'debug' && /recovered by another owner or attempt/.test(e.message)));
    expect(await pendingEntries(conn, stream, 'g')).toMatchObject([{ consumer: 'same-0', count: 2 }]); // the old ack was fenced out
    releaseNew();
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0);
  });

  it('completes a read of 16 in one fenced batch with an exact result per entry: the one recovered meanwhile is stale and left to its new owner, the other 15 are acknowledged', async () => {
    const { stream } = uniqueKeys();
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push(await add(conn, stream, { i: String(i) }));
    const stolen = ids[5]!;
    const logger = recordingLogger();
    const outcomes = new Map<string, string>();
    let first = true;
    await start({
      stream,
      group: 'g',
      batchSize: 16,
      logger,
      instrumentation: { startDelivery: (s) => ({ end: (outcome) => void outcomes.set(s.entryId, outcome) }) },
      handler: async () => {
        if (first) {
          first = false;
          // While the batch is being handled, another consumer recovers one of its entries.
          await conn.raw(stream, ['XCLAIM', stream, 'g', 'other', '0', stolen]);
        }
        return 'ack';
      },
    });
    await eventually(() => outcomes.size === 16);
    expect(outcomes.get(stolen)).toBe('stale');
    expect([...outcomes].filter(([id]) => id !== stolen).map(([, outcome]) => outcome)).toEqual(Array(15).fill('ack'));
    expect(logger.entries.filter((e) => /recovered by another owner or attempt/.test(e.message)).map((e) => e.context?.entryId)).toEqual([stolen]);
    expect(await pendingEntries(conn, stream, 'g')).toEqual([{ id: stolen, consumer: 'other', count: 2 }]);
  });

  it('a completion does not wait for a slow handler further down the read: it is sent within about a millisecond', async () => {
    const { stream } = uniqueKeys();
    const [fast] = [await add(conn, stream, { k: 'fast' }), await add(conn, stream, { k: 'slow' })];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let slowStarted = false;
    await start({
      stream,
      group: 'g',
      batchSize: 2,
      handler: async (e) => {
        if (e.getString('k') === 'slow') {
          slowStarted = true;
          await gate;
        }
        return 'ack';
      },
    });
    await eventually(() => slowStarted);
    // The first entry's acknowledgement went while the second handler still runs.
    await eventually(async () => (await pendingEntries(conn, stream, 'g')).every((p) => p.id !== fast), 1000);
    expect(await pendingCount(conn, stream, 'g')).toBe(1);
    release();
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0);
  });

  it('a dead-letter result without deadLetterStream counts as a handler failure: the entry stays pending', async () => {
    const { stream } = uniqueKeys();
    const logger = recordingLogger();
    const seen: string[] = [];
    const w = await start({ stream, group: 'g', logger, handler: (e) => (seen.push(e.id), 'dead-letter') });
    await add(conn, stream, { k: 'v' });
    await eventually(() => seen.length === 1);
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 1);
    await eventually(() => logger.entries.some((e) => e.level === 'warn' && /no deadLetterStream/.test(e.message)));
    expect(w.state).toBe('running');
  });

  it('creates stream and group at startup, keeps an existing group position, and groupStart $ skips existing entries', async () => {
    const { stream } = uniqueKeys();
    const old = await add(conn, stream, { k: 'old' });
    const seenNew: string[] = [];
    await start({ stream, group: 'new-only', groupStart: '$', handler: (e) => (seenNew.push(e.getString('k')!), 'ack') });
    const seenAll: string[] = [];
    const all = await start({ stream, group: 'all', handler: (e) => (seenAll.push(e.getString('k')!), 'ack') });
    await add(conn, stream, { k: 'new' });
    await eventually(() => seenNew.length === 1 && seenAll.length === 2);
    expect(seenNew).toEqual(['new']);
    expect(seenAll).toEqual(['old', 'new']);
    // An existing group keeps its position: a restarted worker does not re-read 'old'.
    await all.stop();
    const again: string[] = [];
    await start({ stream, group: 'all', handler: (e) => (again.push(e.getString('k')!), 'ack') });
    // Entries are read in order: had the group been reset, 'old' and 'new' would come before 'newer'.
    await add(conn, stream, { k: 'newer' });
    await eventually(() => again.length > 0);
    expect(again).toEqual(['newer']);
    expect(old).toMatch(/^\d+-\d+$/);
  });

  it('createGroup false fails clearly without a group', async () => {
    const { stream } = uniqueKeys();
    const worker = new StreamWorker({ client: conn.client, stream, group: 'g', createGroup: false, handler: () => 'ack' });
    await expect(worker.start()).rejects.toMatchObject({
      name: 'RespireServerError',
      message: expect.stringMatching(/does not exist and createGroup is false/),
    });
    await expect(worker.done).rejects.toBeDefined();
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    const seen: string[] = [];
    await start({ stream, group: 'g', createGroup: false, handler: (e) => (seen.push(e.id), 'ack') });
    await add(conn, stream, { k: 'v' });
    await eventually(() => seen.length === 1);
  });

  it('a stable consumer name replays its own pending entries once at startup, before new entries', async () => {
    const { stream } = uniqueKeys();
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    const a = await add(conn, stream, { k: 'a' });
    const b = await add(conn, stream, { k: 'b' });
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'host-1-0', 'COUNT', '2', 'STREAMS', stream, '>']);
    await add(conn, stream, { k: 'c' });
    const seen: [string, number][] = [];
    const worker = await start({
      stream,
      group: 'g',
      consumerName: 'host-1',
      minimumIdleTimeMs: 60_000,
      handler: (e) => (seen.push([e.getString('k')!, e.deliveryCount]), 'ack'),
    });
    await eventually(() => seen.length === 3);
    expect(seen).toEqual([
      ['a', 2],
      ['b', 2],
      ['c', 1],
    ]);
    expect(worker.consumerNames).toEqual(['host-1-0']);
    expect([a, b]).toHaveLength(2);
  });

  it('runs consumerCount readers named <base>-<index>, each with a prefetch of batchSize', async () => {
    const { stream } = uniqueKeys();
    let active = 0;
    let maxActive = 0;
    const worker = await start({
      stream,
      group: 'g',
      consumerName: 'pool',
      consumerCount: 3,
      batchSize: 2,
      handler: async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await sleep(50);
        active--;
        return 'ack';
      },
    });
    expect(worker.consumerNames).toEqual(['pool-0', 'pool-1', 'pool-2']);
    for (let i = 0; i < 12; i++) await add(conn, stream, { i: String(i) });
    await eventually(async () => (await pendingCount(conn, stream, 'g')) <= 6);
    expect(await pendingCount(conn, stream, 'g')).toBeLessThanOrEqual(6); // prefetch ≤ consumerCount × batchSize
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0);
    expect(maxActive).toBeLessThanOrEqual(3);
    expect(maxActive).toBeGreaterThan(1);
  });

  it("hands the deserializer the entry's own field bytes, binary-safe", async () => {
    const { stream } = uniqueKeys();
    const bytes = Buffer.from([0, 255, 254, 10, 13, 0x80, 0xc3]);
    const got: Buffer[] = [];
    await start<Buffer>({ stream, group: 'g', deserialize: (e) => e.get('payload')!, handler: (payload) => (got.push(payload), 'ack') });
    await conn.raw(stream, ['XADD', stream, '*', Buffer.from('payload'), bytes]);
    await eventually(() => got.length === 1);
    expect(Buffer.compare(got[0]!, bytes)).toBe(0);
  });

  it('picks a random consumer-name base at every start', async () => {
    const { stream } = uniqueKeys();
    const w = await start({ stream, group: 'g', consumerCount: 2, handler: () => 'ack' });
    const first = w.consumerNames;
    await w.stop();
    await w.start();
    const second = w.consumerNames;
    expect(first).toHaveLength(2);
    expect(first[0]).toMatch(/-0$/);
    expect(first[1]).toMatch(/-1$/);
    expect(second[0]).not.toBe(first[0]);
  });

  it('stop() ends parked reads at once, so an entry added after stop() stays unread', async () => {
    const { stream } = uniqueKeys();
    const seen: string[] = [];
    const worker = await start({ stream, group: 'g', readWaitMs: 10_000, recoveryPollIntervalMs: 60_000, handler: (e) => (seen.push(e.id), 'ack') });
    // One entry handled and acknowledged: the reader has read, and reads again (a 10 s BLOCK).
    const first = await add(conn, stream, { k: 'first' });
    await eventually(async () => seen.length === 1 && (await pendingCount(conn, stream, 'g')) === 0);
    const began = Date.now();
    await worker.stop();
    expect(Date.now() - began).toBeLessThan(2000);
    await worker.done;
    // A read still parked on the server would take the entry as XADD runs, before XADD replies.
    await add(conn, stream, { k: 'late' });
    expect(seen).toEqual([first]);
    const groups = (await conn.raw(stream, ['XINFO', 'GROUPS', stream])) as unknown[];
    expect(JSON.stringify(groups)).toContain('g');
    expect(await pendingCount(conn, stream, 'g')).toBe(0);
  });
});
