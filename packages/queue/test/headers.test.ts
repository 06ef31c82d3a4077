// Headers (README "Headers"; beyond the contract) on every target: sent, received, redelivered, dead-lettered and retried.
import { expect, it } from 'vitest';
import { commandTarget, queueKeys, readHeaders, readQueueDeadLetter, scriptCalls, type FieldPairs } from '@respire/core-scripts/internal';
import { isRespireError } from '@respire/queue';
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

describeOnTargets('ReliableQueue headers', targets, (_target, connection) => {
  const queueOf = queueFixture(connection);

  it('returns string values as strings and bytes as Buffers, with every byte intact', async () => {
    const queue = queueOf();
    await queue.send('x', { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'tenant id': 'ünï', raw: bytes, empty: '' } });
    const [message] = await queue.receive(30_000);
    expect(message!.headers).toEqual({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'tenant id': 'ünï', raw: bytes, empty: '' });
    expect(Buffer.isBuffer(message!.headers.raw)).toBe(true);
  });

  it('a message without headers has a frozen empty object, and its entry only a payload field', async () => {
    const queue = queueOf();
    await queue.send('plain');
    await queue.send('empty', { headers: {} });
    const batch = await queue.receive(30_000);
    expect(batch.map((m) => Object.keys(m.headers).length)).toEqual([0, 0]);
    expect(Object.isFrozen(batch[0]!.headers)).toBe(true);
    const entries = await entriesOf(connection(), queue.streamKey);
    expect(entries.map((e) => e.fields.length)).toEqual([1, 1]);
  });

  it('keeps headers through redelivery, delayed and deduplicated sends and sendMany', async () => {
    const queue = queueOf();
    await queue.send('dedup', { deduplicationId: 'a', headers: { k: 'dedup' } });
    await queue.sendMany([
      { payload: 'many', headers: { k: 'many', b: bytes } },
      { payload: 'delayed', delayMs: 1, headers: { k: 'delayed' } },
    ]);
    const all = await queue.receive(30_000);
    const byPayload = (messages: typeof all) => Object.fromEntries(messages.map((m) => [m.payload, m.headers]));
    // The delayed one is due 1 ms after its send, by the server clock.
    await eventually(async () => {
      all.push(...(await queue.receive(30_000)));
      return all.length === 3;
    });
    expect(byPayload(all)).toEqual({ dedup: { k: 'dedup' }, many: { k: 'many', b: bytes }, delayed: { k: 'delayed' } });
    expect(await queue.nackMany(all, 0)).toEqual([true, true, true]);
    const again = await queue.receive(30_000);
    expect(again.every((m) => m.deliveryCount >= 2)).toBe(true);
    expect(byPayload(again)).toEqual({ dedup: { k: 'dedup' }, many: { k: 'many', b: bytes }, delayed: { k: 'delayed' } });
  });

  it('copies headers into the dead letter, and the dead-letter retry puts them back', async () => {
    const queue = queueOf({ deliveryLimit: 1 });
    await queue.send('poison', { headers: { reason: 'test', raw: bytes } });
    await queue.send('plain poison');
    const batch = await queue.receive(30_000);
    expect(await queue.nackMany(batch, 0)).toEqual([true, true]);
    expect(await queue.receive(30_000)).toEqual([]);
    const dead = await entriesOf(connection(), queue.deadLetterStreamKey);
    const records = dead.map((e) => readQueueDeadLetter(e.fields));
    const [withHeaders, without] = records as { payload: Buffer; headers?: Buffer }[];
    expect(withHeaders!.payload.toString()).toBe('poison');
    expect(readHeaders(withHeaders!.headers!)).toEqual({ headers: { reason: 'test', raw: bytes } });
    expect(without!.headers).toBeUndefined();
    expect(dead[1]!.fields).toHaveLength(3);

    const keys = queueKeys(queue.name, '');
    const reply = await scriptCalls.adminRetryQueueDeadLetters(commandTarget(connection().client), {
      deadLetterStream: keys.deadLetter,
      stream: keys.stream,
      recordIds: dead.map((e) => e.id),
    });
    expect(reply.map((r) => r.status)).toEqual(['retried', 'retried']);
    const retried = await queue.receive(30_000);
    expect(retried.map((m) => [m.payload, m.deliveryCount, m.headers])).toEqual([
      ['poison', 1, { reason: 'test', raw: bytes }],
      ['plain poison', 1, {}],
    ]);
  });

  it("adds an instrumentation's message headers to each send, skipping bad ones; a hostile scope never changes a send", async () => {
    const offered = { traceparent: 'tp', bad: 42, ['lone\ud800']: 'x', tenant: 'theirs' };
    const offering = queueOf({ instrumentation: { startOperation: () => ({ end: () => {}, messageHeaders: offered as never }) } });
    await offering.send('a', { headers: { tenant: 'mine' } });
    await offering.sendMany([{ payload: 'b' }]);
    const hostile = queueOf(
      {
        instrumentation: {
          startOperation: () => ({
            end: () => {},
            get messageHeaders(): never {
              throw new Error('hostile');
            },
          }),
        },
      },
      offering.name,
    );
    await hostile.send('c');
    const batch = await offering.receive(30_000);
    expect(batch.map((m) => [m.payload, { ...m.headers }])).toEqual([
      ['a', { tenant: 'mine', traceparent: 'tp' }],
      ['b', { traceparent: 'tp', tenant: 'theirs' }],
      ['c', {}],
    ]);
  });

  it('an unreadable headers field (written by someone else) fails the receive as a codec error and leaves the batch leased', async () => {
    const queue = queueOf();
    await connection().raw(queue.streamKey, ['XADD', queue.streamKey, '*', 'payload', 'x', 'headers', 'not headers']);
    const error = await queue.receive(100).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'CODEC_FAILED'), String(error)).toBe(true);
    expect(String((error as Error).message)).toContain('headers');
    expect(await queue.receive(30_000)).toEqual([]);
  });
});
