// Attacks on the grouped dead-letter retry: leased heads, fair bounds, racing admins, keys of other types, crafted records, bulk edges.
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin } from '../src/index.js';
import { eventually, operator, range, recordingAudit, targets, uniqueQueue, type Connection } from './support.js';

describe.each(targets)('grouped dead-letter retry under attack on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  const grouped = (name: string, groups: { groupConcurrency?: number } = {}) =>
    new ReliableQueue(conn.client, name, { codec: utf8Codec, groups, deliveryLimit: 1 });
  const adminOf = (name: string, groupConcurrency?: number) =>
    new RespireAdmin(conn.client, { groupedQueues: [groupConcurrency === undefined ? { name } : { name, groupConcurrency }] });
  const keysOf = (name: string) => {
    const tag = `{respire-queue:${name}}`;
    const base = `${tag}:groups`;
    return {
      id: `${base}:stream`,
      dead: `${base}:dead-letter`,
      ready: `${base}:ready`,
      wake: `${base}:wake`,
      leased: `${base}:leased`,
      inflight: `${base}:in-flight`,
      backlogPrefix: `${base}:group:`,
      backlog: (g: string) => `${base}:group:${g}`,
      ungrouped: `${tag}:stream`,
      pattern: `${tag}*`,
    };
  };

  /** The queue's keys that exist now, sorted. */
  async function existingKeys(name: string): Promise<string[]> {
    const k = keysOf(name);
    return ((await conn.raw(k.id, ['KEYS', k.pattern])) as unknown[]).map(String).sort();
  }

  /** Every key of the queue with its type and contents. */
  async function snapshot(name: string): Promise<string> {
    const k = keysOf(name);
    const dump: unknown[] = [];
    for (const key of await existingKeys(name)) {
      const type = String(await conn.raw(k.id, ['TYPE', key]));
      const read: Record<string, string[]> = {
        stream: ['XRANGE', key, '-', '+'],
        zset: ['ZRANGE', key, '0', '-1', 'WITHSCORES'],
        list: ['LRANGE', key, '0', '-1'],
        hash: ['HGETALL', key],
        string: ['GET', key],
        set: ['SMEMBERS', key],
      };
      dump.push([key, type, await conn.raw(k.id, read[type]!)]);
    }
    return JSON.stringify(dump);
  }

  /**
   * Sends each [payload, group, headers?] and dead-letters them (deliveryLimit 1: receive, NACK,
   * receive), until every one is a record: a receive that only dead-letters returns an empty batch.
   */
  async function deadLettered(queue: ReliableQueue<string>, messages: [string, string, Record<string, string>?][]): Promise<void> {
    const dead = keysOf(queue.name).dead;
    const start = Number(await conn.raw(dead, ['XLEN', dead]));
    for (const [payload, groupId, headers] of messages) await queue.send(payload, { groupId, ...(headers ? { headers } : {}) });
    while (Number(await conn.raw(dead, ['XLEN', dead])) < start + messages.length) {
      for (const m of await queue.receive(60_000, { max: 100 })) await queue.nack(m);
    }
  }

  /** The dead-letter record IDs, oldest first. */
  const recordIds = async (dead: string) => (await range(conn, dead)).map(([id]) => id);

  it('ordered: retries while the head is leased come after everything the group had, in order, never two in flight', async () => {
    const name = uniqueQueue('gdla');
    const queue = grouped(name);
    const k = keysOf(name);
    await deadLettered(queue, [
      ['d1', 'a'],
      ['d2', 'a'],
    ]);
    await queue.sendMany(['a1', 'a2', 'a3'].map((payload) => ({ payload, groupId: 'a' })));
    const [head] = await queue.receive(60_000, { max: 10 });
    expect(head!.payload).toBe('a1');
    // Two records in one call, then nothing moves while the head is leased.
    expect(await adminOf(name).retryAllGroupedDeadLetters(operator, k.id, { pageSize: 2 })).toEqual({ done: 2, failed: 0, aborted: false });
    expect(await recordIds(k.dead)).toEqual([]);
    expect(Number(await conn.raw(k.ready, ['EXISTS', k.ready]))).toBe(0);
    expect(await queue.receive(60_000, { max: 10 })).toEqual([]);
    expect(((await conn.raw(k.backlog('a'), ['LRANGE', k.backlog('a'), '0', '-1'])) as unknown[]).length).toBe(5);
    await queue.ack(head!);
    const order: string[] = [];
    for (;;) {
      const batch = await queue.receive(60_000, { max: 10 });
      if (batch.length === 0) break;
      expect(batch).toHaveLength(1);
      // While one is leased nothing else of the group comes.
      expect(await queue.receive(60_000, { max: 10 })).toEqual([]);
      order.push(`${batch[0]!.payload}:${batch[0]!.deliveryCount}`);
      await queue.ack(batch[0]!);
    }
    expect(order).toEqual(['a2:1', 'a3:1', 'd1:1', 'd2:1']);
    // Nothing of the group is left behind: only the (empty) stream and the wake stream.
    expect(await existingKeys(name)).toEqual([k.id, k.dead, k.wake].sort());
  });

  it("ordered: the leased head's lease runs out and it is dead-lettered; the retried message behind it then comes, and the new record retries in turn", async () => {
    const name = uniqueQueue('gdla');
    const queue = grouped(name);
    const k = keysOf(name);
    await deadLettered(queue, [['d', 'a']]);
    const [record] = await recordIds(k.dead);
    await queue.send('a1', { groupId: 'a' });
    const [head] = await queue.receive(100);
    expect(head!.payload).toBe('a1');
    expect(await adminOf(name).retryGroupedDeadLetter(operator, k.id, record!)).toMatchObject({ status: 'retried' });
    expect(await queue.receive(60_000, { max: 10 })).toEqual([]);
    // Once the lease is due, a receive dead-letters a1 (deliveryLimit 1); then d, and only d, comes.
    let got: Awaited<ReturnType<typeof queue.receive>> = [];
    await eventually(async () => (got = await queue.receive(60_000, { max: 10 })).length > 0);
    expect(got.map((m) => [m.payload, m.deliveryCount])).toEqual([['d', 1]]);
    expect((await range(conn, k.dead)).map(([, fields]) => fields.slice(0, 2).concat(fields.slice(-2)))).toEqual([['payload', 'a1', 'group', 'a']]);
    expect(await queue.ack(got[0]!)).toBe(true);
    expect(await adminOf(name).retryAllGroupedDeadLetters(operator, k.id)).toEqual({ done: 1, failed: 0, aborted: false });
    expect((await queue.receive(60_000, { max: 10 })).map((m) => [m.payload, m.deliveryCount])).toEqual([['a1', 1]]);
  });

  it('two admins retry the same record at once: exactly one retries it, the other finds it missing; one message, delivered once', async () => {
    const name = uniqueQueue('gdla');
    const queue = grouped(name);
    const k = keysOf(name);
    await deadLettered(queue, [['p', 'a']]);
    const [record] = await recordIds(k.dead);
    const results = await Promise.all([
      adminOf(name).retryGroupedDeadLetter(operator, k.id, record!),
      adminOf(name).retryGroupedDeadLetter(operator, k.id, record!),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['missing', 'retried']);
    expect(Number(await conn.raw(k.id, ['XLEN', k.id]))).toBe(1);
    expect(await conn.raw(k.ready, ['ZRANGE', k.ready, '0', '-1'])).toEqual(['a']);
    const batch = await queue.receive(60_000, { max: 10 });
    expect(batch.map((m) => [m.payload, m.groupId, m.id])).toEqual([['p', 'a', (results.find((r) => r.status === 'retried') as { newId: string }).newId]]);
    await queue.ack(batch[0]!);
    expect(await queue.receive(60_000, { max: 10 })).toEqual([]);

    // Two bulk retries racing over many records in several groups: each record retried once.
    await deadLettered(
      queue,
      Array.from({ length: 12 }, (_, i): [string, string] => [`m${i}`, `g${i % 3}`]),
    );
    const [x, y] = await Promise.all([
      adminOf(name).retryAllGroupedDeadLetters(operator, k.id, { pageSize: 1 }),
      adminOf(name).retryAllGroupedDeadLetters(operator, k.id, { pageSize: 5 }),
    ]);
    expect(x.done + y.done).toBe(12);
    expect(x.failed + y.failed).toBe(0);
    expect(await recordIds(k.dead)).toEqual([]);
    // Each bulk retry goes oldest first and skips what the other took, so within a group the
    // retried records keep their dead-letter order.
    const got: Record<string, string[]> = {};
    for (;;) {
      const next = await queue.receive(60_000, { max: 10 });
      if (next.length === 0) break;
      expect(new Set(next.map((m) => m.groupId)).size).toBe(next.length);
      for (const m of next) {
        (got[m.groupId!] ??= []).push(m.payload);
        await queue.ack(m);
      }
    }
    expect(got).toEqual({
      g0: ['m0', 'm3', 'm6', 'm9'],
      g1: ['m1', 'm4', 'm7', 'm10'],
      g2: ['m2', 'm5', 'm8', 'm11'],
    });
    expect(await existingKeys(name)).toEqual([k.id, k.dead, k.wake].sort());
  });

  it.each([
    { label: 'groupConcurrency 2, configured', concurrency: 2, configured: true },
    { label: 'groupConcurrency 3, configured', concurrency: 3, configured: true },
    { label: 'groupConcurrency 3, unknown to the admin', concurrency: 3, configured: false },
  ])('fair groups ($label): retried messages never exceed the in-flight bound, and all come', async ({ concurrency, configured }) => {
    const name = uniqueQueue('gdla');
    const queue = grouped(name, { groupConcurrency: concurrency });
    const k = keysOf(name);
    await deadLettered(
      queue,
      Array.from({ length: 4 }, (_, i): [string, string] => [`d${i}`, 'f']),
    );
    const admin = adminOf(name, configured ? concurrency : undefined);
    // Fill the group to its bound, then retry everything into it.
    await queue.sendMany(Array.from({ length: concurrency }, (_, i) => ({ payload: `f${i}`, groupId: 'f' })));
    const leased = [];
    for (let i = 0; i < concurrency; i++) leased.push(...(await queue.receive(60_000, { max: 10 })));
    expect(leased).toHaveLength(concurrency);
    expect(await admin.retryAllGroupedDeadLetters(operator, k.id)).toEqual({ done: 4, failed: 0, aborted: false });
    expect(await queue.receive(60_000, { max: 10 })).toEqual([]);
    const inFlight = new Map(leased.map((m) => [m.id, m]));
    const seen: string[] = [];
    while (inFlight.size > 0) {
      // Settle one, then take all that may come: never more than `concurrency` in flight.
      const [first] = inFlight.values();
      await queue.ack(first!);
      inFlight.delete(first!.id);
      for (;;) {
        const batch = await queue.receive(60_000, { max: 10 });
        if (batch.length === 0) break;
        for (const m of batch) {
          inFlight.set(m.id, m);
          seen.push(`${m.payload}:${m.deliveryCount}`);
        }
        expect(inFlight.size).toBeLessThanOrEqual(concurrency);
      }
    }
    expect(seen.sort()).toEqual(['d0:1', 'd1:1', 'd2:1', 'd3:1']);
    expect(await existingKeys(name)).toEqual([k.id, k.dead, k.wake].sort());
  });

  it.each([
    { key: 'ready ring', make: (k: ReturnType<typeof keysOf>) => ['SET', k.ready, 'x'] },
    { key: 'wake stream', make: (k: ReturnType<typeof keysOf>) => ['SET', k.wake, 'x'] },
    { key: 'backlog', make: (k: ReturnType<typeof keysOf>) => ['SET', k.backlog('b'), 'x'] },
    { key: 'in-flight hash', make: (k: ReturnType<typeof keysOf>) => ['SET', k.inflight, 'x'] },
    { key: 'grouped stream', make: (k: ReturnType<typeof keysOf>) => ['SET', k.id, 'x'] },
    { key: 'ungrouped stream', make: (k: ReturnType<typeof keysOf>) => ['SET', k.ungrouped, 'x'] },
  ])('a $key of another type: a typed error, and every key unchanged', async ({ make }) => {
    const name = uniqueQueue('gdla');
    const queue = grouped(name);
    const k = keysOf(name);
    await deadLettered(queue, [
      ['p1', 'a'],
      ['p2', 'b'],
    ]);
    const command = make(k);
    if (command[1] === k.id) await conn.raw(k.id, ['DEL', k.id]);
    await conn.raw(command[1]!, command);
    const before = await snapshot(name);
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }], audit });
    await expect(admin.retryAllGroupedDeadLetters(operator, k.id)).rejects.toMatchObject({ name: 'RespireKeyTypeError', code: 'WRONG_TYPE' });
    // The record of group b: the one whose backlog may be the bad key.
    const [, second] = await recordIds(k.dead);
    await expect(admin.retryGroupedDeadLetter(operator, k.id, second!)).rejects.toMatchObject({ name: 'RespireKeyTypeError' });
    expect(await snapshot(name)).toBe(before);
    expect(records.map((r) => [r.action, r.result])).toEqual([
      ['retry-all', 'refused'],
      ['retry', 'refused'],
    ]);
  });

  it('a dead-letter stream of another type: a typed error on list, retry and retry-all', async () => {
    const name = uniqueQueue('gdla');
    const k = keysOf(name);
    await conn.raw(k.dead, ['SET', k.dead, 'x']);
    const before = await snapshot(name);
    const admin = adminOf(name);
    await expect(admin.groupedDeadLetters(k.id)).rejects.toMatchObject({ name: 'RespireKeyTypeError' });
    await expect(admin.retryGroupedDeadLetter(operator, k.id, '1-1')).rejects.toMatchObject({ name: 'RespireKeyTypeError' });
    await expect(admin.retryAllGroupedDeadLetters(operator, k.id)).rejects.toMatchObject({ name: 'RespireKeyTypeError' });
    expect(await snapshot(name)).toBe(before);
  });

  it('the grouped stream missing (deleted behind the queue): the retry makes it again, and the message is received and ACKed', async () => {
    const name = uniqueQueue('gdla');
    const queue = grouped(name);
    const k = keysOf(name);
    await deadLettered(queue, [['p', 'a']]);
    await conn.raw(k.id, ['DEL', k.id, k.wake]);
    expect(await existingKeys(name)).toEqual([k.dead]);
    const [record] = await recordIds(k.dead);
    expect(await adminOf(name).retryGroupedDeadLetter(operator, k.id, record!)).toMatchObject({ status: 'retried' });
    const [m] = await queue.receive(60_000);
    expect([m!.payload, m!.groupId, m!.deliveryCount]).toEqual(['p', 'a', 1]);
    expect(await queue.ack(m!)).toBe(true);
    expect(await existingKeys(name)).toEqual([k.id, k.dead, k.wake].sort());
  });

  it('crafted records (missing, extra, reordered fields; an empty group; a group in the middle): listed foreign, refused, nothing changed', async () => {
    const name = uniqueQueue('gdla');
    const queue = grouped(name);
    const k = keysOf(name);
    await deadLettered(queue, [['good', 'a']]);
    const crafted: string[][] = [
      ['payload', 'p', 'source_id', '1-1'],
      ['payload', 'p', 'source_id', '1-1', 'delivery_count', '1', 'group', 'a', 'extra', 'x'],
      ['source_id', '1-1', 'payload', 'p', 'delivery_count', '1', 'group', 'a'],
      ['payload', 'p', 'source_id', '1-1', 'delivery_count', '1', 'group', ''],
      ['payload', 'p', 'source_id', '1-1', 'delivery_count', '1', 'headers', '', 'group', ''],
      ['payload', 'p', 'source_id', '1-1', 'group', 'a', 'delivery_count', '1'],
      ['payload', 'p', 'source_id', '1-1', 'delivery_count', '1', 'group', 'a', 'headers', 'h'],
      ['payload', 'p', 'source_id', '1-1', 'delivery_count', '1', 'group', 'a', 'group', 'b'],
      ['payload', 'p', 'source_id', '1-1', 'delivery_count', 'one', 'group', 'a'],
      ['payload', 'p', 'source_id', '1-1', 'delivery_count', '-1', 'group', 'a'],
      ['group', 'a', 'payload', 'p', 'source_id', '1-1', 'delivery_count', '1'],
    ];
    const ids: string[] = [];
    for (const fields of crafted) ids.push(String(await conn.raw(k.dead, ['XADD', k.dead, '*', ...fields])));
    const [good] = await recordIds(k.dead);
    const admin = adminOf(name);
    const page = await admin.groupedDeadLetters(k.id, { order: 'oldest' });
    expect(page.items.map((r) => r.kind)).toEqual(['queue', ...crafted.map(() => 'foreign')]);
    const before = await snapshot(name);
    for (const id of ids) expect(await admin.retryGroupedDeadLetter(operator, k.id, id)).toEqual({ status: 'refused', reason: expect.any(String) });
    expect(await snapshot(name)).toBe(before);
    // The bulk retry takes the good one and counts the others as failed, leaving them.
    expect(await admin.retryAllGroupedDeadLetters(operator, k.id, { pageSize: 4 })).toEqual({ done: 1, failed: crafted.length, aborted: false });
    expect(await recordIds(k.dead)).toEqual(ids);
    expect(good).not.toBe(ids[0]);
    expect((await queue.receive(60_000, { max: 10 })).map((m) => m.payload)).toEqual(['good']);
  });

  it('a crafted group no send accepts (over 1,024 bytes, or not UTF-8): listed foreign, refused, nothing changed; one at the limit is retried', async () => {
    const name = uniqueQueue('gdla');
    const queue = grouped(name);
    const k = keysOf(name);
    const craft = async (group: string | Buffer) =>
      String(await conn.raw(k.dead, ['XADD', k.dead, '*', 'payload', 'p', 'source_id', '1-1', 'delivery_count', '1', 'group', group]));
    // Groups no send can name (queue README "Message groups": 1..1,024 bytes of well-formed text), so
    // not ones the queue wrote: 1,025 bytes; a stray byte, a truncated sequence, an overlong form, a surrogate.
    const over = [
      await craft('x'.repeat(1025)),
      await craft('é'.repeat(512) + 'x'),
      await craft(Buffer.from([0x61, 0xff, 0x62])),
      await craft(Buffer.from([0x61, 0xe2, 0x82])),
      await craft(Buffer.from([0xc0, 0xaf])),
      await craft(Buffer.from([0xed, 0xa0, 0x80])),
    ];
    const limit = await craft('é'.repeat(511) + 'xx');
    const admin = adminOf(name);
    expect((await admin.groupedDeadLetters(k.id, { order: 'oldest' })).items.map((r) => [r.id, r.kind])).toEqual([
      ...over.map((id) => [id, 'foreign']),
      [limit, 'queue'],
    ]);
    const before = await snapshot(name);
    for (const id of over) {
      expect(await admin.retryGroupedDeadLetter(operator, k.id, id)).toEqual({
        status: 'refused',
        reason: expect.stringContaining('not a group ID a send accepts'),
      });
    }
    expect(await snapshot(name)).toBe(before);
    expect(await admin.retryAllGroupedDeadLetters(operator, k.id)).toEqual({ done: 1, failed: over.length, aborted: false });
    expect(await recordIds(k.dead)).toEqual(over);
    const batch = await queue.receive(60_000, { max: 10 });
    expect(batch.map((m) => [m.payload, m.groupId])).toEqual([['p', 'é'.repeat(511) + 'xx']]);
    await queue.ack(batch[0]!);
    expect(await existingKeys(name)).toEqual([k.id, k.dead, k.wake].sort());
  });

  it('group IDs at the byte limit, with multi-byte UTF-8, braces and colons, and headers: retried into the same group, received, acked, no key left', async () => {
    const name = uniqueQueue('gdla');
    const queue = grouped(name);
    const k = keysOf(name);
    const groups = ['é'.repeat(512), 'x'.repeat(1024), '{other}:group:a', '😀:{}', ':'];
    await deadLettered(
      queue,
      groups.map((g, i): [string, string, Record<string, string>] => [`p${i}`, g, { tenant: `t${i}`, 'x-é': '{}' }]),
    );
    const admin = adminOf(name);
    const page = await admin.groupedDeadLetters(k.id, { order: 'oldest' });
    expect(page.items.map((r) => (r.kind === 'queue' ? r.group : r.kind))).toEqual(groups);
    expect(await admin.retryAllGroupedDeadLetters(operator, k.id, { pageSize: 1000 })).toEqual({ done: groups.length, failed: 0, aborted: false });
    for (const g of groups) expect(Number(await conn.raw(k.backlog(g), ['LLEN', k.backlog(g)]))).toBe(1);
    const batch = await queue.receive(60_000, { max: 10 });
    const byPayload = [...batch].sort((x, y) => x.payload.localeCompare(y.payload));
    expect(byPayload.map((m) => [m.payload, m.groupId, m.deliveryCount, m.headers])).toEqual(
      groups.map((g, i) => [`p${i}`, g, 1, { tenant: `t${i}`, 'x-é': '{}' }]),
    );
    expect(await queue.ackMany(batch)).toEqual(batch.map(() => true));
    expect(await existingKeys(name)).toEqual([k.id, k.dead, k.wake].sort());
  });

  it('retry-all and delete-all: page sizes 1 and 1000 and limits work, 1001 and 0 are refused before any I/O; records written meanwhile are left', async () => {
    const name = uniqueQueue('gdla');
    const queue = grouped(name);
    const k = keysOf(name);
    await deadLettered(
      queue,
      Array.from({ length: 6 }, (_, i): [string, string] => [`m${i}`, `g${i % 2}`]),
    );
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { groupedQueues: [{ name }], audit });
    const before = await snapshot(name);
    for (const options of [{ pageSize: 1001 }, { pageSize: 0 }, { limit: 0 }, { pageSize: 1.5 }, { limit: -1 }]) {
      await expect(admin.retryAllGroupedDeadLetters(operator, k.id, options)).rejects.toMatchObject({ name: 'RespireValidationError' });
      await expect(admin.deleteAllGroupedDeadLetters(operator, k.id, options)).rejects.toMatchObject({ name: 'RespireValidationError' });
    }
    expect(await snapshot(name)).toBe(before);
    const ids = await recordIds(k.dead);

    // Page size 1, limit 3: the three oldest, one script call each; a record written during the run is never touched.
    const late: Promise<unknown>[] = [];
    const progress: number[] = [];
    const first = await admin.retryAllGroupedDeadLetters(operator, k.id, {
      pageSize: 1,
      limit: 3,
      onProgress: (p) => {
        progress.push(p.done);
        late.push(conn.raw(k.dead, ['XADD', k.dead, '*', 'payload', 'late', 'source_id', '1-1', 'delivery_count', '1', 'group', 'a']));
      },
    });
    await Promise.all(late);
    expect(first).toEqual({ done: 3, failed: 0, aborted: false });
    expect(progress).toEqual([1, 2, 3]);
    const after = await recordIds(k.dead);
    expect(after.slice(0, 3)).toEqual(ids.slice(3));
    expect(after).toHaveLength(6);

    // Page size 1000 over the rest: only the records present at the start; the late ones stay.
    const lateIds = after.slice(3);
    const second = await admin.retryAllGroupedDeadLetters(operator, k.id, {
      pageSize: 1000,
      onProgress: () => void late.push(conn.raw(k.dead, ['XADD', k.dead, '*', 'payload', 'later', 'source_id', '1-1', 'delivery_count', '1', 'group', 'a'])),
    });
    await Promise.all(late);
    expect(second).toEqual({ done: 6, failed: 0, aborted: false });
    const rest = await recordIds(k.dead);
    expect(rest).toHaveLength(1);
    expect(lateIds.every((id) => !rest.includes(id))).toBe(true);
    expect(await admin.deleteAllGroupedDeadLetters(operator, k.id, { pageSize: 1, limit: 1 })).toEqual({ done: 1, failed: 0, aborted: false });
    expect(Number(await conn.raw(k.dead, ['XLEN', k.dead]))).toBe(0);

    // Every retried message arrives once: the six dead letters and the three late records.
    const got: string[] = [];
    for (;;) {
      const batch = await queue.receive(60_000, { max: 10 });
      if (batch.length === 0) break;
      for (const m of batch) got.push(m.payload);
      await queue.ackMany(batch);
    }
    expect(got.sort()).toEqual([...Array.from({ length: 6 }, (_, i) => `m${i}`), 'late', 'late', 'late'].sort());
    expect(records.map((r) => [r.action, r.result])).toEqual([
      ['retry-all', 'ok'],
      ['retry-all', 'ok'],
      ['delete-all', 'ok'],
    ]);
    expect(await existingKeys(name)).toEqual([k.id, k.dead, k.wake].sort());
  });
});
