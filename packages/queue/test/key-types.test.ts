// A queue key of another type: the same typed error from every operation, nothing changed.
import { expect, it } from 'vitest';
import { queueKeys } from '@respire/core-scripts/internal';
import { isRespireError } from '@respire/queue';
import { describeOnTargets, queueFixture, snapshot, targets, uniqueName } from './support.js';

/**
 * Every operation that meets a key of another type throws the same typed error with the same
 * message shape: `ReliableQueue.<operation>: <key> holds a <type found>, expected a <type>`, and
 * changes nothing — whether the operation is a plain command (send without a deduplication ID) or
 * a script.
 */
describeOnTargets('a queue key of another type', targets, (_target, connection) => {
  const queueOf = queueFixture(connection);

  function setup(deliveryLimit = 5) {
    const name = uniqueName();
    return { keys: queueKeys(name, ''), queue: queueOf({ deliveryLimit }, name) };
  }

  async function expectKeyTypeError(run: () => Promise<unknown>, keys: ReturnType<typeof queueKeys>, message: string) {
    const before = await snapshot(connection(), keys);
    const error = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'WRONG_TYPE'), String(error)).toBe(true);
    expect((error as Error).name).toBe('RespireKeyTypeError');
    expect((error as Error).message).toBe(message);
    expect(await snapshot(connection(), keys)).toBe(before);
  }

  it('the stream: send (plain XADD and deduplicated), receive, ack and nack', async () => {
    const { keys, queue } = setup();
    await queue.send('x');
    const [message] = await queue.receive(30_000);
    await connection().raw(keys.stream, ['DEL', keys.stream]);
    await connection().raw(keys.stream, ['SET', keys.stream, 'occupied']);
    const expected = (operation: string) => `ReliableQueue.${operation}: ${keys.stream} holds a string, expected a stream`;
    await expectKeyTypeError(() => queue.send('y'), keys, expected('send'));
    await expectKeyTypeError(() => queue.send('y', { deduplicationId: 'd' }), keys, expected('send'));
    expect(await connection().raw(keys.stream, ['EXISTS', `${keys.deduplicationPrefix}d`])).toBe(0);
    await expectKeyTypeError(() => queue.receive(30_000), keys, expected('receive'));
    await expectKeyTypeError(() => queue.ack(message!), keys, expected('ack'));
    // NACK touches only the deadlines and the wake stream, so the stream's type does not matter to it.
    expect(await queue.nack(message!)).toBe(true);
  });

  it('the wake stream: nack and the waiting receive; a plain receive and ack do not use it', async () => {
    const { keys, queue } = setup();
    await queue.send('x');
    const [message] = await queue.receive(30_000);
    await connection().raw(keys.wake, ['SET', keys.wake, 'occupied']);
    const expected = (operation: string) => `ReliableQueue.${operation}: ${keys.wake} holds a string, expected a stream`;
    await expectKeyTypeError(() => queue.nack(message!), keys, expected('nack'));
    await expectKeyTypeError(() => queue.receive(30_000, { waitMs: 1000 }), keys, expected('receive (waiting)'));
    expect(await connection().raw(keys.wake, ['GET', keys.wake])).toBe('occupied');
    expect(await queue.ack(message!)).toBe(true);
  });

  it('the deadlines: receive, ack and nack', async () => {
    const { keys, queue } = setup();
    await queue.send('x');
    const [message] = await queue.receive(30_000);
    await connection().raw(keys.deadlines, ['DEL', keys.deadlines]);
    await connection().raw(keys.deadlines, ['HSET', keys.deadlines, 'f', 'v']);
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
    await connection().raw(keys.deadLetter, ['SET', keys.deadLetter, 'occupied']);
    await expectKeyTypeError(() => queue.receive(30_000), keys, `ReliableQueue.receive: ${keys.deadLetter} holds a string, expected a stream`);
  });

  it('the deduplication key: a deduplicated send', async () => {
    const { keys, queue } = setup();
    const dedup = `${keys.deduplicationPrefix}d`;
    await connection().raw(dedup, ['HSET', dedup, 'f', 'v']);
    await expectKeyTypeError(() => queue.send('y', { deduplicationId: 'd' }), keys, `ReliableQueue.send: ${dedup} holds a hash, expected a string`);
    expect(await connection().raw(keys.stream, ['EXISTS', keys.stream])).toBe(0);
    await connection().raw(dedup, ['DEL', dedup]);
  });
});
