// Lease extension (README "Lease extension"; beyond the contract) on every target.
import { expect, it } from 'vitest';
import { queueKeys } from '@respire/core-scripts/internal';
import { describeOnTargets, eventually, queueFixture, serverTimeMs, snapshot, targets, untilAllDue, type Connection } from './support.js';

/** The deadline (ms) the deadlines index holds for a delivery, or null when it holds none. */
async function deadlineOf(conn: Connection, queueName: string, message: { id: string; receipt: string }): Promise<number | null> {
  const { deadlines } = queueKeys(queueName, '');
  const score = await conn.raw(deadlines, ['ZSCORE', deadlines, `${message.id}:${message.receipt}`]);
  return score === null ? null : Number(score);
}

describeOnTargets('ReliableQueue extend', targets, (_target, connection) => {
  const queueOf = queueFixture(connection);

  it('sets the deadline to server now + the timeout (rounded up), keeping the receipt', async () => {
    const queue = queueOf();
    await queue.send('x');
    const [message] = await queue.receive(1_000);
    const { deadlines } = queueKeys(queue.name, '');
    const before = await serverTimeMs(connection(), deadlines);
    expect(await queue.extend(message!, 600_000)).toBe(true);
    const after = await serverTimeMs(connection(), deadlines);
    const deadline = await deadlineOf(connection(), queue.name, message!);
    expect(deadline).not.toBeNull();
    expect(deadline!).toBeGreaterThanOrEqual(Math.ceil(before) + 600_000);
    expect(deadline!).toBeLessThanOrEqual(Math.ceil(after) + 600_000);
    expect(await queue.ack(message!)).toBe(true);
  });

  it('keeps a message invisible past its original deadline, by the server clock', async () => {
    const queue = queueOf();
    await queue.send('long job');
    const [message] = await queue.receive(200);
    const original = (await deadlineOf(connection(), queue.name, message!))!;
    expect(await queue.extend(message!, 60_000)).toBe(true);
    const { deadlines } = queueKeys(queue.name, '');
    await eventually(async () => (await serverTimeMs(connection(), deadlines)) >= original + 1);
    expect(await queue.receive(30_000)).toEqual([]);
    // The receipt still completes the delivery, and nothing was redelivered meanwhile.
    expect(await queue.extend(message!, 60_000)).toBe(true);
    expect(await queue.ack(message!)).toBe(true);
    expect(await queue.receive(30_000)).toEqual([]);
  });

  it('replaces the deadline: a shorter timeout makes the message due sooner, and the delivery counts as one', async () => {
    const queue = queueOf();
    const id = await queue.send('x');
    const [message] = await queue.receive(600_000);
    expect(await queue.extend(message!, 1)).toBe(true);
    await untilAllDue(connection(), queue);
    expect(await queue.ack(message!)).toBe(false);
    const [again] = await queue.receive(30_000);
    expect(again).toMatchObject({ id, deliveryCount: 2 });
  });

  it('a stale extend after a redelivery returns false and changes nothing', async () => {
    const queue = queueOf();
    await queue.send('x');
    const [first] = await queue.receive(100);
    await untilAllDue(connection(), queue);
    const [second] = await queue.receive(600_000);
    expect(second!.deliveryCount).toBe(2);
    const keys = queueKeys(queue.name, '');
    const before = await snapshot(connection(), keys);
    expect(await queue.extend(first!, 600_000)).toBe(false);
    expect(await queue.extendMany([first!, first!], 1)).toEqual([false, false]);
    expect(await snapshot(connection(), keys)).toBe(before);
    expect(await queue.ack(second!)).toBe(true);
  });

  it('returns false for an expired lease, even before anyone redelivered, and leaves it due', async () => {
    const queue = queueOf();
    await queue.send('x');
    const [message] = await queue.receive(50);
    await untilAllDue(connection(), queue);
    expect(await queue.extend(message!, 600_000)).toBe(false);
    const [again] = await queue.receive(30_000);
    expect(again!.deliveryCount).toBe(2);
  });

  it('returns false for a completed or revoked receipt', async () => {
    const queue = queueOf();
    await queue.send('acked');
    await queue.send('nacked');
    const [acked, nacked] = await queue.receive(30_000);
    expect(await queue.ack(acked!)).toBe(true);
    expect(await queue.nack(nacked!, 600_000)).toBe(true);
    const keys = queueKeys(queue.name, '');
    const before = await snapshot(connection(), keys);
    expect(await queue.extend(acked!, 30_000)).toBe(false);
    expect(await queue.extend(nacked!, 30_000)).toBe(false);
    expect(await snapshot(connection(), keys)).toBe(before);
  });

  it('extends a batch of mixed receipts in one call, each with its own result', async () => {
    const queue = queueOf();
    for (let i = 0; i < 4; i++) await queue.send(`m${i}`);
    const batch = await queue.receive(30_000);
    expect(await queue.ack(batch[2]!)).toBe(true);
    const forged = { id: batch[0]!.id, receipt: `9.${'A'.repeat(16)}.1` };
    const results = await queue.extendMany([batch[0]!, forged, batch[1]!, batch[2]!, batch[1]!, batch[3]!], 600_000);
    expect(results).toEqual([true, false, true, false, false, true]);
    for (const message of [batch[0]!, batch[1]!, batch[3]!]) {
      expect(await deadlineOf(connection(), queue.name, message)).toBeGreaterThan((await serverTimeMs(connection(), queue.streamKey)) + 500_000);
    }
    expect(await queue.extendMany([], 1_000)).toEqual([]);
    expect(await queue.ackMany([batch[0]!, batch[1]!, batch[3]!])).toEqual([true, true, true]);
  });
});
