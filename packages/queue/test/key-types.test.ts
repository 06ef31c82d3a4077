import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueKeys } from '@respire/core-scripts/internal';
import { ReliableQueue, isRespireError, utf8Codec } from '@respire/queue';
import { snapshot, targets, uniqueName, type Connection } from './support.js';

/**
 * Every operation that meets a key of another type throws the same typed error with the same
 * message shape: `ReliableQueue.<operation>: <key> holds a <type found>, expected a <type>`, and
 * changes nothing — whether the operation is a plain command (send without a deduplication ID) or
 * a script.
 */
describe.each(targets)('a queue key of another type on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  function setup(deliveryLimit = 5) {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, deliveryLimit });
    return { keys, queue };
  }

  async function expectKeyTypeError(run: () => Promise<unknown>, keys: ReturnType<typeof queueKeys>, message: string) {
    const before = await snapshot(conn, keys);
    const error = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'WRONG_TYPE'), String(error)).toBe(true);
    expect((error as Error).name).toBe('RespireKeyTypeError');
    expect((error as Error).message).toBe(message);
    expect(await snapshot(conn, keys)).toBe(before);
  }

  it('the stream: send (plain XADD and deduplicated), receive, ack and nack', async () => {
    const { keys, queue } = setup();
    await queue.send('x');
    const [message] = await queue.receive(30_000);
    await conn.raw(keys.stream, ['DEL', keys.stream]);
    await conn.raw(keys.stream, ['SET', keys.stream, 'occupied']);
    const expected = (operation: string) => `ReliableQueue.${operation}: ${keys.stream} holds a string, expected a stream`;
    await expectKeyTypeError(() => queue.send('y'), keys, expected('send'));
    await expectKeyTypeError(() => queue.send('y', { deduplicationId: 'd' }), keys, expected('send'));
    expect(await conn.raw(keys.stream, ['EXISTS', `${keys.deduplicationPrefix}d`])).toBe(0);
    await expectKeyTypeError(() => queue.receive(30_000), keys, expected('receive'));
    await expectKeyTypeError(() => queue.ack(message!), keys, expected('ack'));
    // NACK touches only the deadlines, so the stream's type does not matter to it.
    expect(await queue.nack(message!)).toBe(true);
  });

  it('the deadlines: receive, ack and nack', async () => {
    const { keys, queue } = setup();
    await queue.send('x');
    const [message] = await queue.receive(30_000);
    await conn.raw(keys.deadlines, ['DEL', keys.deadlines]);
    await conn.raw(keys.deadlines, ['HSET', keys.deadlines, 'f', 'v']);
    const expected = (operation: string) => `ReliableQueue.${operation}: ${keys.deadlines} holds a hash, expected a zset`;
    await expectKeyTypeError(() => queue.receive(30_000), keys, expected('receive'));
    await expectKeyTypeError(() => queue.ack(message!), keys, expected('ack'));
    await expectKeyTypeError(() => queue.nack(message!), keys, expected('nack'));
    await expectKeyTypeError(() => queue.ackMany([message!, message!]), keys, expected('ack'));
  });

  it('the dead-letter stream: the receive that has to move an exhausted message', async () => {
    const { keys, queue } = setup(1);
    await queue.send('x');
    const [message] = await queue.receive(30_000);
    await queue.nack(message!);
    await conn.raw(keys.deadLetter, ['SET', keys.deadLetter, 'occupied']);
    await expectKeyTypeError(() => queue.receive(30_000), keys, `ReliableQueue.receive: ${keys.deadLetter} holds a string, expected a stream`);
  });

  it('the deduplication key: a deduplicated send', async () => {
    const { keys, queue } = setup();
    const dedup = `${keys.deduplicationPrefix}d`;
    await conn.raw(dedup, ['HSET', dedup, 'f', 'v']);
    await expectKeyTypeError(() => queue.send('y', { deduplicationId: 'd' }), keys, `ReliableQueue.send: ${dedup} holds a hash, expected a string`);
    expect(await conn.raw(keys.stream, ['EXISTS', keys.stream])).toBe(0);
    await conn.raw(dedup, ['DEL', dedup]);
  });
});
