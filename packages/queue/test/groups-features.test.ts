// A grouped queue's messages carry their group ID and headers (README "Message groups"), on every target.
import { expect, it } from 'vitest';
import { readHeaders, readQueueDeadLetter, type FieldPairs } from '@respire/core-scripts/internal';
import { type ReceivedMessage } from '@respire/queue';
import { untilAllGroupedDue } from './groups-support.js';
import { describeOnTargets, queueFixture, targets, type Connection } from './support.js';

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
      (e) => readQueueDeadLetter(e.fields) as { payload: Buffer; headers?: Buffer },
    );
    expect(dead!.payload.toString()).toBe('h');
    expect(readHeaders(dead!.headers!)).toEqual({ headers: { tenant: 'ünï', raw: bytes, empty: '' } });
  });
});
