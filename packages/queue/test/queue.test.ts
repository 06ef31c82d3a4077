// The queue's contract (README "The contract", CONFORMANCE.md) on every target.
import { expect, it } from 'vitest';
import { queueKeys } from '@respire/core-scripts/internal';
import { ReliableQueue, bytesCodec, isRespireError, jsonCodec, utf8Codec, type ReceivedMessage } from '@respire/queue';
import {
  describeOnTargets,
  eventually,
  nextServerMillisecond,
  queueFixture,
  serverTimeMs,
  targets,
  uniqueName,
  untilAllDue,
  type Connection,
} from './support.js';

describeOnTargets('ReliableQueue', targets, (target, connection) => {
  const queueOf = queueFixture(connection);

  it('sends, receives and acks a message; ack removes the message and its delivery metadata', async () => {
    const queue = queueOf();
    const id = await queue.send('Order shipped');
    expect(id).toMatch(/^\d+-\d+$/);
    const [message, ...rest] = await queue.receive(30_000, { max: 10 });
    expect(rest).toEqual([]);
    expect(message).toMatchObject({ id, payload: 'Order shipped', deliveryCount: 1 });
    expect(typeof message!.receipt).toBe('string');
    expect(await queue.ack(message!)).toBe(true);
    const keys = queueKeys(queue.name, '');
    expect(await connection().raw(keys.stream, ['XLEN', keys.stream])).toBe(0);
    expect(await connection().raw(keys.deadlines, ['EXISTS', keys.deadlines])).toBe(0);
    expect(await queue.receive(30_000)).toEqual([]);
  });

  it('returns at most max messages in stream order and nothing leased twice', async () => {
    const queue = queueOf();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await queue.send(`m${i}`));
    const first = await queue.receive(30_000, { max: 3 });
    const second = await queue.receive(30_000, { max: 10 });
    expect(first.map((m) => m.id)).toEqual(ids.slice(0, 3));
    expect(second.map((m) => m.id)).toEqual(ids.slice(3));
    expect(await queue.receive(30_000, { max: 10 })).toEqual([]);
  });

  it('defaults max to 10', async () => {
    const queue = queueOf();
    for (let i = 0; i < 12; i++) await queue.send(`m${i}`);
    expect(await queue.receive(30_000)).toHaveLength(10);
  });

  it('redelivers after the visibility timeout with a new receipt; the stale receipt can neither ack nor nack', async () => {
    const queue = queueOf();
    const id = await queue.send('x');
    const [first] = await queue.receive(100);
    expect(await queue.receive(30_000)).toEqual([]);
    await untilAllDue(connection(), queue);
    const [second] = await queue.receive(30_000);
    expect(second).toMatchObject({ id, payload: 'x', deliveryCount: 2 });
    expect(second!.receipt).not.toBe(first!.receipt);
    expect(await queue.ack(first!)).toBe(false);
    expect(await queue.nack(first!)).toBe(false);
    expect(await queue.ack(second!)).toBe(true);
  });

  it('returns false for an ack or nack after the lease expired, even before anyone redelivered', async () => {
    const queue = queueOf();
    await queue.send('x');
    const [message] = await queue.receive(50);
    await untilAllDue(connection(), queue);
    expect(await queue.ack(message!)).toBe(false);
    expect(await queue.nack(message!)).toBe(false);
    const [again] = await queue.receive(30_000);
    expect(again!.deliveryCount).toBe(2);
  });

  it('returns false for a receipt already completed', async () => {
    const queue = queueOf();
    await queue.send('x');
    const [message] = await queue.receive(30_000);
    expect(await queue.ack(message!)).toBe(true);
    expect(await queue.ack(message!)).toBe(false);
    expect(await queue.nack(message!)).toBe(false);
  });

  it('nack with delay 0 makes the message receivable at once and revokes the receipt', async () => {
    const queue = queueOf();
    await queue.send('x');
    const [message] = await queue.receive(30_000);
    expect(await queue.nack(message!, 0)).toBe(true);
    expect(await queue.ack(message!)).toBe(false);
    expect(await queue.nack(message!)).toBe(false);
    const [again] = await queue.receive(30_000);
    expect(again).toMatchObject({ id: message!.id, deliveryCount: 2 });
  });

  it('nack with a positive delay replaces the remaining visibility timeout', async () => {
    const queue = queueOf();
    await queue.send('x');
    const [message] = await queue.receive(60_000);
    expect(await queue.nack(message!, 150)).toBe(true);
    expect(await queue.receive(30_000)).toEqual([]);
    await untilAllDue(connection(), queue);
    const [again] = await queue.receive(30_000);
    expect(again).toMatchObject({ id: message!.id, deliveryCount: 2 });
  });

  it('acks and nacks through another instance of the same queue on another client', async () => {
    const name = uniqueName();
    const other = await target.connect();
    try {
      const a = new ReliableQueue(connection().client, name, { codec: utf8Codec });
      const b = new ReliableQueue(other.client, name, { codec: utf8Codec });
      await a.send('one');
      await a.send('two');
      const [one, two] = await a.receive(30_000);
      expect(await b.ack(one!)).toBe(true);
      expect(await b.nack(two!)).toBe(true);
      const [again] = await b.receive(30_000);
      expect(again).toMatchObject({ id: two!.id, deliveryCount: 2 });
    } finally {
      await other.close();
    }
  });

  it('a delivery limit of 3 gives exactly 3 deliveries, then a dead-letter entry with the exact fields', async () => {
    const queue = queueOf({ deliveryLimit: 3, codec: bytesCodec as never });
    const payload = Buffer.from([0, 255, 10, 13, 128]);
    const id = await queue.send(payload as never);
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const [message] = await queue.receive(30_000);
      counts.push(message!.deliveryCount);
      expect(await queue.nack(message!, 0)).toBe(true);
    }
    expect(counts).toEqual([1, 2, 3]);
    expect(await queue.receive(30_000)).toEqual([]);
    const dead = (await connection().raw(queue.deadLetterStreamKey, ['XRANGE', queue.deadLetterStreamKey, '-', '+'])) as [string, string[]][];
    expect(dead).toHaveLength(1);
    const fields = await readDeadLetterFields(connection(), queue.deadLetterStreamKey);
    expect(fields).toEqual([
      ['payload', payload],
      ['source_id', Buffer.from(id)],
      ['delivery_count', Buffer.from('3')],
    ]);
    const keys = queueKeys(queue.name, '');
    expect(await connection().raw(keys.stream, ['XLEN', keys.stream])).toBe(0);
    expect(await connection().raw(keys.deadlines, ['EXISTS', keys.deadlines])).toBe(0);
    expect(await queue.receive(30_000)).toEqual([]);
  });

  it('dead-letters an exhausted lease that expired without a nack, and the move takes no batch slot', async () => {
    const queue = queueOf({ deliveryLimit: 1 });
    await queue.send('poison');
    const [first] = await queue.receive(50);
    expect(first!.deliveryCount).toBe(1);
    const freshId = await queue.send('fresh');
    await untilAllDue(connection(), queue);
    const batch = await queue.receive(30_000, { max: 1 });
    expect(batch.map((m) => m.id)).toEqual([freshId]);
    expect(await connection().raw(queue.deadLetterStreamKey, ['XLEN', queue.deadLetterStreamKey])).toBe(1);
  });

  it('recovers due entries first, oldest deadline first, and examines at most max of them per call', async () => {
    const queue = queueOf({ deliveryLimit: 10 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await queue.send(`m${i}`));
    const leased = await queue.receive(30_000, { max: 4 });
    // Due times in reverse order of IDs: m3 first.
    for (const message of [...leased].reverse()) {
      expect(await queue.nack(message, 0)).toBe(true);
      await nextServerMillisecond(connection(), queue.streamKey);
    }
    const newer = await queue.send('new');
    const batch = await queue.receive(30_000, { max: 2 });
    expect(batch.map((m) => m.id)).toEqual([ids[3], ids[2]]);
    const next = await queue.receive(30_000, { max: 3 });
    expect(next.map((m) => m.id)).toEqual([ids[1], ids[0], newer]);
  });

  it('an empty batch can still move exhausted messages; the count of moves is bounded by max', async () => {
    const queue = queueOf({ deliveryLimit: 1 });
    for (let i = 0; i < 3; i++) await queue.send(`m${i}`);
    const leased = await queue.receive(30_000, { max: 3 });
    expect(await queue.nackMany(leased, 0)).toEqual([true, true, true]);
    expect(await queue.receive(30_000, { max: 2 })).toEqual([]);
    expect(await connection().raw(queue.deadLetterStreamKey, ['XLEN', queue.deadLetterStreamKey])).toBe(2);
    expect(await queue.receive(30_000, { max: 2 })).toEqual([]);
    expect(await connection().raw(queue.deadLetterStreamKey, ['XLEN', queue.deadLetterStreamKey])).toBe(3);
  });

  it('keeps payloads with all 256 byte values intact, in and out of the dead-letter stream', async () => {
    const queue = queueOf({ codec: bytesCodec as never, deliveryLimit: 1 });
    const payload = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    await queue.send(payload as never);
    const [message] = await queue.receive(30_000);
    expect(Buffer.compare(message!.payload as unknown as Buffer, payload)).toBe(0);
    await queue.nack(message!, 0);
    await queue.receive(30_000);
    const [[, value]] = (await readDeadLetterFields(connection(), queue.deadLetterStreamKey)) as [[string, Buffer]];
    expect(Buffer.compare(value, payload)).toBe(0);
  });

  it('deduplicates sends within the window, keeping the first payload, also after ack and after dead-lettering', async () => {
    const queue = queueOf({ deliveryLimit: 1 });
    const first = await queue.sendWithResult('first', { deduplicationId: 'order-42' });
    const again = await queue.sendWithResult('second', { deduplicationId: 'order-42' });
    expect(first.duplicate).toBe(false);
    expect(again).toEqual({ id: first.id, duplicate: true });
    const [message] = await queue.receive(30_000);
    expect(message!.payload).toBe('first');
    expect(await queue.ack(message!)).toBe(true);
    expect(await queue.send('third', { deduplicationId: 'order-42' })).toBe(first.id);
    expect(await queue.receive(30_000)).toEqual([]);

    const dl = await queue.send('doomed', { deduplicationId: 'order-43' });
    const [doomed] = await queue.receive(30_000);
    await queue.nack(doomed!, 0);
    await queue.receive(30_000);
    expect(await connection().raw(queue.deadLetterStreamKey, ['XLEN', queue.deadLetterStreamKey])).toBe(1);
    expect(await queue.send('doomed again', { deduplicationId: 'order-43' })).toBe(dl);
    expect(await queue.receive(30_000)).toEqual([]);
  });

  it('appends every send without a deduplication ID', async () => {
    const queue = queueOf();
    const a = await queue.send('same');
    const b = await queue.send('same');
    expect(a).not.toBe(b);
    expect(await queue.receive(30_000)).toHaveLength(2);
  });

  it('does not extend the deduplication window on duplicates; expiry removes only the deduplication key', async () => {
    const queue = queueOf();
    const key = queueKeys(queue.name, '').deduplicationPrefix + 'w';
    const remainingMs = async () => Number(await connection().raw(key, ['PTTL', key]));
    const first = await queue.send('a', { deduplicationId: 'w', deduplicationWindowMs: 300 });
    await eventually(async () => (await remainingMs()) <= 250);
    expect(await queue.send('b', { deduplicationId: 'w', deduplicationWindowMs: 300 })).toBe(first);
    expect(await remainingMs()).toBeLessThanOrEqual(250); // not extended to a new 300 ms
    await eventually(async () => Number(await connection().raw(key, ['EXISTS', key])) === 0);
    const second = await queue.send('c', { deduplicationId: 'w', deduplicationWindowMs: 300 });
    expect(second).not.toBe(first);
    const batch = await queue.receive(30_000);
    expect(batch.map((m) => [m.id, m.payload])).toEqual([
      [first, 'a'],
      [second, 'c'],
    ]);
  });

  it('leaves the whole batch leased when the codec cannot decode, and it counts toward the limit', async () => {
    const name = uniqueName();
    const writer = new ReliableQueue(connection().client, name, { codec: utf8Codec });
    await writer.send('{"ok":true}');
    await writer.send('not json');
    const reader = new ReliableQueue(connection().client, name, { codec: jsonCodec<{ ok: boolean }>() });
    const error = await reader.receive(100).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'CODEC_FAILED')).toBe(true);
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
    // The reason is in the message, not only in `cause`.
    expect((error as Error).message).toContain(`(SyntaxError: ${((error as Error).cause as Error).message})`);
    expect((error as Error).message).toMatch(
      /^ReliableQueue\.receive: the codec could not decode entry \d+-\d+ \(SyntaxError: .*json.*\); the whole batch of 2 stays leased/i,
    );
    expect(await writer.receive(30_000)).toEqual([]);
    await untilAllDue(connection(), writer);
    const again = await writer.receive(30_000);
    expect(again.map((m) => m.deliveryCount)).toEqual([2, 2]);
  });

  it('acks and nacks many receipts in one call, each with its own result', async () => {
    const queue = queueOf();
    for (let i = 0; i < 4; i++) await queue.send(`m${i}`);
    const batch = await queue.receive(30_000);
    const stale = { id: batch[0]!.id, receipt: `9.${'A'.repeat(16)}.1` };
    expect(await queue.ackMany([batch[0]!, stale, batch[1]!, batch[1]!])).toEqual([true, false, true, false]);
    expect(await queue.nackMany([batch[2]!, batch[3]!], 0)).toEqual([true, true]);
    expect((await queue.receive(30_000)).map((m) => m.deliveryCount)).toEqual([2, 2]);
    expect(await queue.ackMany([])).toEqual([]);
  });

  it('runs the next call without error after SCRIPT FLUSH', async () => {
    const queue = queueOf();
    await queue.send('x', { deduplicationId: 'flush' });
    await flushScripts(connection(), target.name);
    const [message] = await queue.receive(30_000);
    await flushScripts(connection(), target.name);
    expect(await queue.ack(message!)).toBe(true);
    await flushScripts(connection(), target.name);
    expect(await queue.send('y', { deduplicationId: 'flush2' })).toMatch(/^\d+-\d+$/);
  });

  it('never shares a key between two queues or two prefixes', async () => {
    const name = uniqueName();
    const plain = new ReliableQueue(connection().client, name, { codec: utf8Codec });
    const prefixed = new ReliableQueue(connection().client, name, { codec: utf8Codec, keyPrefix: 'tenant-a:' });
    const otherPrefix = new ReliableQueue(connection().client, name, { codec: utf8Codec, keyPrefix: 'tenant-b:' });
    const other = new ReliableQueue(connection().client, `${name}-2`, { codec: utf8Codec });
    await plain.send('plain', { deduplicationId: 'd' });
    await prefixed.send('prefixed', { deduplicationId: 'd' });
    await otherPrefix.send('other prefix', { deduplicationId: 'd' });
    await other.send('other', { deduplicationId: 'd' });
    const got = await Promise.all([plain, prefixed, otherPrefix, other].map(async (q) => (await q.receive(30_000)).map((m) => m.payload)));
    expect(got).toEqual([['plain'], ['prefixed'], ['other prefix'], ['other']]);
    expect(prefixed.streamKey).toBe(`tenant-a:{respire-queue:${name}}:stream`);
    expect(new Set([plain.streamKey, prefixed.streamKey, otherPrefix.streamKey, other.streamKey]).size).toBe(4);
  });

  it('lets receivers use different visibility timeouts', async () => {
    const queue = queueOf();
    await queue.send('short');
    await queue.send('long');
    const [short] = await queue.receive(50, { max: 1 });
    const [long] = await queue.receive(60_000, { max: 1 });
    const { deadlines } = queueKeys(queue.name, '');
    const shortDeadline = Number(await connection().raw(deadlines, ['ZSCORE', deadlines, `${short!.id}:${short!.receipt}`]));
    await eventually(async () => (await serverTimeMs(connection(), deadlines)) >= shortDeadline);
    const [again] = await queue.receive(30_000);
    expect(again!.id).toBe(short!.id);
    expect(await queue.ack(long!)).toBe(true);
  });
});

async function readDeadLetterFields(conn: Connection, key: string): Promise<[string, Buffer][]> {
  const client = conn.client as { sendCommand: (...args: unknown[]) => Promise<unknown>; masters?: unknown };
  const args = ['XRANGE', key, '-', '+'];
  const options = { typeMapping: { 36: Buffer } };
  const reply = (Array.isArray(client.masters) ? await client.sendCommand(key, true, args, options) : await client.sendCommand(args, options)) as [
    Buffer,
    Buffer[],
  ][];
  const fields = reply[0]![1];
  const pairs: [string, Buffer][] = [];
  for (let i = 0; i < fields.length; i += 2) pairs.push([fields[i]!.toString(), fields[i + 1]!]);
  return pairs;
}

async function flushScripts(conn: Connection, targetName: string): Promise<void> {
  const client = conn.client as { masters?: { client?: unknown }[] };
  if (targetName.startsWith('cluster')) {
    const cluster = conn.client as unknown as { masters: unknown[]; nodeClient(node: unknown): Promise<{ sendCommand(args: string[]): Promise<unknown> }> };
    for (const node of cluster.masters) await (await cluster.nodeClient(node)).sendCommand(['SCRIPT', 'FLUSH']);
    return;
  }
  void client;
  await conn.raw('x', ['SCRIPT', 'FLUSH']);
}

export type { ReceivedMessage };
