// Ordered message groups (README "Message groups") on every target: order per group, one in flight per group, round robin.
import { expect, it } from 'vitest';
import { ReliableQueue, RespireKeyTypeError, RespireValidationError, utf8Codec, type ReceivedMessage } from '@respire/queue';
import { GROUPED_LEASED_MARK } from '@respire/core-scripts/internal';
import { deadLetters, existingKeys, groupedKeys, untilAllGroupedDue } from './groups-support.js';
import { describeOnTargets, queueFixture, targets, uniqueName } from './support.js';

const payloads = (messages: readonly ReceivedMessage<string>[]): string[] => messages.map((m) => m.payload);

describeOnTargets('ReliableQueue with groups', targets, (target, connection) => {
  const queueOf = queueFixture(connection);
  const groupedOf = (options: { deliveryLimit?: number } = {}, name?: string): ReliableQueue<string> => queueOf<string>({ groups: {}, ...options }, name);

  it('delivers each group in send order, one message in flight per group, groups in parallel', async () => {
    const queue = groupedOf();
    for (const [group, n] of [
      ['a', 3],
      ['b', 2],
      ['c', 1],
    ] as const) {
      for (let i = 1; i <= n; i++) await queue.send(`${group}${i}`, { groupId: group });
    }
    const first = await queue.receive(30_000, { max: 10 });
    expect(payloads(first)).toEqual(['a1', 'b1', 'c1']);
    expect(await queue.receive(30_000, { max: 10 })).toEqual([]);
    expect(await queue.ack(first[0]!)).toBe(true);
    expect(payloads(await queue.receive(30_000, { max: 10 }))).toEqual(['a2']);
    expect(await queue.ackMany([first[1]!, first[2]!])).toEqual([true, true]);
    // b joined the ring after a did: round robin, not group order.
    expect(payloads(await queue.receive(30_000, { max: 10 }))).toEqual(['b2']);
  });

  // The ACK reads its heads' groups from the leased hash: a whole batch, a few of it and most of a
  // batch past 128 leased, every acknowledged group moves on in order and the others stay blocked.
  for (const [title, groups, acked] of [
    ['a whole small batch', 40, 40],
    ['a few of a small batch', 40, 3],
    ['most of a batch past 128 leased', 200, 150],
  ] as const) {
    it(`ackMany of ${title}: each acknowledged group delivers its next message, the others stay blocked`, async () => {
      const queue = groupedOf();
      const batch = Array.from({ length: groups }, (_, g) => [
        { payload: `g${g}-1`, groupId: `g${g}` },
        { payload: `g${g}-2`, groupId: `g${g}` },
      ]).flat();
      await queue.sendMany(batch.filter((_, i) => i % 2 === 0));
      await queue.sendMany(batch.filter((_, i) => i % 2 === 1));
      const first = await queue.receive(30_000, { max: 1000 });
      expect(first).toHaveLength(groups);
      const settled = first.slice(0, acked);
      expect(await queue.ackMany(settled)).toEqual(settled.map(() => true));
      const next = await queue.receive(30_000, { max: 1000 });
      expect(payloads(next).sort()).toEqual(settled.map((m) => `${m.groupId}-2`).sort());
      expect(await queue.ackMany([...first.slice(acked), ...next])).toEqual([...first.slice(acked), ...next].map(() => true));
      expect(payloads(await queue.receive(30_000, { max: 1000 })).sort()).toEqual(
        first
          .slice(acked)
          .map((m) => `${m.groupId}-2`)
          .sort(),
      );
    });
  }

  it('keeps the leased hash a hashtable while anything is in flight (its mark field), and deletes it with the last settle', async () => {
    const queue = groupedOf();
    const { leased } = groupedKeys(queue.name);
    await queue.sendMany(['a', 'b', 'c'].map((groupId) => ({ payload: `${groupId}1`, groupId })));
    const batch = await queue.receive(30_000, { max: 10 });
    expect(batch).toHaveLength(3);
    expect(await connection().raw(leased, ['HGET', leased, GROUPED_LEASED_MARK])).toEqual(expect.any(String));
    expect(Number(await connection().raw(leased, ['HLEN', leased]))).toBe(4);
    // The fake server keeps no encodings; a real one must hold a hashtable of three short fields.
    if (!target.name.startsWith('fake')) expect(String(await connection().raw(leased, ['OBJECT', 'ENCODING', leased]))).toBe('hashtable');
    expect(await queue.ackMany(batch.slice(0, 2))).toEqual([true, true]);
    expect(Number(await connection().raw(leased, ['HLEN', leased]))).toBe(2);
    expect(await queue.ack(batch[2]!)).toBe(true);
    expect(Number(await connection().raw(leased, ['EXISTS', leased]))).toBe(0);
  });

  it('redelivers a NACKed head before anything later of its group, and keeps the group blocked until then', async () => {
    const queue = groupedOf();
    await queue.send('a1', { groupId: 'a' });
    await queue.send('a2', { groupId: 'a' });
    const [head] = await queue.receive(30_000);
    expect(await queue.nack(head!, 200)).toBe(true);
    // Revoked but not yet due: the group stays blocked, its next message with it.
    expect(await queue.receive(30_000)).toEqual([]);
    await untilAllGroupedDue(connection(), queue.name);
    const [again] = await queue.receive(30_000);
    expect(again).toMatchObject({ id: head!.id, payload: 'a1', deliveryCount: 2 });
    expect(await queue.ack(again!)).toBe(true);
    expect(payloads(await queue.receive(30_000))).toEqual(['a2']);
  });

  it('redelivers an expired head before the rest of its group; the stale receipt completes nothing', async () => {
    const queue = groupedOf();
    await queue.send('a1', { groupId: 'a' });
    await queue.send('a2', { groupId: 'a' });
    const [head] = await queue.receive(50);
    await untilAllGroupedDue(connection(), queue.name);
    const [again, ...rest] = await queue.receive(30_000, { max: 10 });
    expect(rest).toEqual([]);
    expect(again).toMatchObject({ id: head!.id, deliveryCount: 2 });
    expect(await queue.ack(head!)).toBe(false);
    expect(await queue.receive(30_000)).toEqual([]);
    expect(await queue.ack(again!)).toBe(true);
    expect(payloads(await queue.receive(30_000))).toEqual(['a2']);
  });

  it('dead-letters an exhausted head at the delivery limit and unblocks its group', async () => {
    const queue = groupedOf({ deliveryLimit: 2 });
    const headId = await queue.send('a1', { groupId: 'a' });
    await queue.send('a2', { groupId: 'a' });
    for (let delivery = 1; delivery <= 2; delivery++) {
      const [head] = await queue.receive(30_000);
      expect(head).toMatchObject({ id: headId, deliveryCount: delivery });
      await queue.nack(head!);
    }
    // This receive moves the head; the group rejoins the ring behind the take.
    expect(await queue.receive(30_000)).toEqual([]);
    expect(await deadLetters(connection(), queue.deadLetterStreamKey)).toMatchObject([{ sourceId: headId, deliveryCount: 2 }]);
    const [next] = await queue.receive(30_000);
    expect(next).toMatchObject({ payload: 'a2', deliveryCount: 1 });
  });

  it('serves ready groups round robin: a noisy group does not hold back quiet ones (each within ⌈G / max⌉ receives)', async () => {
    const queue = groupedOf();
    for (let i = 0; i < 300; i++) await queue.send(`noisy-${i}`, { groupId: 'noisy' });
    const quiet = Array.from({ length: 9 }, (_, i) => `quiet-${i}`);
    for (const group of quiet) for (let i = 0; i < 3; i++) await queue.send(`${group}/${i}`, { groupId: group });
    const groups = 1 + quiet.length;
    const max = 3;
    for (let round = 0; round < 3; round++) {
      const served = new Set<string>();
      const batches: ReceivedMessage<string>[] = [];
      for (let receive = 0; receive < Math.ceil(groups / max); receive++) {
        const batch = await queue.receive(30_000, { max });
        for (const message of batch) served.add(message.payload.split(/[/-]\d+$/)[0]!);
        batches.push(...batch);
      }
      // Every group with messages was served once in ⌈G / max⌉ receives, whatever the noisy backlog.
      expect(served).toEqual(new Set(['noisy', ...quiet]));
      expect(batches.map((m) => m.payload)).toContain(`quiet-0/${round}`);
      expect(await queue.ackMany(batches)).toEqual(batches.map(() => true));
    }
  });

  it('leaves no key for a drained group, and none of the ring or leases once every group is drained', async () => {
    const queue = groupedOf();
    for (const group of ['a', 'b', 'c']) for (let i = 0; i < 2; i++) await queue.send(`${group}${i}`, { groupId: group });
    const keys = groupedKeys(queue.name);
    expect(await existingKeys(connection(), queue.name)).toEqual(
      [keys.stream, keys.ready, `${keys.backlogPrefix}a`, `${keys.backlogPrefix}b`, `${keys.backlogPrefix}c`].sort(),
    );
    for (;;) {
      const batch = await queue.receive(30_000, { max: 2 });
      if (batch.length === 0) break;
      await queue.ackMany(batch);
    }
    // The stream stays (empty), as an ungrouped queue's does, and so does the wake stream (one entry, for the whole queue).
    expect(await existingKeys(connection(), queue.name)).toEqual([keys.stream, keys.wake].sort());
    expect(await connection().raw(keys.wake, ['XLEN', keys.wake])).toBe(1);
    expect(await connection().raw(keys.stream, ['XLEN', keys.stream])).toBe(0);
  });

  it('deduplicates sends as the queue does: a repeat returns the original entry and appends nothing', async () => {
    const queue = groupedOf();
    const first = await queue.sendWithResult('a1', { groupId: 'a', deduplicationId: 'order-1' });
    const repeat = await queue.sendWithResult('other', { groupId: 'b', deduplicationId: 'order-1' });
    expect(repeat).toEqual({ id: first.id, duplicate: true });
    const batch = await queue.receive(30_000, { max: 10 });
    expect(batch.map((m) => [m.id, m.payload])).toEqual([[first.id, 'a1']]);
  });

  it('refuses a bad group ID, a groupId on an ungrouped queue, a delay and unknown group options before any I/O', async () => {
    const name = uniqueName();
    const queue = groupedOf({}, name);
    const refused = async (call: () => Promise<unknown>, argument: string): Promise<void> => {
      const error = await call().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(RespireValidationError);
      expect((error as RespireValidationError).message).toContain(argument);
    };
    await refused(() => queue.send('x'), 'groupId');
    await refused(() => queue.send('x', { groupId: '' }), 'groupId');
    await refused(() => queue.send('x', { groupId: 7 as never }), 'groupId');
    await refused(() => queue.send('x', { groupId: 'é'.repeat(513) }), 'groupId');
    await refused(() => queue.send('x', { groupId: 'a\uD800' }), 'groupId');
    await refused(() => queue.send('x', { groupId: 'a', delayMs: 10 } as never), 'delayMs');
    await refused(() => queue.send('x', { groupId: 'a', deduplicationId: '' }), 'deduplicationId');
    await refused(() => queueOf().send('x', { groupId: 'a' }), 'groupId');
    expect(() => new ReliableQueue(connection().client, name, { codec: utf8Codec, groups: { ordered: true } as never })).toThrow(RespireValidationError);
    expect(() => new ReliableQueue(connection().client, name, { codec: utf8Codec, groups: 'yes' as never })).toThrow(RespireValidationError);
    // The longest group ID is taken.
    await queue.send('x', { groupId: 'é'.repeat(512) });
    expect(await existingKeys(connection(), name)).toHaveLength(3);
  });

  it('refuses every grouped call while the ungrouped queue of the same name exists, changing nothing', async () => {
    const name = uniqueName();
    const grouped = groupedOf({}, name);
    await grouped.send('a1', { groupId: 'a' });
    const ungrouped = queueOf({}, name);
    await ungrouped.send('plain');
    await expect(grouped.send('a2', { groupId: 'a' })).rejects.toThrow(RespireKeyTypeError);
    await expect(grouped.receive(30_000)).rejects.toThrow(/ungrouped queue of the same name/);
    const keys = groupedKeys(name);
    expect(await connection().raw(keys.stream, ['XLEN', keys.stream])).toBe(1);
    // The ungrouped queue sees only its own messages.
    expect(payloads(await ungrouped.receive(30_000, { max: 10 }))).toEqual(['plain']);
  });
});
