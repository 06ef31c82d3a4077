// Fair groups (README "Message groups", groupConcurrency > 1) on every target: up to k in flight per group, round robin, nothing lost.
import { expect, it } from 'vitest';
import { SeededRandom } from '@respire/harness';
import { ReliableQueue, RespireValidationError, utf8Codec, type ReceivedMessage } from '@respire/queue';
import { deadLetters, groupedKeys, withoutWake } from './groups-support.js';
import { describeOnTargets, queueFixture, targets, uniqueName } from './support.js';

const groupOf = (m: ReceivedMessage<string>): string => m.payload.split('/')[0]!;

describeOnTargets('ReliableQueue with fair groups', targets, (target, connection) => {
  const queueOf = queueFixture(connection);

  it('leases up to groupConcurrency messages of a group, one group per turn of the ring, and more once one completes', async () => {
    const queue = queueOf<string>({ groups: { groupConcurrency: 2 } });
    for (let i = 0; i < 5; i++) await queue.send(`a/${i}`, { groupId: 'a' });
    await queue.send('b/0', { groupId: 'b' });
    // One per group per turn: a, b, then a again (back at the end of the ring).
    const first = await queue.receive(30_000, { max: 10 });
    expect(first.map((m) => m.payload)).toEqual(['a/0', 'b/0']);
    const second = await queue.receive(30_000, { max: 10 });
    expect(second.map((m) => m.payload)).toEqual(['a/1']);
    // Two of a in flight: nothing more of it until one completes.
    expect(await queue.receive(30_000, { max: 10 })).toEqual([]);
    expect(await queue.ack(first[0]!)).toBe(true);
    expect((await queue.receive(30_000, { max: 10 })).map((m) => m.payload)).toEqual(['a/2']);
    // A NACKed message stays in flight until it is redelivered and completed.
    expect(await queue.nack(second[0]!)).toBe(true);
    const [again] = await queue.receive(30_000, { max: 10 });
    expect(again).toMatchObject({ payload: 'a/1', deliveryCount: 2 });
  });

  it('takes nothing from a group already at groupConcurrency that was put on the ring (a caller assuming a larger limit), and serves it again once one settles', async () => {
    const queue = queueOf<string>({ groups: { groupConcurrency: 2 } });
    for (let i = 0; i < 4; i++) await queue.send(`a/${i}`, { groupId: 'a' });
    const first = await queue.receive(30_000, { max: 10 });
    const second = await queue.receive(30_000, { max: 10 });
    expect([...first, ...second].map((m) => m.payload)).toEqual(['a/0', 'a/1']);
    // What an admin retry configured with groupConcurrency 5 does to this group: it joins the ring.
    const { ready } = groupedKeys(queue.name);
    expect(await connection().raw(ready, ['ZSCORE', ready, 'a'])).toBeNull();
    await connection().raw(ready, ['ZADD', ready, '1000', 'a']);
    expect(await queue.receive(30_000, { max: 10 })).toEqual([]);
    expect(await connection().raw(ready, ['ZSCORE', ready, 'a'])).toBeNull();
    // Settling one of the two lets the group take its next message, in order.
    expect(await queue.ack(first[0]!)).toBe(true);
    expect((await queue.receive(30_000, { max: 10 })).map((m) => m.payload)).toEqual(['a/2']);
    expect(await queue.receive(30_000, { max: 10 })).toEqual([]);
  });

  it(`keeps at most k in flight per group, loses nothing and leaves no key over random steps (seeded)`, { timeout: 60_000 }, async () => {
    const seed = Number(process.env.RESPIRE_GROUPS_SEED ?? Math.floor(Math.random() * 2 ** 31));
    try {
      const random = new SeededRandom(seed, 'fair-groups');
      const k = 3;
      const queue = queueOf<string>({ groups: { groupConcurrency: k }, deliveryLimit: 3 });
      const keys = groupedKeys(queue.name);
      const inFlight = new Map<string, ReceivedMessage<string>>();
      const sent = new Set<string>();
      const done = new Set<string>();
      let deadLettered = 0;
      // A receive's batch joins what is in flight; what it dead-lettered leaves it.
      const check = async (batch: readonly ReceivedMessage<string>[]): Promise<void> => {
        for (const m of batch) inFlight.set(m.id, m);
        const dead = await deadLetters(connection(), keys.deadLetter);
        for (const record of dead) inFlight.delete(record.sourceId);
        deadLettered = dead.length;
        const perGroup = new Map<string, number>();
        for (const m of inFlight.values()) perGroup.set(groupOf(m), (perGroup.get(groupOf(m)) ?? 0) + 1);
        for (const [group, n] of perGroup) expect(n, `messages of ${group} in flight`).toBeLessThanOrEqual(k);
      };
      for (let step = 0; step < 200; step++) {
        const op = random.weighted([
          ['send', 5],
          ['receive', 3],
          ['ack', 3],
          ['nack', 1],
        ] as const);
        if (op === 'send') {
          const group = random.pick(['a', 'b', 'c']);
          sent.add(await queue.send(`${group}/${step}`, { groupId: group }));
        } else if (op === 'receive') {
          await check(await queue.receive(60_000, { max: random.int(1, 6) }));
        } else if ([...inFlight.values()].some((x) => x.receipt !== 'revoked')) {
          const m = random.pick([...inFlight.values()].filter((x) => x.receipt !== 'revoked'));
          inFlight.delete(m.id);
          if (op === 'ack') {
            expect(await queue.ack(m)).toBe(true);
            done.add(m.id);
          } else {
            // Still in flight until redelivered: counted by the next receive that returns it.
            expect(await queue.nack(m)).toBe(true);
            inFlight.set(m.id, { ...m, receipt: 'revoked' });
          }
        }
      }
      for (let round = 0; done.size + deadLettered < sent.size; round++) {
        expect(round).toBeLessThan(1000);
        for (const m of [...inFlight.values()].filter((x) => x.receipt !== 'revoked')) {
          expect(await queue.ack(m)).toBe(true);
          inFlight.delete(m.id);
          done.add(m.id);
        }
        await check(await queue.receive(60_000, { max: 10 }));
      }
      expect(done.size + deadLettered).toBe(sent.size);
      // The wake stream (one entry at most, for the whole queue) stays once a group moved on.
      expect(await withoutWake(connection(), queue.name)).toEqual([keys.stream, ...(deadLettered > 0 ? [keys.deadLetter] : [])].sort());
    } catch (error) {
      console.error(`fair groups on ${target.name}: failed with seed ${seed}; repeat with RESPIRE_GROUPS_SEED=${seed}`);
      throw error;
    }
  });

  it('refuses a groupConcurrency that is not a whole number from 1 to 1,000, before any I/O', () => {
    for (const groupConcurrency of [0, 1.5, 1001, '2'] as unknown[]) {
      expect(() => new ReliableQueue(connection().client, uniqueName(), { codec: utf8Codec, groups: { groupConcurrency } as never })).toThrow(
        RespireValidationError,
      );
    }
  });
});
