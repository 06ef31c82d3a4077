// A grouped queue's messages carry their group ID and headers (README "Message groups"), on every target.
import { afterEach, expect, it } from 'vitest';
import { readHeaders, readQueueDeadLetter, type FieldPairs } from '@respire/core-scripts/internal';
import { RespireValidationError, type QueueConsumer, type ReceivedMessage } from '@respire/queue';
import { existingKeys, groupedSnapshot, untilAllGroupedDue } from './groups-support.js';
import { describeOnTargets, eventually, queueFixture, targets, type Connection } from './support.js';

const bytes = Buffer.from([0, 1, 2, 254, 255, 58, 115]);

/** Every entry of `key`, its fields as pairs of bytes. */
async function entriesOf(conn: Connection, key: string): Promise<{ id: string; fields: FieldPairs }[]> {
  const client = conn.client as { sendCommand: (...args: unknown[]) => Promise<unknown> };
  const args = ['XRANGE', key, '-', '+'];
  const options = { typeMapping: { 36: Buffer } };
  const reply = (await ('masters' in client ? client.sendCommand(key, true, args, options) : client.sendCommand(args, options))) as [Buffer, Buffer[]][];
  return reply.map(([id, flat]) => {
    const fields: [Buffer, Buffer][] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) fields.push([flat[i]!, flat[i + 1]!]);
    return { id: id.toString(), fields };
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Consumers a test started, stopped after it whatever happened. */
const started: QueueConsumer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((consumer) => consumer.stop()));
});

const summary = (messages: readonly ReceivedMessage<string>[]): [string, string | undefined][] => messages.map((m) => [m.payload, m.groupId]);

describeOnTargets('ReliableQueue with groups: group IDs and headers', targets, (_target, connection) => {
  const queueOf = queueFixture(connection);

  it('a received message carries its groupId, on its first delivery and its redelivery; an ungrouped one has none', async () => {
    const queue = queueOf<string>({ groups: {} });
    const long = 'é'.repeat(512);
    await queue.send('a1', { groupId: 'tenant a' });
    await queue.send('b1', { groupId: long });
    const first = await queue.receive(30_000, { max: 10 });
    expect(summary(first)).toEqual([
      ['a1', 'tenant a'],
      ['b1', long],
    ]);
    expect(await queue.nack(first[0]!)).toBe(true);
    const again = await queue.receive(30_000, { max: 10 });
    expect(again.map((m) => [m.payload, m.groupId, m.deliveryCount])).toEqual([['a1', 'tenant a', 2]]);

    const plain = queueOf<string>();
    await plain.send('x');
    const [message] = await plain.receive(30_000);
    expect(message!.groupId).toBeUndefined();
    expect('groupId' in message!).toBe(false);
  });

  it('a fair group message carries its groupId too', async () => {
    const queue = queueOf<string>({ groups: { groupConcurrency: 2 } });
    for (const id of ['x1', 'x2', 'y1']) await queue.send(id, { groupId: id[0]! });
    // One message per group per turn of the ring: x2 comes on the next receive.
    const batch = [...(await queue.receive(30_000, { max: 10 })), ...(await queue.receive(30_000, { max: 10 }))];
    expect(summary(batch).sort()).toEqual([
      ['x1', 'x'],
      ['x2', 'x'],
      ['y1', 'y'],
    ]);
  });

  it('keeps headers through delivery, redelivery, deduplication and the dead letter; none leaves only payload and group', async () => {
    const queue = queueOf<string>({ groups: {}, deliveryLimit: 2 });
    await queue.send('h', { groupId: 'a', headers: { tenant: 'ünï', raw: bytes, empty: '' } });
    await queue.send('plain', { groupId: 'b', headers: {} });
    const repeat = await queue.sendWithResult('other', { groupId: 'c', deduplicationId: 'd1', headers: { k: 'first' } });
    expect((await queue.sendWithResult('ignored', { groupId: 'c', deduplicationId: 'd1', headers: { k: 'second' } })).duplicate).toBe(true);

    const entries = await entriesOf(connection(), queue.streamKey);
    expect(entries.map((e) => e.fields.map(([name]) => name.toString()))).toEqual([
      ['payload', 'group', 'headers'],
      ['payload', 'group'],
      ['payload', 'group', 'headers'],
    ]);
    const first = await queue.receive(30_000, { max: 10 });
    expect(first.map((m) => [m.payload, m.headers])).toEqual([
      ['h', { tenant: 'ünï', raw: bytes, empty: '' }],
      ['plain', {}],
      ['other', { k: 'first' }],
    ]);
    expect(Buffer.isBuffer(first[0]!.headers.raw)).toBe(true);
    expect(Object.isFrozen(first[1]!.headers)).toBe(true);
    expect(first[2]!.id).toBe(repeat.id);

    expect(await queue.ackMany(first.slice(1))).toEqual([true, true]);
    await queue.nack(first[0]!, 1);
    await untilAllGroupedDue(connection(), queue.name);
    const [again] = await queue.receive(30_000);
    expect([again!.payload, again!.deliveryCount, again!.headers]).toEqual(['h', 2, { tenant: 'ünï', raw: bytes, empty: '' }]);
    await queue.nack(again!);
    // The limit is reached: this receive moves it to the dead letters, headers kept.
    expect(await queue.receive(30_000)).toEqual([]);
    const [dead] = (await entriesOf(connection(), queue.deadLetterStreamKey)).map(
      (e) => readQueueDeadLetter(e.fields) as { payload: Buffer; headers?: Buffer; group?: string },
    );
    expect(dead!.payload.toString()).toBe('h');
    expect(readHeaders(dead!.headers!)).toEqual({ headers: { tenant: 'ünï', raw: bytes, empty: '' } });
    // The record names its group, after the headers.
    expect(dead).toMatchObject({ group: 'a', deliveryCount: 2 });
    const [record] = await entriesOf(connection(), queue.deadLetterStreamKey);
    expect(record!.fields.map(([name]) => name.toString())).toEqual(['payload', 'source_id', 'delivery_count', 'headers', 'group']);
  });

  it('sendMany appends each item to the back of its group in batch order, the idle groups joining the ring in order of first item', async () => {
    const queue = queueOf<string>({ groups: {} });
    const busy = await queue.sendWithResult('c0', { groupId: 'c', deduplicationId: 'seen' });
    const [head] = await queue.receive(30_000);
    const results = await queue.sendMany([
      { payload: 'b1', groupId: 'b' },
      { payload: 'a1', groupId: 'a', headers: { k: 'v' } },
      { payload: 'c1', groupId: 'c' },
      { payload: 'b2', groupId: 'b', deduplicationId: 'd' },
      { payload: 'b2 again', groupId: 'a', deduplicationId: 'd' },
      { payload: 'c0 again', groupId: 'c', deduplicationId: 'seen' },
      { payload: 'a2', groupId: 'a' },
    ]);
    expect(results.map((r) => r.duplicate)).toEqual([false, false, false, false, true, true, false]);
    expect(results[4]!.id).toBe(results[3]!.id);
    expect(results[5]!.id).toBe(busy.id);
    // c has its head leased: its new message waits behind it; b and a became ready in batch order.
    const first = await queue.receive(30_000, { max: 10 });
    expect(first.map((m) => [m.payload, m.groupId, m.headers])).toEqual([
      ['b1', 'b', {}],
      ['a1', 'a', { k: 'v' }],
    ]);
    expect(await queue.ackMany([head!, ...first])).toEqual([true, true, true]);
    // c moved on when its head was acknowledged, before b and a rejoined: round robin.
    expect(summary(await queue.receive(30_000, { max: 10 }))).toEqual([
      ['c1', 'c'],
      ['b2', 'b'],
      ['a2', 'a'],
    ]);
  });

  it('sendMany on fair groups: a group with groupConcurrency in flight joins the ring only when one completes', async () => {
    const queue = queueOf<string>({ groups: { groupConcurrency: 2 } });
    await queue.sendMany([
      { payload: 'x1', groupId: 'x' },
      { payload: 'x2', groupId: 'x' },
    ]);
    const taken = [...(await queue.receive(30_000, { max: 10 })), ...(await queue.receive(30_000, { max: 10 }))];
    expect(taken.map((m) => m.payload).sort()).toEqual(['x1', 'x2']);
    await queue.sendMany([
      { payload: 'x3', groupId: 'x' },
      { payload: 'y1', groupId: 'y' },
    ]);
    expect(summary(await queue.receive(30_000, { max: 10 }))).toEqual([['y1', 'y']]);
    expect(await queue.ack(taken[0]!)).toBe(true);
    expect(summary(await queue.receive(30_000, { max: 10 }))).toEqual([['x3', 'x']]);
  });

  it('sendMany refuses a bad item before any I/O, naming it, and sends nothing', async () => {
    const queue = queueOf<string>({ groups: {} });
    const refused = async (items: Parameters<typeof queue.sendMany>[0], argument: string): Promise<void> => {
      const error = await queue.sendMany(items).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(RespireValidationError);
      expect((error as RespireValidationError).argument).toBe(argument);
    };
    const good = { payload: 'ok', groupId: 'a' };
    await refused([good, { payload: 'x' }], 'items[1].groupId');
    await refused([good, { payload: 'x', groupId: '' }], 'items[1].groupId');
    await refused([good, { payload: 'x', groupId: 'a\uD800' }], 'items[1].groupId');
    await refused([{ payload: 'x', groupId: 'a', delayMs: 5 }, good], 'items[0].delayMs');
    await refused([good, { payload: 'x', groupId: 'a', headers: { k: 7 as never } }], 'items[1].headers.k');
    await refused([good, { payload: 'x', groupId: 'a', deduplicationId: '' }], 'items[1].deduplicationId');
    expect(await existingKeys(connection(), queue.name)).toEqual([]);
    expect(await queue.sendMany([])).toEqual([]);
    expect(await groupedSnapshot(connection(), queue.name)).toBe('[]');
  });

  it('a waiting receive returns when a send makes a group ready, and an empty batch once waitMs has passed', async () => {
    const queue = queueOf<string>({ groups: {} });
    expect(await queue.receive(30_000, { waitMs: 50 })).toEqual([]);
    const waiting = queue.receive(30_000, { waitMs: 10_000 });
    await pause(50);
    await queue.send('a1', { groupId: 'a' });
    expect(summary(await waiting)).toEqual([['a1', 'a']]);
  });

  it("a waiting receive wakes when an ACK moves the group on, well before the head's lease or waitMs would end", async () => {
    const queue = queueOf<string>({ groups: {} });
    await queue.sendMany([
      { payload: 'a1', groupId: 'a' },
      { payload: 'a2', groupId: 'a' },
    ]);
    const [head] = await queue.receive(60_000);
    const began = performance.now();
    const waiting = queue.receive(30_000, { waitMs: 15_000 });
    await pause(50);
    expect(await queue.ack(head!)).toBe(true);
    expect(summary(await waiting)).toEqual([['a2', 'a']]);
    // Without the wake it would return only after waitMs (15 s): the margin is for a loaded machine.
    expect(performance.now() - began).toBeLessThan(7_500);
  });

  it("a waiting receive wakes at a NACK and takes the head at its new due time, not at its old lease's deadline", async () => {
    const queue = queueOf<string>({ groups: {} });
    await queue.send('a1', { groupId: 'a' });
    const [head] = await queue.receive(60_000);
    const began = performance.now();
    const waiting = queue.receive(30_000, { waitMs: 15_000 });
    await pause(50);
    expect(await queue.nack(head!, 200)).toBe(true);
    expect((await waiting).map((m) => [m.payload, m.deliveryCount])).toEqual([['a1', 2]]);
    // Without the wake it would block until waitMs (15 s): the lease's deadline (60 s) was its bound.
    expect(performance.now() - began).toBeLessThan(7_500);
  });

  it('consume() keeps each ordered group in send order, one message of a group at a time, across its concurrency', async () => {
    const queue = queueOf<string>({ groups: {} });
    const groups = ['a', 'b', 'c'];
    await queue.sendMany(groups.flatMap((group) => Array.from({ length: 6 }, (_, i) => ({ payload: `${group}${i}`, groupId: group }))));
    const running = new Map<string, number>();
    const order = new Map<string, number[]>();
    let overlaps = 0;
    let most = 0;
    let inFlight = 0;
    started.push(
      queue.consume(
        async (message) => {
          const group = message.groupId!;
          running.set(group, (running.get(group) ?? 0) + 1);
          if (running.get(group)! > 1) overlaps++;
          most = Math.max(most, ++inFlight);
          await pause(5 + Math.floor(Math.random() * 15));
          order.set(group, [...(order.get(group) ?? []), Number(message.payload.slice(1))]);
          running.set(group, running.get(group)! - 1);
          inFlight--;
        },
        { concurrency: 4 },
      ),
    );
    await eventually(() => [...order.values()].flat().length === 18, 15_000, 10);
    expect(overlaps).toBe(0);
    expect(Object.fromEntries(order)).toEqual({ a: [0, 1, 2, 3, 4, 5], b: [0, 1, 2, 3, 4, 5], c: [0, 1, 2, 3, 4, 5] });
    // Groups ran in parallel, never more than one of each.
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(groups.length);
  });

  it('consume() on fair groups runs at most groupConcurrency handlers of a group at once, and handles every message once', async () => {
    const queue = queueOf<string>({ groups: { groupConcurrency: 2 } });
    await queue.sendMany(['x', 'y'].flatMap((group) => Array.from({ length: 6 }, (_, i) => ({ payload: `${group}${i}`, groupId: group }))));
    const running = new Map<string, number>();
    const handled: string[] = [];
    let mostOfAGroup = 0;
    started.push(
      queue.consume(
        async (message) => {
          const group = message.groupId!;
          running.set(group, (running.get(group) ?? 0) + 1);
          mostOfAGroup = Math.max(mostOfAGroup, running.get(group)!);
          // Long enough that the next receive (one per group per turn of the ring) finds it running.
          await pause(100);
          handled.push(message.payload);
          running.set(group, running.get(group)! - 1);
        },
        { concurrency: 6 },
      ),
    );
    await eventually(() => handled.length === 12, 15_000, 10);
    expect(handled.sort()).toEqual(['x', 'y'].flatMap((group) => Array.from({ length: 6 }, (_, i) => `${group}${i}`)).sort());
    expect(mostOfAGroup).toBe(2);
  });
});
