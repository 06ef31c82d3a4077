// The admin's reads on every target: counts, pages, bodies, dead letters, discovery.
import { keySlot } from '@respire/core-scripts/internal';
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin, isNotFound, isUnknownResource, type DeadLetterRecord } from '../src/index.js';
import { addQueueRecord, addWorkerRecord, operator, pendingRows, sleep, targets, uniqueKeys, uniqueQueue, type Connection } from './support.js';

/** The read views, on node-redis 6 (RESP3) and 5 (RESP2), a 3-master Cluster and the fake server. */
describe.each(targets)('RespireAdmin reads on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('queue counts come from the queue metadata: ready (group lag), in flight, due, dead letters', async () => {
    const name = uniqueQueue();
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, deliveryLimit: 1 });
    const admin = new RespireAdmin(conn.client, { queues: [{ name }] });
    const id = `{respire-queue:${name}}:stream`;
    for (const p of ['a', 'b', 'c', 'd', 'e']) await queue.send(p);
    expect(await admin.queueStatus(id)).toMatchObject({ length: 5, ready: 5, inFlight: 0, due: 0, deadLetters: 0 });
    const [a, b] = await queue.receive(60_000, { max: 2 });
    const [c] = await queue.receive(1, { max: 1 }); // a lease of 1 ms: due at once
    await queue.nack(b!, 60_000); // delayed
    await sleep(5);
    const status = await admin.queueStatus(id);
    expect(status).toMatchObject({ length: 5, ready: 2, inFlight: 3, due: 1, deadLetters: 0 });
    // The next receive dead-letters c (delivery limit 1); the view follows.
    await queue.receive(60_000, { max: 1 });
    expect(await admin.queueStatus(id)).toMatchObject({ length: 4, inFlight: 3, due: 0, deadLetters: 1 });

    // The leased/delayed view: receipt-free, server time, states derived from the member format.
    const deliveries = await admin.queueDeliveries(id, { count: 10 });
    const byId = new Map(deliveries.items.map((d) => [d.id, d]));
    expect(byId.get(a!.id)).toMatchObject({ state: 'leased', deliveryCount: 1, due: false });
    expect(byId.get(b!.id)).toMatchObject({ state: 'delayed', deliveryCount: 1, due: false });
    expect(byId.has(c!.id)).toBe(false);
    expect(Math.abs(deliveries.serverTimeMs - Date.now())).toBeLessThan(60_000);
    expect(byId.get(b!.id)!.untilMs).toBeGreaterThan(deliveries.serverTimeMs + 50_000);
    expect(JSON.stringify(deliveries)).not.toContain(a!.receipt);
  });

  it('exists: false for a queue with no keys under its name and key prefix; true once sent to (also when drained) and with dead letters alone', async () => {
    const name = uniqueQueue();
    const id = `{respire-queue:${name}}:stream`;
    const admin = new RespireAdmin(conn.client, { queues: [{ name }, { name, keyPrefix: 'elsewhere:' }] });
    expect(await admin.queueStatus(id)).toMatchObject({ exists: false, length: 0, inFlight: 0, deadLetters: 0 });
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec });
    await queue.send('a');
    expect(await admin.queueStatus(id)).toMatchObject({ exists: true, length: 1 });
    for (const m of await queue.receive(60_000)) expect(await queue.ack(m)).toBe(true);
    expect(await admin.queueStatus(id)).toMatchObject({ exists: true, length: 0, inFlight: 0, deadLetters: 0 });
    expect(await admin.queueStatus(`elsewhere:${id}`)).toMatchObject({ exists: false });

    const dead = uniqueQueue();
    await addQueueRecord(conn, `{respire-queue:${dead}}:dead-letter`, 'x');
    const onlyDead = new RespireAdmin(conn.client, { queues: [{ name: dead }] });
    expect(await onlyDead.queueStatus(`{respire-queue:${dead}}:stream`)).toMatchObject({ exists: true, length: 0, deadLetters: 1 });
  });

  it('ready and group lag are null (unknown), never 0, when the server cannot tell', async () => {
    const name = uniqueQueue();
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec });
    const admin = new RespireAdmin(conn.client, { queues: [{ name }] });
    const raw = new RespireAdmin(conn.client, { streams: [{ stream: `{respire-queue:${name}}:stream`, label: 'the same stream, seen raw' }] });
    const id = `{respire-queue:${name}}:stream`;
    expect(await admin.queueStatus(id)).toMatchObject({ length: 0, ready: 0 }); // no stream yet: nothing is waiting
    await queue.send('a');
    await queue.send('b');
    const third = await queue.send('c');
    expect(await admin.queueStatus(id)).toMatchObject({ length: 3, ready: 3 }); // no group yet: every entry waits
    await queue.receive(60_000, { max: 1 });
    expect(await admin.queueStatus(id)).toMatchObject({ ready: 2 });
    await conn.raw(id, ['XDEL', id, third]); // a deletion past the group's position: Redis can no longer count the lag
    expect(await admin.queueStatus(id)).toMatchObject({ length: 2, ready: null });
    const stream = (await raw.overview()).streams[0]!;
    expect(stream.groups).toEqual([
      { name: 'respire', consumers: 1, pending: 1, lag: null, lastDeliveredId: expect.stringMatching(/^\d+-\d+$/), entriesRead: 1 },
    ]);
  });

  it('pages queue deliveries by rank without duplicates or gaps, and ends on the last page', async () => {
    const name = uniqueQueue();
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec });
    const admin = new RespireAdmin(conn.client, { queues: [{ name }] });
    for (let i = 0; i < 7; i++) await queue.send(String(i));
    const leased = await queue.receive(60_000, { max: 7 });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await admin.queueDeliveries(`{respire-queue:${name}}:stream`, { count: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((d) => d.id));
      cursor = page.next;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(leased.map((m) => m.id).sort());
  });

  it('stream status: length, each group with consumers, pending and lag, the dead-letter length; a missing stream', async () => {
    const { stream, dead } = uniqueKeys();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead, label: 'orders' }, { stream: `${stream}-none` }] });
    for (let i = 0; i < 4; i++) await conn.raw(stream, ['XADD', stream, '*', 'i', String(i)]);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g1', '0']);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g2', '$']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g1', 'c1', 'COUNT', '3', 'STREAMS', stream, '>']);
    await addWorkerRecord(conn, dead, '1-1', ['i', '9']);
    const status = await admin.streamStatus(stream);
    expect(status).toMatchObject({ length: 4, exists: true, deadLetters: 1 });
    expect(status.resource).toMatchObject({ label: 'orders', retryAtomic: true });
    const g1 = status.groups.find((g) => g.name === 'g1')!;
    expect(g1).toMatchObject({ consumers: 1, pending: 3, lag: 1 });
    expect(status.groups.find((g) => g.name === 'g2')).toMatchObject({ consumers: 0, pending: 0, lag: 0 });
    expect(await admin.streamStatus(`${stream}-none`)).toMatchObject({ length: 0, exists: false, groups: [], deadLetters: null });
    const overview = await admin.overview();
    expect(overview.streams.map((s) => s.resource.id)).toEqual([stream, `${stream}-none`]);
    expect(overview.queues).toEqual([]);
  });

  it('consumers and pending entries: idle, owner, delivery count; paged without duplicates or gaps; filtered by consumer', async () => {
    const { stream } = uniqueKeys();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }] });
    for (let i = 0; i < 9; i++) await conn.raw(stream, ['XADD', stream, '*', 'i', String(i)]);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '5', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c2', 'COUNT', '4', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XGROUP', 'CREATECONSUMER', stream, 'g', 'idle-one']);
    const consumers = await admin.consumers(stream, 'g');
    expect(consumers).toMatchObject({ total: 3, truncated: false });
    expect(consumers.items.map((c) => [c.name, c.pending]).sort()).toEqual([
      ['c1', 5],
      ['c2', 4],
      ['idle-one', 0],
    ]);
    for (const c of consumers.items) expect(c.idleMs).toBeGreaterThanOrEqual(0);
    // Above the limit the list is declined (XINFO CONSUMERS has no COUNT); at the limit it is read.
    expect(await admin.consumers(stream, 'g', { limit: 2 })).toEqual({ items: [], total: 3, truncated: true });
    expect((await admin.consumers(stream, 'g', { limit: 3 })).items).toHaveLength(3);
    const missing = `${stream}-none`;
    const noStream = await new RespireAdmin(conn.client, { streams: [{ stream: missing }] }).consumers(missing, 'g').catch((e: unknown) => e);
    expect(isNotFound(noStream)).toEqual({ kind: 'group', name: 'g', known: [] });
    expect((noStream as Error).message).toContain('does not exist');

    const all = await pendingRows(conn, stream, 'g');
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await admin.pending(stream, 'g', { count: 4, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((p) => p.id));
      for (const p of page.items) expect(p).toMatchObject({ deliveryCount: 1, consumer: expect.stringMatching(/^c[12]$/) });
      cursor = page.next;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(all.map((p) => p.id));
    const exact = await admin.pending(stream, 'g', { count: 9 });
    expect(exact.items).toHaveLength(9);
    expect(exact.next).toBeUndefined();
    const c2 = await admin.pending(stream, 'g', { consumer: 'c2' });
    expect(c2.items.map((p) => p.consumer)).toEqual(['c2', 'c2', 'c2', 'c2']);
    // A group the stream does not have is "not found", with the groups that do exist.
    for (const read of [() => admin.pending(stream, 'gg'), () => admin.consumers(stream, 'gg'), () => admin.group(stream, 'gg')]) {
      const error = await read().catch((e: unknown) => e);
      expect(isNotFound(error)).toEqual({ kind: 'group', name: 'gg', known: ['g'] });
      expect(error).toMatchObject({ name: 'RespireValidationError', code: 'INVALID_ARGUMENT', argument: 'group' });
    }
    expect(await admin.group(stream, 'g')).toMatchObject({ name: 'g', consumers: 3, pending: 9, lag: 0, entriesRead: 9 });
  });

  it('entry bodies on demand, null when deleted; binary field names and values intact', async () => {
    const { stream } = uniqueKeys();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }] });
    const name = Buffer.from([0xff, 0x00, 0x3c]);
    const value = Buffer.from([0xc3, 0x28, 0x00, 0xfe]);
    const id = String(await conn.raw(stream, ['XADD', stream, '*', name, value, 'k', 'v']));
    const body = await admin.entry(stream, id);
    expect(body!.fields[0]![0].equals(name)).toBe(true);
    expect(body!.fields[0]![1].equals(value)).toBe(true);
    expect(body!.fields[1]!.map(String)).toEqual(['k', 'v']);
    await conn.raw(stream, ['XDEL', stream, id]);
    expect(await admin.entry(stream, id)).toBeNull();
  });

  it('dead letters: worker records read positionally, queue records by their fields, others foreign; paged both ways', async () => {
    const { stream, dead } = uniqueKeys();
    const name = uniqueQueue();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }], queues: [{ name }] });
    const ids: string[] = [];
    ids.push(
      await addWorkerRecord(conn, dead, '5-1', ['_respire.reason', 'collides', Buffer.from([0xff]), 'x'], {
        reason: 'processing-failed',
        exceptionType: 'TypeError',
        attempt: 4,
      }),
    );
    ids.push(String(await conn.raw(dead, ['XADD', dead, '*', 'hand', 'written'])));
    for (let i = 0; i < 5; i++) ids.push(await addWorkerRecord(conn, dead, `6-${i}`, ['i', String(i)]));
    const first = await admin.deadLetter(stream, ids[0]!);
    expect(first).toMatchObject({ kind: 'worker', sourceId: '5-1', group: 'g', attempt: 4, reason: 'processing-failed', exceptionType: 'TypeError' });
    const fields = (first as Extract<DeadLetterRecord, { kind: 'worker' }>).fields;
    expect(fields.map(([f]) => f.toString('latin1'))).toEqual(['_respire.reason', '\xff']);
    expect(await admin.deadLetter(stream, ids[1]!)).toMatchObject({ kind: 'foreign' });
    expect(await admin.deadLetter(stream, '1-1')).toBeNull();

    for (const order of ['newest', 'oldest'] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await admin.deadLetters(stream, { count: 3, order, ...(cursor ? { cursor } : {}) });
        seen.push(...page.items.map((r) => r.id));
        cursor = page.next;
      } while (cursor);
      expect(seen).toEqual(order === 'oldest' ? ids : [...ids].reverse());
    }

    const qdead = `{respire-queue:${name}}:dead-letter`;
    await addQueueRecord(conn, qdead, Buffer.from([0, 1, 2, 255]), '9-9', 7);
    await conn.raw(qdead, ['XADD', qdead, '*', 'payload', 'x']);
    const page = await admin.deadLetters(`{respire-queue:${name}}:stream`, { order: 'oldest' });
    expect(page.items[0]).toMatchObject({ kind: 'queue', sourceId: '9-9', deliveryCount: 7 });
    expect((page.items[0] as Extract<DeadLetterRecord, { kind: 'queue' }>).payload.equals(Buffer.from([0, 1, 2, 255]))).toBe(true);
    expect(page.items[1]).toMatchObject({ kind: 'foreign' });
  });

  it('discovers queues with a bounded SCAN of every master (configured ones keep their entry); unknown ids are refused', async () => {
    // One queue in each third of the slots: on the Cluster, one on each of the three masters.
    const names: string[] = [];
    for (let third = 0; third < 3; third++) {
      for (;;) {
        const name = uniqueQueue('d');
        if (Math.floor(keySlot(`{respire-queue:${name}}`) / 5462) === third) {
          names.push(name);
          break;
        }
      }
    }
    names.push(uniqueQueue('d'));
    for (const name of names) await new ReliableQueue(conn.client, name, { codec: utf8Codec }).send('x');
    const prefixed = uniqueQueue('p');
    await new ReliableQueue(conn.client, prefixed, { codec: utf8Codec, keyPrefix: 'tenant:' }).send('x');
    const admin = new RespireAdmin(conn.client, { queues: [{ name: names[0]! }], discoverQueues: { scanCount: 1000, maxPages: 1000 } });
    const { resources, discoveryTruncated } = await admin.resources();
    expect(discoveryTruncated).toBe(false);
    const queues = resources.filter((r) => r.kind === 'queue');
    for (const name of names) expect(queues.filter((q) => q.kind === 'queue' && q.name === name)).toHaveLength(1);
    expect(queues.find((q) => q.kind === 'queue' && q.name === names[0])).toMatchObject({ discovered: false });
    expect(queues.find((q) => q.kind === 'queue' && q.name === names[1])).toMatchObject({ discovered: true });
    expect(queues.find((q) => q.kind === 'queue' && q.name === prefixed)).toMatchObject({
      keyPrefix: 'tenant:',
      id: `tenant:{respire-queue:${prefixed}}:stream`,
    });
    expect(await admin.resource(`{respire-queue:${names[2]}}:stream`)).toMatchObject({ kind: 'queue', name: names[2], discovered: true });
    await expect(admin.resource('{respire-queue:never-sent}:stream')).rejects.toSatisfy(isUnknownResource);
    await expect(admin.retryDeadLetter(operator, '{respire-queue:never-sent}:stream', '1-1')).rejects.toSatisfy(isUnknownResource);
    await expect(new RespireAdmin(conn.client).resource(`{respire-queue:${names[1]}}:stream`)).rejects.toMatchObject({ name: 'RespireValidationError' });

    // A page limit of 1 SCAN call with COUNT 1 stops early and says so.
    // A key under the pattern that is not valid UTF-8 cannot be addressed by a string id: skipped.
    const binaryKey = Buffer.concat([Buffer.from('{respire-queue:'), Buffer.from([0xff, 0xfe]), Buffer.from('}:stream')]);
    await conn.raw(binaryKey as unknown as string, ['XADD', binaryKey as unknown as string, '*', 'payload', 'x']);
    const again = await admin.resources();
    expect(again.resources.filter((r) => r.id.includes('\ufffd'))).toEqual([]);
    await conn.raw(binaryKey as unknown as string, ['DEL', binaryKey as unknown as string]);

    const tiny = new RespireAdmin(conn.client, { discoverQueues: { scanCount: 1, maxPages: 1 } });
    expect((await tiny.resources()).discoveryTruncated).toBe(true);
  });
});
