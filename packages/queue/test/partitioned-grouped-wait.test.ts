// A grouped partitioned queue's waiting receive and consume() (README "Scaling past one master",
// "Message groups"): a send to any partition, and a NACK or ACK that unblocks a group on any
// partition, wakes the wait; consume() keeps each group in send order, one at a time, and handles
// every message once.
import { expect, it } from 'vitest';
import { PartitionedQueue, utf8Codec, type PartitionedMessage } from '@respire/queue';
import { queueKeys } from '@respire/core-scripts/internal';
import { partitionOfId } from '../src/partitions/layout.js';
import { groupedQueueKeys } from '../src/leases/grouped-source.js';
import { describeOnTargets, eventually, targets, uniqueName, type Connection } from './support.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quiet = { warn() {}, error() {} };

/** A group ID of the form `<stem>-<n>` that routes to `partition`. */
function groupFor(partition: number, count: number, stem: string): string {
  for (let n = 0; ; n++) if (partitionOfId(`${stem}-${n}`, count) === partition) return `${stem}-${n}`;
}

/** Per partition: entries in its grouped stream, and members of its grouped deadlines index (leased or delayed). */
async function grouped(conn: Connection, queue: PartitionedQueue<string>): Promise<{ stream: number[]; leased: number[] }> {
  const keys = queue.partitionNames.map((name) => groupedQueueKeys(queueKeys(name, '')));
  const stream = await Promise.all(keys.map(async ({ stream }) => Number(await conn.raw(stream, ['XLEN', stream]))));
  const leased = await Promise.all(keys.map(async ({ deadlines }) => Number(await conn.raw(deadlines, ['ZCARD', deadlines]))));
  return { stream, leased };
}

describeOnTargets('grouped PartitionedQueue waiting receive and consume()', targets, (target, connection) => {
  const queueOf = (partitions: number, name = uniqueName()): PartitionedQueue<string> =>
    new PartitionedQueue<string>(connection().client, name, { codec: utf8Codec, partitions, groups: {} });

  it('wakes on a send to each partition during the wait, well before waitMs', async () => {
    const queue = queueOf(3);
    const other = await target.connect();
    try {
      const sender = new PartitionedQueue<string>(other.client, queue.name, { codec: utf8Codec, partitions: 3, groups: {} });
      for (let partition = 0; partition < 3; partition++) {
        const waiting = queue.receive(30_000, { waitMs: 10_000 });
        await sleep(200);
        const sentAt = performance.now();
        const groupId = groupFor(partition, 3, 'send');
        const { id } = await sender.sendWithResult(`to ${partition}`, { groupId });
        const batch = await waiting;
        expect(performance.now() - sentAt, `partition ${partition}`).toBeLessThan(2500);
        expect(batch.map((m) => [m.partition, m.id, m.payload, m.groupId])).toEqual([[partition, id, `to ${partition}`, groupId]]);
        expect(await queue.ack(batch[0]!)).toBe(true);
      }
    } finally {
      await other.close();
    }
  });

  it('wakes when another client ACKs or NACKs the head that blocks a group, on each partition', async () => {
    const queue = queueOf(3);
    const other = await target.connect();
    try {
      const holder = new PartitionedQueue<string>(other.client, queue.name, { codec: utf8Codec, partitions: 3, groups: {} });
      for (let partition = 0; partition < 3; partition++) {
        const groupId = groupFor(partition, 3, 'settle');
        await queue.sendMany([
          { payload: 'first', groupId },
          { payload: 'second', groupId },
        ]);
        const [head] = await holder.receive(60_000, { max: 10 });
        expect(head).toMatchObject({ payload: 'first', partition, groupId });

        // The group is blocked by its head: the wait blocks until the NACK makes the head due again.
        const afterNack = queue.receive(30_000, { waitMs: 10_000 });
        await sleep(300);
        const nackedAt = performance.now();
        expect(await holder.nack(head!, 0)).toBe(true);
        const again = await afterNack;
        expect(performance.now() - nackedAt, `NACK on partition ${partition}`).toBeLessThan(2500);
        expect(again.map((m) => [m.payload, m.partition, m.deliveryCount])).toEqual([['first', partition, 2]]);

        // Blocked again by the redelivered head: the ACK moves the group on and wakes the wait.
        const afterAck = queue.receive(30_000, { waitMs: 10_000 });
        await sleep(300);
        const ackedAt = performance.now();
        expect(await holder.ack(again[0]!)).toBe(true);
        const next = await afterAck;
        expect(performance.now() - ackedAt, `ACK on partition ${partition}`).toBeLessThan(2500);
        expect(next.map((m) => [m.payload, m.partition, m.deliveryCount])).toEqual([['second', partition, 1]]);
        expect(await queue.ack(next[0]!)).toBe(true);
      }
      expect(await grouped(connection(), queue)).toEqual({ stream: [0, 0, 0], leased: [0, 0, 0] });
    } finally {
      await other.close();
    }
  });

  it('consume() keeps each group in send order, one at a time, across its concurrency, and handles every message once', async () => {
    const queue = queueOf(3);
    const groups = [0, 1, 2].flatMap((partition) => [0, 1, 2, 3].map((n) => groupFor(partition, 3, `c${n}`)));
    const sent = new Map<string, string[]>(groups.map((g) => [g, []]));
    const send = async (round: string): Promise<void> => {
      const items = groups.flatMap((groupId) => [0, 1].map((i) => ({ payload: `${groupId} ${round}${i}`, groupId })));
      await queue.sendMany(items);
      for (const { payload, groupId } of items) sent.get(groupId)!.push(payload);
    };
    for (const round of ['a', 'b', 'c']) await send(round);
    const total = () => [...sent.values()].reduce((n, list) => n + list.length, 0);
    const handled = new Map<string, string[]>(groups.map((g) => [g, []]));
    const inFlight = new Map<string, number>();
    const partitions = new Set<number>();
    let count = 0;
    let overlap = 0;
    let redelivered = 0;
    const consumer = queue.consume(
      async (message: PartitionedMessage<string>) => {
        const groupId = message.groupId!;
        const running = (inFlight.get(groupId) ?? 0) + 1;
        inFlight.set(groupId, running);
        if (running > 1) overlap++;
        if (message.deliveryCount !== 1) redelivered++;
        partitions.add(message.partition);
        await sleep(1 + (count % 4));
        handled.get(groupId)!.push(message.payload);
        inFlight.set(groupId, running - 1);
        count++;
      },
      { concurrency: 8, logger: quiet },
    );
    try {
      await eventually(() => count >= total(), 20_000, 10);
      // The consumer now waits on every partition: each send wakes it (a block not woken lasts up to 5 s).
      const sentAt = performance.now();
      for (const round of ['d', 'e']) {
        await send(round);
        await sleep(20);
      }
      await eventually(() => count >= total(), 20_000, 10);
      expect(performance.now() - sentAt).toBeLessThan(2500);
      await sleep(200);
    } finally {
      await consumer.stop();
    }
    expect(overlap).toBe(0);
    expect(redelivered).toBe(0);
    expect(count).toBe(groups.length * 10);
    for (const groupId of groups) expect(handled.get(groupId), groupId).toEqual(sent.get(groupId));
    expect(partitions).toEqual(new Set([0, 1, 2]));
    expect(await grouped(connection(), queue)).toEqual({ stream: [0, 0, 0], leased: [0, 0, 0] });
  });
});
