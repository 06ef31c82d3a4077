// Attacks on grouped queues (README "Message groups"): entries deleted behind the queue's back, keys of another type, extreme numbers and IDs, parallel consumers, seeded random runs.
import { expect, it } from 'vitest';
import { GROUPED_LEASED_MARK } from '@respire/core-scripts/internal';
import { SeededRandom } from '@respire/harness';
import { MAX_GROUP_ID_BYTES, RespireKeyTypeError, type ReceivedMessage, type ReliableQueue } from '@respire/queue';
import { deadLetters, groupedKeys, groupedSnapshot, untilAllGroupedDue, withoutWake } from './groups-support.js';
import { describeOnTargets, eventually, queueFixture, serverTimeMs, targets, type Connection } from './support.js';

type Groups = { groupConcurrency?: number };
const MODES: readonly (readonly [string, Groups])[] = [
  ['ordered', {}],
  ['fair k=2', { groupConcurrency: 2 }],
  ['fair k=3', { groupConcurrency: 3 }],
];

/** The in-flight hash of a grouped queue (fair groups). */
const inFlightKey = (name: string): string => `{respire-queue:${name}}:groups:in-flight`;

/** A reply of HGETALL as pairs, RESP2 (flat array) or RESP3 (map). */
function hashPairs(reply: unknown): [string, string][] {
  if (Array.isArray(reply)) {
    const pairs: [string, string][] = [];
    for (let i = 0; i < reply.length; i += 2) pairs.push([String(reply[i]), String(reply[i + 1])]);
    return pairs;
  }
  if (reply instanceof Map) return [...reply].map(([k, v]) => [String(k), String(v)]);
  return Object.entries(reply as Record<string, unknown>).map(([k, v]) => [k, String(v)]);
}

/** Per group, the messages the leased hash holds (leased or due): what the server has in flight. */
async function leasedPerGroup(conn: Connection, name: string): Promise<Map<string, number>> {
  const { leased } = groupedKeys(name);
  const counts = new Map<string, number>();
  for (const [field, group] of hashPairs(await conn.raw(leased, ['HGETALL', leased]))) {
    if (field !== GROUPED_LEASED_MARK) counts.set(group, (counts.get(group) ?? 0) + 1);
  }
  return counts;
}

/** Deletes entries from the grouped stream behind the queue's back. */
async function xdel(conn: Connection, name: string, ids: readonly string[]): Promise<void> {
  const { stream } = groupedKeys(name);
  if (ids.length > 0) await conn.raw(stream, ['XDEL', stream, ...ids]);
}

/** Turns `key` into a key of another type: a string, or a list where a string belongs (a deduplication key). */
async function spoil(conn: Connection, key: string, asList = false): Promise<void> {
  await conn.raw(key, ['DEL', key]);
  await conn.raw(key, asList ? ['RPUSH', key, 'x'] : ['SET', key, 'x']);
}

/** Receives (max 100) and acknowledges until a receive is empty and nothing is in flight; the payloads in delivery order. */
async function drain(conn: Connection, queue: ReliableQueue<string>): Promise<string[]> {
  const delivered: string[] = [];
  for (let round = 0; ; round++) {
    expect(round, 'drained within 200 receives').toBeLessThan(200);
    const batch = await queue.receive(60_000, { max: 100 });
    for (const m of batch) delivered.push(m.payload);
    if (batch.length > 0) {
      expect(await queue.ackMany(batch)).toEqual(batch.map(() => true));
      continue;
    }
    const { leased, ready } = groupedKeys(queue.name);
    if (Number(await conn.raw(leased, ['HLEN', leased])) === 0 && Number(await conn.raw(ready, ['ZCARD', ready])) === 0) return delivered;
    await untilAllGroupedDue(conn, queue.name);
  }
}

/** Waits until the server clock is `ms` past its reading now (short leases expire meanwhile). */
async function untilServerPasses(conn: Connection, name: string, ms: number): Promise<void> {
  const { stream } = groupedKeys(name);
  const until = (await serverTimeMs(conn, stream)) + ms;
  await eventually(async () => (await serverTimeMs(conn, stream)) >= until, 10_000, 2);
}

/** The payloads of `delivered` of group `group` (payloads are "<group>/<n>"). */
const ofGroup = (delivered: readonly string[], group: string): string[] => delivered.filter((p) => p.startsWith(`${group}/`));

describeOnTargets('ReliableQueue with groups: attacks', targets, (target, connection) => {
  const queueOf = queueFixture(connection);

  // A head deleted from the stream in each state it can be in: dropped without a trace, its group
  // moving on in order, nothing dead-lettered for it, no key left once everything is acknowledged.
  for (const [mode, groups] of MODES) {
    const ordered = groups.groupConcurrency === undefined;
    for (const state of ['ready', 'leased then acked', 'leased then nacked', 'expired', 'exhausted'] as const) {
      it(`${mode}: a head deleted while ${state} is dropped, and its group moves on`, async () => {
        const queue = queueOf<string>({ groups, deliveryLimit: state === 'exhausted' ? 1 : 5 });
        const keys = groupedKeys(queue.name);
        const sent = await queue.sendMany(['a/1', 'a/2', 'a/3', 'b/1'].map((payload) => ({ payload, groupId: payload[0]! })));
        const a1 = sent[0]!.id;
        let head: ReceivedMessage<string> | undefined;
        if (state !== 'ready') {
          [head] = await queue.receive(state === 'expired' || state === 'exhausted' ? 20 : 60_000, { max: 1 });
          expect(head).toMatchObject({ id: a1, payload: 'a/1' });
        }
        await xdel(connection(), queue.name, [a1]);
        if (state === 'leased then acked') expect(await queue.ack(head!)).toBe(true);
        if (state === 'leased then nacked') expect(await queue.nack(head!)).toBe(true);
        if (state === 'expired' || state === 'exhausted') await untilAllGroupedDue(connection(), queue.name);
        const delivered = await drain(connection(), queue);
        expect([...delivered].sort()).toEqual(['a/2', 'a/3', 'b/1']);
        if (ordered) {
          // Drained with max 100 and acked at once: one message of a per receive, in order.
          expect(ofGroup(delivered, 'a')).toEqual(['a/2', 'a/3']);
        }
        expect(await withoutWake(connection(), queue.name)).toEqual([keys.stream]);
        expect(await connection().raw(keys.stream, ['XLEN', keys.stream])).toBe(0);
      });
    }

    it(`${mode}: consecutive deleted heads, a group deleted whole while ready and while its head is leased, heads far apart in the stream`, async () => {
      const queue = queueOf<string>({ groups });
      const keys = groupedKeys(queue.name);
      // b's head is old, the others' new: the heads a receive takes are far apart in the stream.
      const payloads = ['b/1', ...Array.from({ length: 150 }, (_, i) => `n/${i}`), 'a/1', 'a/2', 'a/3', 'a/4', 'a/5', 'c/1', 'c/2', 'd/1', 'd/2', 'd/3', 'b/2'];
      const sent = await queue.sendMany(payloads.map((payload) => ({ payload, groupId: payload.split('/')[0]! })));
      const id = (payload: string): string => sent[payloads.indexOf(payload)]!.id;
      const noisyDeleted = Array.from({ length: 150 }, (_, i) => `n/${i}`).filter((_, i) => i % 2 === 0);
      // a: its first three heads; c: all of it while ready; n: every other one, its head first.
      await xdel(connection(), queue.name, ['a/1', 'a/2', 'a/3', 'c/1', 'c/2', ...noisyDeleted].map(id));
      const first = await queue.receive(60_000, { max: 10 });
      // The ring is b, n, a, c, d: c yields nothing, the others their first message left.
      expect(first.map((m) => m.payload)).toEqual(['b/1', 'n/1', 'a/4', 'd/1']);
      expect(first.map((m) => m.groupId)).toEqual(['b', 'n', 'a', 'd']);
      // d: the rest of it deleted while its head is leased.
      await xdel(connection(), queue.name, [id('d/2'), id('d/3')]);
      expect(await queue.ackMany(first)).toEqual([true, true, true, true]);
      const delivered = await drain(connection(), queue);
      const noisyLeft = Array.from({ length: 150 }, (_, i) => `n/${i}`).filter((_, i) => i % 2 === 1 && i > 1);
      expect([...delivered].sort()).toEqual(['a/5', 'b/2', ...noisyLeft].sort());
      if (ordered) {
        expect(ofGroup(delivered, 'n')).toEqual(noisyLeft);
      }
      expect(await withoutWake(connection(), queue.name)).toEqual([keys.stream]);
    });

    it(`${mode}: a trimmed stream (XTRIM MAXLEN 0) with heads ready, leased and due: everything dropped, no key left`, async () => {
      const queue = queueOf<string>({ groups, deliveryLimit: 2 });
      const keys = groupedKeys(queue.name);
      await queue.sendMany(Array.from({ length: 30 }, (_, i) => ({ payload: `g${i % 6}/${i}`, groupId: `g${i % 6}` })));
      const expiring = await queue.receive(20, { max: 2 });
      const leased = await queue.receive(60_000, { max: 2 });
      await queue.nack(leased[1]!);
      await connection().raw(keys.stream, ['XTRIM', keys.stream, 'MAXLEN', '0']);
      await untilServerPasses(connection(), queue.name, 25);
      expect(await queue.receive(60_000, { max: 100 })).toEqual([]);
      // The leased head's receipt still holds: its ACK settles it.
      expect(await queue.ack(leased[0]!)).toBe(true);
      expect(await queue.ack(expiring[0]!)).toBe(false);
      expect(await drain(connection(), queue)).toEqual([]);
      expect(await withoutWake(connection(), queue.name)).toEqual([keys.stream]);
      expect(await deadLetters(connection(), keys.deadLetter)).toEqual([]);
    });
  }

  // A key of another type anywhere a call reads or writes: RespireKeyTypeError, and nothing changed,
  // whatever the call had written before reaching it. Each (call, key) on a fresh queue.
  type Call = 'receive' | 'ack' | 'nack' | 'extend' | 'send' | 'sendMany';
  const SPOILABLE = ['stream', 'ready', 'leased', 'deadlines', 'dead-letter', 'wake', 'in-flight', 'backlog a', 'backlog b', 'backlog c', 'dedup'] as const;
  type Spoilable = (typeof SPOILABLE)[number];
  /** The keys each call uses in the state its setup makes (in-flight: fair groups only). */
  const USES: Record<Call, readonly Spoilable[]> = {
    receive: ['stream', 'ready', 'leased', 'deadlines', 'dead-letter', 'wake', 'in-flight', 'backlog a', 'backlog b', 'backlog c'],
    ack: ['stream', 'ready', 'leased', 'deadlines', 'wake', 'in-flight', 'backlog a'],
    nack: ['deadlines', 'wake'],
    extend: ['deadlines'],
    send: ['stream', 'ready', 'backlog c', 'dedup', 'in-flight'],
    sendMany: ['stream', 'ready', 'backlog a', 'backlog c', 'dedup', 'in-flight'],
  };
  for (const [mode, groups] of MODES.slice(0, 2)) {
    const fair = groups.groupConcurrency !== undefined;
    for (const call of Object.keys(USES) as Call[]) {
      it(`${mode}: ${call} with each of its keys of another type throws RespireKeyTypeError and changes nothing`, async () => {
        for (const spoiled of SPOILABLE) {
          const queue = queueOf<string>({ groups, deliveryLimit: 1 });
          const keys = groupedKeys(queue.name);
          const keyOf: Record<Spoilable, string> = {
            stream: keys.stream,
            ready: keys.ready,
            leased: keys.leased,
            deadlines: keys.deadlines,
            'dead-letter': keys.deadLetter,
            wake: keys.wake,
            'in-flight': inFlightKey(queue.name),
            'backlog a': `${keys.backlogPrefix}a`,
            'backlog b': `${keys.backlogPrefix}b`,
            'backlog c': `${keys.backlogPrefix}c`,
            dedup: `{respire-queue:${queue.name}}:groups:dedup:x`,
          };
          let run: () => Promise<unknown>;
          if (call === 'receive') {
            // a/1 due and exhausted, b/1 due and deleted, c ready: the receive takes, dead-letters and settles.
            // Fair groups: a and b have nothing more, so they are off the ring and only the settle reads their backlogs.
            const payloads = fair ? ['a/1', 'b/1', 'c/1', 'c/2'] : ['a/1', 'a/2', 'b/1', 'b/2', 'c/1', 'c/2'];
            const sent = await queue.sendMany(payloads.map((payload) => ({ payload, groupId: payload[0]! })));
            expect((await queue.receive(20, { max: 2 })).map((m) => m.payload)).toEqual(['a/1', 'b/1']);
            await xdel(connection(), queue.name, [sent[payloads.indexOf('b/1')]!.id]);
            await untilServerPasses(connection(), queue.name, 25);
            run = () => queue.receive(60_000, { max: 10 });
          } else if (call === 'send' || call === 'sendMany') {
            await queue.sendMany(['a/1', 'b/1'].map((payload) => ({ payload, groupId: payload[0]! })));
            run =
              call === 'send'
                ? () => queue.send('c/1', { groupId: 'c', deduplicationId: 'x' })
                : () =>
                    queue.sendMany([
                      { payload: 'a/2', groupId: 'a' },
                      { payload: 'c/1', groupId: 'c', deduplicationId: 'x' },
                    ]);
          } else {
            // a/1 leased with a/2 behind it (fair: a back on the ring).
            await queue.sendMany(['a/1', 'a/2', 'b/1'].map((payload) => ({ payload, groupId: payload[0]! })));
            const [head] = await queue.receive(60_000, { max: 1 });
            run = call === 'ack' ? () => queue.ack(head!) : call === 'nack' ? () => queue.nack(head!) : () => queue.extend(head!, 60_000);
          }
          await spoil(connection(), keyOf[spoiled], spoiled === 'dedup');
          const before = await groupedSnapshot(connection(), queue.name);
          const outcome = await run().then(
            () => 'done',
            (e: unknown) => e,
          );
          const uses = USES[call].includes(spoiled) && (fair || spoiled !== 'in-flight');
          if (uses || outcome !== 'done') {
            expect(outcome, `${call} with ${spoiled} of another type`).toBeInstanceOf(RespireKeyTypeError);
            expect(await groupedSnapshot(connection(), queue.name), `${call} with ${spoiled} of another type changed nothing`).toBe(before);
          }
        }
      });
    }
  }

  // Seeded random runs: sends (one or a batch), receives of max 1..100 with short or long leases,
  // ACKs, NACKs, expiries and deletions behind the queue's back. After every step: at most k of a
  // group in flight on the server, a delivery never of a message whose lease is held, never of one
  // settled or deleted, and (ordered) always its group's first message left. At the end everything
  // left is delivered and acknowledged or dead-lettered, and no key is left.
  for (const [mode, groups] of MODES) {
    const k = groups.groupConcurrency ?? 1;
    it(`${mode}: a seeded random run with deletions behind the queue's back keeps its promises`, { timeout: 30_000 }, async () => {
      const seed = Number(process.env.RESPIRE_GROUPS_SEED ?? Math.floor(Math.random() * 2 ** 31));
      const why = `${mode} on ${target.name}, seed ${seed} (repeat with RESPIRE_GROUPS_SEED=${seed})`;
      const random = new SeededRandom(seed, `groups-attack ${mode}`);
      const queue = queueOf<string>({ groups, deliveryLimit: 3 });
      const keys = groupedKeys(queue.name);
      const GROUP_IDS = ['a', 'b', 'c', 'd', 'e', 'f'];
      /** Per group, its messages not yet acknowledged, dead-lettered or deleted, in send order. */
      const left = new Map<string, string[]>(GROUP_IDS.map((g) => [g, []]));
      const groupOf = new Map<string, string>();
      const gone = new Set<string>();
      /** Deliveries whose leases we hold (long leases, not NACKed): none of them may be delivered again. */
      const held = new Map<string, ReceivedMessage<string>>();
      /** Deliveries with short leases or NACKed: their receipts may or may not still hold. */
      const loose = new Map<string, ReceivedMessage<string>>();
      const acked = new Set<string>();
      let deadSeen = 0;
      const settle = (id: string): void => {
        const list = left.get(groupOf.get(id)!)!;
        if (list.includes(id)) list.splice(list.indexOf(id), 1);
        held.delete(id);
        loose.delete(id);
      };
      const checkServer = async (): Promise<void> => {
        for (const [group, n] of await leasedPerGroup(connection(), queue.name)) expect(n, `${why}: ${group} in flight`).toBeLessThanOrEqual(k);
      };
      const received = async (batch: readonly ReceivedMessage<string>[], leaseMs: number): Promise<void> => {
        for (const m of batch) {
          expect(m.groupId, why).toBe(groupOf.get(m.id));
          expect(held.has(m.id), `${why}: ${m.payload} delivered while its lease is held`).toBe(false);
          expect(gone.has(m.id) || acked.has(m.id), `${why}: ${m.payload} delivered after it was settled or deleted`).toBe(false);
          const list = left.get(m.groupId!)!;
          if (k === 1) expect(m.id, `${why}: ${m.payload} is its group's first message left`).toBe(list[0]);
          else expect(list, why).toContain(m.id);
          loose.delete(m.id);
          (leaseMs > 1000 ? held : loose).set(m.id, m);
        }
        const dead = await deadLetters(connection(), keys.deadLetter);
        for (const record of dead.slice(deadSeen)) {
          expect(gone.has(record.sourceId) || acked.has(record.sourceId), `${why}: a settled message dead-lettered`).toBe(false);
          settle(record.sourceId);
          gone.add(record.sourceId);
        }
        deadSeen = dead.length;
        await checkServer();
      };
      for (let step = 0; step < 120; step++) {
        const op = random.weighted([
          ['send', 4],
          ['receive', 4],
          ['ack', 3],
          ['nack', 1],
          ['extend', 1],
          ['expire', 1],
          ['delete', 2],
        ] as const);
        if (op === 'send') {
          const items = Array.from({ length: random.chance(0.5) ? 1 : random.int(2, 20) }, (_, i) => {
            const group = random.pick(GROUP_IDS);
            return { payload: `${group}/${step}.${i}`, groupId: group };
          });
          const results = items.length === 1 ? [{ id: await queue.send(items[0]!.payload, { groupId: items[0]!.groupId }) }] : await queue.sendMany(items);
          results.forEach((r, i) => {
            groupOf.set(r.id, items[i]!.groupId);
            left.get(items[i]!.groupId)!.push(r.id);
          });
        } else if (op === 'receive') {
          const leaseMs = random.chance(0.3) ? 30 : 60_000;
          await received(await queue.receive(leaseMs, { max: random.int(1, 100) }), leaseMs);
        } else if (op === 'extend') {
          // A held lease is extended; a loose one maybe, and then it is held again.
          const all = [...held.values(), ...loose.values()];
          if (all.length === 0) continue;
          const m = random.pick(all);
          const extended = await queue.extend(m, 60_000);
          if (held.has(m.id)) expect(extended, `${why}: extend of a held lease`).toBe(true);
          if (extended) {
            loose.delete(m.id);
            held.set(m.id, m);
          }
        } else if (op === 'ack' || op === 'nack') {
          const all = [...held.values(), ...loose.values()];
          if (all.length === 0) continue;
          const some = Array.from({ length: random.int(1, Math.min(5, all.length)) }, () => random.pick(all)).filter((m, i, a) => a.indexOf(m) === i);
          if (op === 'ack') {
            const flags = await queue.ackMany(some);
            some.forEach((m, i) => {
              // A held lease is always acknowledged; a loose one maybe (expired or NACKed: false).
              if (held.has(m.id)) expect(flags[i], `${why}: ACK of a held lease`).toBe(true);
              if (flags[i]) {
                expect(acked.has(m.id), `${why}: ${m.payload} acknowledged twice`).toBe(false);
                acked.add(m.id);
                settle(m.id);
              }
            });
          } else {
            const flags = await queue.nackMany(some);
            some.forEach((m, i) => {
              if (held.has(m.id)) expect(flags[i], `${why}: NACK of a held lease`).toBe(true);
              held.delete(m.id);
              loose.set(m.id, m);
            });
          }
        } else if (op === 'expire') {
          await untilServerPasses(connection(), queue.name, 35);
        } else {
          // Deletes a few messages of any state behind the queue's back: the first left of a group, or any.
          const candidates = [...left.values()].flat();
          if (candidates.length === 0) continue;
          const victims = Array.from({ length: random.int(1, 3) }, () =>
            random.chance(0.5) ? random.pick(candidates) : (left.get(random.pick(GROUP_IDS))![0] ?? random.pick(candidates)),
          );
          await xdel(connection(), queue.name, victims);
          for (const id of victims) {
            gone.add(id);
            const list = left.get(groupOf.get(id)!)!;
            if (list.includes(id)) list.splice(list.indexOf(id), 1);
          }
        }
        await checkServer();
      }
      // The end: acknowledge what we hold, then receive and acknowledge until nothing is left anywhere.
      for (let round = 0; ; round++) {
        expect(round, `${why}: drained`).toBeLessThan(300);
        const holding = [...held.values()];
        if (holding.length > 0) {
          expect(await queue.ackMany(holding), why).toEqual(holding.map(() => true));
          for (const m of holding) {
            acked.add(m.id);
            settle(m.id);
          }
        }
        const batch = await queue.receive(60_000, { max: 100 });
        await received(batch, 60_000);
        if (batch.length > 0) continue;
        if (Number(await connection().raw(keys.deadlines, ['ZCARD', keys.deadlines])) === 0) break;
        await untilServerPasses(connection(), queue.name, 35);
      }
      for (const [group, list] of left) expect(list, `${why}: ${group} left behind`).toEqual([]);
      expect(await withoutWake(connection(), queue.name), why).toEqual([keys.stream, ...(deadSeen > 0 ? [keys.deadLetter] : [])].sort());
      expect(await connection().raw(keys.stream, ['XLEN', keys.stream]), why).toBe(0);
    });
  }

  // Numbers past 2^31 and near 2^53: delivery counts (the deadlines index member edited to a count a
  // queue would reach after that many deliveries) and ring positions (a group's position set with ZADD).
  it('ordered: a delivery count of 2^31 - 1 is redelivered, acknowledged and NACKed; counts of 2^32 and 2^53 - 1 are dead-lettered as they are', async () => {
    const queue = queueOf<string>({ groups: {}, deliveryLimit: 2 ** 31 - 1 });
    const keys = groupedKeys(queue.name);
    await queue.sendMany(['a/1', 'a/2', 'a/3', 'a/4'].map((payload) => ({ payload, groupId: 'a' })));
    /** Receives the group's head, then makes it due with `count` deliveries so far. */
    const dueWith = async (count: bigint): Promise<string> => {
      const [m] = await queue.receive(60_000, { max: 1 });
      await connection().raw(keys.deadlines, ['ZREM', keys.deadlines, `${m!.id}:${m!.receipt}`]);
      await connection().raw(keys.deadlines, ['ZADD', keys.deadlines, '0', `${m!.id}:${count}`]);
      return m!.id;
    };
    const a1 = await dueWith(2n ** 31n - 2n);
    const [again] = await queue.receive(60_000, { max: 10 });
    expect(again).toMatchObject({ id: a1, payload: 'a/1', deliveryCount: 2 ** 31 - 1 });
    expect(again!.receipt.startsWith(`${2 ** 31 - 1}.`)).toBe(true);
    expect(await queue.extend(again!, 60_000)).toBe(true);
    expect(await queue.nack(again!)).toBe(true);
    // NACKed at the limit: the next receive dead-letters it, and the group moves on.
    const next = await queue.receive(60_000, { max: 10 });
    expect(next).toEqual([]);
    expect(await deadLetters(connection(), keys.deadLetter)).toMatchObject([{ sourceId: a1, deliveryCount: 2 ** 31 - 1 }]);
    for (const [count, payload] of [
      [2n ** 32n, 'a/2'],
      [2n ** 53n - 1n, 'a/3'],
    ] as const) {
      const id = await dueWith(count);
      expect(await queue.receive(60_000, { max: 10 })).toEqual([]);
      const record = (await connection().raw(keys.deadLetter, ['XREVRANGE', keys.deadLetter, '+', '-', 'COUNT', '1'])) as [string, string[]][];
      expect(record[0]![1].map(String)).toEqual(['payload', payload, 'source_id', id, 'delivery_count', String(count), 'group', 'a']);
    }
    const [last] = await queue.receive(60_000, { max: 10 });
    expect(last).toMatchObject({ payload: 'a/4', deliveryCount: 1 });
    expect(await queue.ack(last!)).toBe(true);
    expect(await withoutWake(connection(), queue.name)).toEqual([keys.deadLetter, keys.stream]);
  });

  for (const position of [2 ** 31 + 5, 2 ** 52 + 5, 2 ** 53 - 10]) {
    it(`ring positions from ${position}: sends, sendMany, ACKs and fair turns join the back of the ring at exactly one more`, async () => {
      const queue = queueOf<string>({ groups: {} });
      const keys = groupedKeys(queue.name);
      const score = async (group: string): Promise<number> => Number(await connection().raw(keys.ready, ['ZSCORE', keys.ready, group]));
      await queue.sendMany(['a/1', 'a/2'].map((payload) => ({ payload, groupId: 'a' })));
      await connection().raw(keys.ready, ['ZADD', keys.ready, 'XX', String(position), 'a']);
      await queue.send('b/1', { groupId: 'b' });
      await queue.sendMany([{ payload: 'c/1', groupId: 'c' }]);
      expect([await score('b'), await score('c')]).toEqual([position + 1, position + 2]);
      const [a1] = await queue.receive(60_000, { max: 1 });
      expect(a1!.payload).toBe('a/1');
      expect(await queue.ack(a1!)).toBe(true);
      expect(await score('a')).toBe(position + 3);
      const batch = await queue.receive(60_000, { max: 10 });
      expect(batch.map((m) => m.payload)).toEqual(['b/1', 'c/1', 'a/2']);
      expect(await queue.ackMany(batch)).toEqual([true, true, true]);

      // Fair groups: a group served once goes back to the end of the ring, at the tail plus one.
      const fair = queueOf<string>({ groups: { groupConcurrency: 2 } });
      const fairKeys = groupedKeys(fair.name);
      await fair.sendMany(['x/1', 'x/2', 'y/1'].map((payload) => ({ payload, groupId: payload[0]! })));
      await connection().raw(fairKeys.ready, ['ZADD', fairKeys.ready, 'XX', String(position), 'y']);
      expect((await fair.receive(60_000, { max: 1 })).map((m) => m.payload)).toEqual(['x/1']);
      expect(Number(await connection().raw(fairKeys.ready, ['ZSCORE', fairKeys.ready, 'x']))).toBe(position + 1);
      const rest = await fair.receive(60_000, { max: 10 });
      expect(rest.map((m) => m.payload)).toEqual(['y/1', 'x/2']);
    });
  }

  for (const [mode, groups] of MODES.slice(0, 2)) {
    it(`${mode}: 1,000 groups of two, served one per group per receive in the order they joined, no key left`, async () => {
      const queue = queueOf<string>({ groups });
      const keys = groupedKeys(queue.name);
      const ids = Array.from({ length: 1000 }, (_, i) => `g${String(i).padStart(4, '0')}`);
      for (const round of [1, 2]) await queue.sendMany(ids.map((groupId) => ({ payload: `${groupId}/${round}`, groupId })));
      const first = await queue.receive(60_000, { max: 1000 });
      expect(first.map((m) => m.payload)).toEqual(ids.map((g) => `${g}/1`));
      // Fair groups: the groups went back to the ring while they had more; ordered: nothing until the ACKs.
      if (groups.groupConcurrency === undefined) expect(await queue.receive(60_000, { max: 1000 })).toEqual([]);
      expect((await queue.ackMany(first)).every(Boolean)).toBe(true);
      const second = await queue.receive(60_000, { max: 1000 });
      expect(second.map((m) => m.payload)).toEqual(ids.map((g) => `${g}/2`));
      expect((await queue.ackMany(second)).every(Boolean)).toBe(true);
      expect(await withoutWake(connection(), queue.name)).toEqual([keys.stream]);
    });

    // Group IDs at the byte limit, with multibyte, control and key-like characters: each its own group, kept exactly.
    const ODD_IDS = [
      'é'.repeat(MAX_GROUP_ID_BYTES / 2),
      `${'€'.repeat((MAX_GROUP_ID_BYTES - 1) / 3)}x`,
      '😀'.repeat(MAX_GROUP_ID_BYTES / 4),
      ':',
      '{',
      '}',
      '{}',
      '}{x',
      'a:b{c}d',
      '\u0000',
      '\u0000\u0001\n\r\t ',
      '}:groups:ready',
      '*',
      '?[a]',
      '%d%s',
      'group',
      'payload',
      '-1',
      '1e400',
      'nan',
      '\uFEFF',
      '\u{10FFFF}',
    ];
    it(`${mode}: group IDs at ${MAX_GROUP_ID_BYTES} bytes and with binary, UTF-8, ':' and '{}' characters are kept exactly, in order, no key left`, async () => {
      const queue = queueOf<string>({ groups });
      const keys = groupedKeys(queue.name);
      for (const id of ODD_IDS.slice(0, 3)) expect(Buffer.byteLength(id)).toBe(MAX_GROUP_ID_BYTES);
      await queue.sendMany(ODD_IDS.map((groupId, i) => ({ payload: `${i}/1`, groupId })));
      for (const [i, groupId] of ODD_IDS.entries()) await queue.send(`${i}/2`, { groupId });
      const delivered: ReceivedMessage<string>[] = [];
      for (let round = 0; delivered.length < 2 * ODD_IDS.length; round++) {
        expect(round).toBeLessThan(5);
        const batch = await queue.receive(60_000, { max: 100 });
        delivered.push(...batch);
        expect((await queue.ackMany(batch)).every(Boolean)).toBe(true);
      }
      expect(delivered.map((m) => m.groupId)).toEqual([...ODD_IDS, ...ODD_IDS]);
      expect(delivered.map((m) => m.payload)).toEqual([...ODD_IDS.map((_, i) => `${i}/1`), ...ODD_IDS.map((_, i) => `${i}/2`)]);
      expect(await withoutWake(connection(), queue.name)).toEqual([keys.stream]);
    });

    // Consumers in parallel on one queue: never more than k of a group in flight, and (ordered) each group in send order.
    it(`${mode}: four consumers receiving and acknowledging in parallel never have more than k of a group in flight`, { timeout: 30_000 }, async () => {
      const k = groups.groupConcurrency ?? 1;
      const queue = queueOf<string>({ groups });
      const keys = groupedKeys(queue.name);
      const GROUP_IDS = Array.from({ length: 8 }, (_, i) => `p${i}`);
      const PER_GROUP = 15;
      await queue.sendMany(GROUP_IDS.flatMap((groupId) => Array.from({ length: PER_GROUP }, (_, n) => ({ payload: `${groupId}/${n}`, groupId }))));
      const busy = new Map<string, number>();
      const seen = new Map<string, number[]>();
      let done = 0;
      let violation: string | undefined;
      const consumer = async (c: number): Promise<void> => {
        for (let round = 0; done < GROUP_IDS.length * PER_GROUP && violation === undefined; round++) {
          if (round > 2000) throw new Error(`consumer ${c} did not finish`);
          const batch = await queue.receive(60_000, { max: 1 + ((round + c) % 4) });
          if (batch.length === 0) {
            await new Promise((resolve) => setTimeout(resolve, 1));
            continue;
          }
          for (const m of batch) {
            const group = m.groupId!;
            busy.set(group, (busy.get(group) ?? 0) + 1);
            if (busy.get(group)! > k) violation = `${busy.get(group)} of ${group} in flight`;
            seen.set(group, [...(seen.get(group) ?? []), Number(m.payload.split('/')[1])]);
          }
          const server = await leasedPerGroup(connection(), queue.name);
          for (const [group, n] of server) if (n > k) violation = `${n} of ${group} leased on the server`;
          await new Promise((resolve) => setTimeout(resolve, (round + c) % 3));
          // Counted free before the ACK is sent: the server frees the group only once it has run.
          for (const m of batch) busy.set(m.groupId!, busy.get(m.groupId!)! - 1);
          expect((await queue.ackMany(batch)).every(Boolean)).toBe(true);
          done += batch.length;
        }
      };
      await Promise.all([0, 1, 2, 3].map(consumer));
      expect(violation).toBeUndefined();
      expect(done).toBe(GROUP_IDS.length * PER_GROUP);
      for (const group of GROUP_IDS) {
        const order = seen.get(group)!;
        expect([...order].sort((x, y) => x - y)).toEqual(Array.from({ length: PER_GROUP }, (_, n) => n));
        if (k === 1) expect(order).toEqual(Array.from({ length: PER_GROUP }, (_, n) => n));
      }
      expect(await withoutWake(connection(), queue.name)).toEqual([keys.stream]);
    });
  }

  for (const [mode, groups] of MODES.slice(0, 2)) {
    const k = groups.groupConcurrency ?? 1;
    it(`${mode}: a receipt repeated in ackMany, nackMany and extendMany counts once, and the group's room stays right`, async () => {
      const queue = queueOf<string>({ groups });
      const keys = groupedKeys(queue.name);
      await queue.sendMany(['x/1', 'x/2', 'x/3', 'x/4'].map((payload) => ({ payload, groupId: 'x' })));
      const first = await queue.receive(60_000, { max: 1 });
      expect(await queue.extendMany([first[0]!, first[0]!], 60_000)).toEqual([true, false]);
      expect(await queue.nackMany([first[0]!, first[0]!])).toEqual([true, false]);
      const [again] = await queue.receive(60_000, { max: 1 });
      expect(again).toMatchObject({ payload: 'x/1', deliveryCount: 2 });
      // The stale receipt of the first delivery beside the current one: only the current one counts.
      expect(await queue.ackMany([first[0]!, again!, again!])).toEqual([false, true, false]);
      // x has nothing in flight now: k more may be taken, one per receive.
      const taken: string[] = [];
      for (let i = 0; i < 4; i++) taken.push(...(await queue.receive(60_000, { max: 10 })).map((m) => m.payload));
      expect(taken).toEqual(['x/2', 'x/3', 'x/4'].slice(0, k));
      expect((await leasedPerGroup(connection(), queue.name)).get('x')).toBe(k);
      if (k > 1) expect(Number(await connection().raw(keys.leased, ['HGET', inFlightKey(queue.name), 'x']))).toBe(k);
    });

    it(`${mode}: a receive of max 1 behind a group whose every message was deleted takes the next ready group's head in the same call`, async () => {
      const queue = queueOf<string>({ groups });
      const sent = await queue.sendMany(['a/1', 'a/2', 'b/1', 'c/1'].map((payload) => ({ payload, groupId: payload[0]! })));
      await xdel(connection(), queue.name, [sent[0]!.id, sent[1]!.id]);
      const first = await queue.receive(60_000, { max: 1 });
      expect(first.map((m) => m.payload)).toEqual(['b/1']);
      expect((await queue.receive(60_000, { max: 1 })).map((m) => m.payload)).toEqual(['c/1']);
      expect(await queue.receive(60_000, { max: 1 })).toEqual([]);
    });

    it(`${mode}: a waiting receive behind a group whose every message was deleted gets the next ready group's head at once`, async () => {
      const queue = queueOf<string>({ groups });
      const sent = await queue.sendMany(['a/1', 'a/2', 'b/1'].map((payload) => ({ payload, groupId: payload[0]! })));
      await xdel(connection(), queue.name, [sent[0]!.id, sent[1]!.id]);
      const started = performance.now();
      const batch = await queue.receive(60_000, { max: 1, waitMs: 5_000 });
      expect(batch.map((m) => m.payload)).toEqual(['b/1']);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(await queue.ackMany(batch)).toEqual([true]);
      expect(await withoutWake(connection(), queue.name)).toEqual([groupedKeys(queue.name).stream]);
    });
  }

  for (const [mode, groups] of MODES) {
    const k = groups.groupConcurrency ?? 1;
    it(
      `${mode}: consumers in parallel with leases shorter than their work: the server never holds more than k of a group, each group's first deliveries in order`,
      { timeout: 30_000 },
      async () => {
        const queue = queueOf<string>({ groups, deliveryLimit: 1000 });
        const keys = groupedKeys(queue.name);
        const GROUP_IDS = ['p0', 'p1', 'p2', 'p3'];
        const PER_GROUP = 12;
        await queue.sendMany(GROUP_IDS.flatMap((groupId) => Array.from({ length: PER_GROUP }, (_, n) => ({ payload: `${groupId}/${n}`, groupId }))));
        const firstSeen = new Map<string, number[]>();
        const acked = new Set<string>();
        let refused = 0;
        let violation: string | undefined;
        const consumer = async (c: number): Promise<void> => {
          for (let round = 0; acked.size < GROUP_IDS.length * PER_GROUP && violation === undefined; round++) {
            if (round > 3000) throw new Error(`consumer ${c} did not finish`);
            const batch = await queue.receive(8, { max: 1 + ((round + c) % 3) });
            for (const [group, n] of await leasedPerGroup(connection(), queue.name)) if (n > k) violation = `${n} of ${group} in flight on the server`;
            if (batch.length === 0) {
              await new Promise((resolve) => setTimeout(resolve, 1));
              continue;
            }
            for (const m of batch) {
              const n = Number(m.payload.split('/')[1]);
              const seen = firstSeen.get(m.groupId!) ?? [];
              if (!seen.includes(n)) firstSeen.set(m.groupId!, [...seen, n]);
            }
            // Sometimes slower than the lease: its ACK is refused and the message comes again.
            await new Promise((resolve) => setTimeout(resolve, (round * 7 + c) % 12));
            const flags = await queue.ackMany(batch);
            batch.forEach((m, i) => {
              if (!flags[i]) {
                refused++;
                return;
              }
              if (acked.has(m.id)) violation = `${m.payload} acknowledged twice`;
              acked.add(m.id);
            });
          }
        };
        await Promise.all([0, 1, 2, 3].map(consumer));
        expect(violation).toBeUndefined();
        expect(acked.size).toBe(GROUP_IDS.length * PER_GROUP);
        // Work of 9 ms or more outlived its 8 ms lease: those ACKs were refused and the messages came again.
        expect(refused).toBeGreaterThan(0);
        for (const group of GROUP_IDS) {
          const order = firstSeen.get(group)!;
          expect([...order].sort((x, y) => x - y)).toEqual(Array.from({ length: PER_GROUP }, (_, n) => n));
          if (k === 1) expect(order).toEqual(Array.from({ length: PER_GROUP }, (_, n) => n));
        }
        expect(await deadLetters(connection(), keys.deadLetter)).toEqual([]);
        expect(await withoutWake(connection(), queue.name)).toEqual([keys.stream]);
      },
    );
  }

  // Twenty heads settled together, some of them deleted behind the queue's back, by an ACK and by a
  // receive that finds them due.
  for (const [mode, groups] of MODES.slice(0, 2)) {
    it(`${mode}: twenty heads settled at once, some deleted behind the queue's back, by ackMany and by a receive: each group moves on once`, async () => {
      const queue = queueOf<string>({ groups });
      const keys = groupedKeys(queue.name);
      const ids = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`);
      await queue.sendMany([1, 2, 3].flatMap((n) => ids.map((groupId) => ({ payload: `${groupId}/${n}`, groupId }))));
      // Ordered: the twenty heads; fair: the twenty first messages (each group then back on the ring).
      const first = await queue.receive(60_000, { max: 20 });
      expect(first.map((m) => m.payload)).toEqual(ids.map((g) => `${g}/1`));
      await xdel(
        connection(),
        queue.name,
        first.filter((_, i) => i % 4 === 0).map((m) => m.id),
      );
      expect(await queue.ackMany(first)).toEqual(first.map(() => true));
      // The next twenty, with short leases.
      const second = await queue.receive(20, { max: 20 });
      expect(second.map((m) => m.payload)).toEqual(ids.map((g) => `${g}/2`));
      // Every second message deleted while leased: the receive that finds them due settles all twenty.
      await xdel(
        connection(),
        queue.name,
        second.map((m) => m.id),
      );
      await untilServerPasses(connection(), queue.name, 25);
      const third: string[] = [];
      for (let round = 0; third.length < 20; round++) {
        expect(round).toBeLessThan(3);
        const batch = await queue.receive(60_000, { max: 20 });
        third.push(...batch.map((m) => m.payload));
        expect((await queue.ackMany(batch)).every(Boolean)).toBe(true);
      }
      // Settled by one receive with one deadline, the groups rejoin the ring in the deadlines index's
      // member order (by string, not by entry ID): each group once, in no promised order.
      expect([...third].sort()).toEqual(ids.map((g) => `${g}/3`));
      expect(await withoutWake(connection(), queue.name)).toEqual([keys.stream]);
    });
  }
});
