// The reliable topic (README "Reliable topic") on every target: publications, subscriptions on the lease engine, retention.
import { expect, it } from 'vitest';
import { subscriptionKeys, topicKeys } from '@respire/core-scripts/internal';
import { ReliableTopic, isRespireError, utf8Codec, type ReliableTopicOptions, type TopicSubscription } from '@respire/queue';
import { describeOnTargets, eventually, nextServerMillisecond, serverTimeMs, targets, uniqueName, type Connection } from './support.js';

/** Waits until every member of the subscription's deadlines index is due on the server clock. */
async function untilAllDue(conn: Connection, topic: string, subscription: string): Promise<void> {
  const deadlines = topicKeys(topic, '').deadlinesPrefix + subscription;
  const top = (await conn.raw(deadlines, ['ZRANGE', deadlines, '-1', '-1', 'WITHSCORES'])) as unknown[];
  if (top.length === 0) return;
  const score = Number(Array.isArray(top[0]) ? (top[0] as unknown[])[1] : top[1]);
  await eventually(async () => (await serverTimeMs(conn, deadlines)) >= score, 10_000, 5);
}

describeOnTargets('ReliableTopic', targets, (target, connection) => {
  const topicOf = (options: Partial<ReliableTopicOptions<string>> = {}, name = uniqueName()) =>
    new ReliableTopic<string>(connection().client, name, { codec: utf8Codec, ...options });
  const xlen = (topic: ReliableTopic<string>) => connection().raw(topic.streamKey, ['XLEN', topic.streamKey]);
  const created = async (topic: ReliableTopic<string>, name: string, start: 'earliest' | 'latest' = 'earliest', deliveryLimit?: number) => {
    const subscription = topic.subscription(name, deliveryLimit === undefined ? { start } : { start, deliveryLimit });
    expect(await subscription.create()).toBe(true);
    return subscription;
  };
  const drain = async (subscription: TopicSubscription<string>, batch: number, seen: string[]) => {
    const messages = await subscription.receive(30_000, { max: batch });
    seen.push(...messages.map((m) => m.payload));
    expect(await subscription.ackMany(messages)).toEqual(messages.map(() => true));
    return messages.length;
  };

  it('gives every subscription every publication, at its own pace, from one stored copy each', async () => {
    const topic = topicOf();
    const [fast, medium, slow] = [await created(topic, 'fast'), await created(topic, 'medium'), await created(topic, 'slow')];
    const sent: string[] = [];
    for (let i = 0; i < 12; i++) sent.push(`p${i}`);
    const seen = { fast: [] as string[], medium: [] as string[], slow: [] as string[] };
    for (const [i, payload] of sent.entries()) {
      await topic.publish(payload);
      await drain(fast, 10, seen.fast);
      if (i % 3 === 2) await drain(medium, 2, seen.medium);
    }
    // One entry per publication, whatever the number of subscriptions; the slow one holds them all.
    expect(await xlen(topic)).toBe(12);
    while ((await drain(medium, 2, seen.medium)) > 0);
    while ((await drain(slow, 5, seen.slow)) > 0);
    expect(seen.fast).toEqual(sent);
    expect(seen.medium).toEqual(sent);
    expect(seen.slow).toEqual(sent);
  });

  it('keeps a subscription position across instances (the group is the position); create is idempotent', async () => {
    const name = uniqueName();
    const topic = topicOf({}, name);
    const first = await created(topic, 'billing');
    for (const p of ['a', 'b', 'c']) await topic.publish(p);
    const [a] = await first.receive(30_000, { max: 1 });
    expect(await first.ack(a!)).toBe(true);
    // A restart: a new topic and subscription object, create() again (a no-op that keeps the position).
    const again = topicOf({}, name).subscription('billing', { start: 'earliest' });
    expect(await again.create()).toBe(false);
    expect((await again.receive(30_000)).map((m) => m.payload)).toEqual(['b', 'c']);
  });

  it('a subscriber that dies holding leases: after the visibility timeout another process gets them again; the others are untouched', async () => {
    const name = uniqueName();
    const topic = topicOf({}, name);
    const [steady, crashing] = [await created(topic, 'steady'), await created(topic, 'crashing')];
    for (const p of ['a', 'b']) await topic.publish(p);
    // The crashing process leases both and never completes them; its instance is gone with it.
    // Long enough that the checks below run before it expires on a loaded machine.
    expect((await crashing.receive(1_000)).map((m) => m.payload)).toEqual(['a', 'b']);
    expect((await drain(steady, 10, [])) as number).toBe(2);
    // A restarted process: new topic and subscription objects for the same names.
    const restarted = topicOf({}, name).subscription('crashing');
    expect(await restarted.receive(30_000)).toEqual([]);
    await untilAllDue(connection(), name, 'crashing');
    const again = await restarted.receive(30_000);
    expect(again.map((m) => [m.payload, m.deliveryCount])).toEqual([
      ['a', 2],
      ['b', 2],
    ]);
    expect(await restarted.ackMany(again)).toEqual([true, true]);
    expect(await topic.trim()).toBe(2);
    expect(await steady.receive(30_000)).toEqual([]);
  });

  it("starts at 'earliest', 'latest', after an entry ID, or at a server time; 'earliest' means what is retained", async () => {
    const topic = topicOf();
    const id1 = await topic.publish('one');
    await nextServerMillisecond(connection(), topic.streamKey);
    const time2 = Math.floor(await serverTimeMs(connection(), topic.streamKey));
    await topic.publish('two');
    // With no subscription, nothing is trimmed for acknowledgement: these start before 'three'.
    const earliest = await created(topic, 'earliest');
    const afterId = topic.subscription('after-id', { start: id1 });
    const atTime = topic.subscription('at-time', { start: { timeMs: time2 } });
    expect(await afterId.create()).toBe(true);
    expect(await atTime.create()).toBe(true);
    const latest = await created(topic, 'latest', 'latest');
    await topic.publish('three');
    const payloads = async (s: TopicSubscription<string>) => {
      const messages = await s.receive(30_000);
      await s.ackMany(messages);
      return messages.map((m) => m.payload);
    };
    expect(await payloads(earliest)).toEqual(['one', 'two', 'three']);
    expect(await payloads(latest)).toEqual(['three']);
    expect(await payloads(afterId)).toEqual(['two', 'three']);
    expect(await payloads(atTime)).toEqual(['two', 'three']);
    // Everything is complete for every subscription: a later 'earliest' gets only what is retained.
    await topic.publish('four');
    const late = await created(topic, 'late');
    expect(await payloads(late)).toEqual(['four']);
  });

  it('refuses a receive on a subscription never created, with a typed error, and changes nothing', async () => {
    const topic = topicOf();
    await topic.publish('x');
    const error = await topic
      .subscription('never-created')
      .receive(30_000)
      .catch((e: unknown) => e);
    expect(isRespireError(error, 'INVALID_STATE'), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/never-created.*create it first/);
    const groups = (await connection().raw(topic.streamKey, ['XINFO', 'GROUPS', topic.streamKey])) as unknown[];
    expect(groups).toEqual([]);
  });

  it('a receipt of one subscription never completes or releases another subscription’s delivery of the same publication', async () => {
    const topic = topicOf();
    const [a, b] = [await created(topic, 'a'), await created(topic, 'b')];
    const id = await topic.publish('shared');
    const [fromA] = await a.receive(30_000);
    const [fromB] = await b.receive(30_000);
    expect(fromA!.id).toBe(id);
    expect(fromB!.id).toBe(id);
    expect(await b.ack(fromA!)).toBe(false);
    expect(await b.nack(fromA!)).toBe(false);
    expect(await a.ack(fromB!)).toBe(false);
    // Each still holds its own lease.
    expect(await b.receive(30_000)).toEqual([]);
    expect(await a.ack(fromA!)).toBe(true);
    expect(await b.ack(fromB!)).toBe(true);
  });

  it('extend keeps a lease past its first deadline, with its receipt; another subscription’s receipt extends nothing', async () => {
    const name = uniqueName();
    const topic = topicOf({}, name);
    const [a, b] = [await created(topic, 'a'), await created(topic, 'b')];
    await topic.publish('long job');
    const before = await serverTimeMs(connection(), topic.streamKey);
    // Long enough that a loaded machine still extends it in time.
    const [fromA] = await a.receive(1_000);
    const [fromB] = await b.receive(30_000);
    expect(await a.extend(fromA!, 30_000)).toBe(true);
    expect(await a.extend(fromB!, 30_000)).toBe(false);
    // Past the first deadline it is still held, and its receipt still completes it.
    await eventually(async () => (await serverTimeMs(connection(), topic.streamKey)) > before + 1_001, 10_000, 5);
    expect(await a.receive(30_000)).toEqual([]);
    expect(await a.ack(fromA!)).toBe(true);
    expect(await b.ack(fromB!)).toBe(true);
  });

  it('redelivers after a nack or an expired lease, and dead-letters per subscription at its own delivery limit', async () => {
    const topic = topicOf();
    const strict = await created(topic, 'strict', 'earliest', 1);
    const patient = await created(topic, 'patient', 'earliest', 3);
    const id = await topic.publish('poison');
    const [first] = await strict.receive(30_000);
    expect(await strict.nack(first!)).toBe(true);
    const [p1] = await patient.receive(50);
    await untilAllDue(connection(), topic.name, 'patient');
    const [p2] = await patient.receive(30_000);
    expect(p2).toMatchObject({ id, deliveryCount: 2 });
    expect(await patient.ack(p1!)).toBe(false);
    // strict is exhausted: the next receive moves it to strict's dead-letter stream only.
    expect(await strict.receive(30_000)).toEqual([]);
    const dead = (await connection().raw(strict.deadLetterStreamKey, ['XRANGE', strict.deadLetterStreamKey, '-', '+'])) as [string, string[]][];
    expect(dead).toHaveLength(1);
    expect(dead[0]![1].map(String)).toEqual(['payload', 'poison', 'source_id', id, 'delivery_count', '1']);
    expect(await connection().raw(patient.deadLetterStreamKey, ['EXISTS', patient.deadLetterStreamKey])).toBe(0);
    expect(await patient.ack(p2!)).toBe(true);
    // Completed by both (acknowledged, dead-lettered): retention releases it.
    expect(await topic.trim()).toBe(1);
    expect(await xlen(topic)).toBe(0);
  });

  it('retention: a slow subscription holds publications; acknowledgement by all releases them', async () => {
    const topic = topicOf();
    const [fast, slow] = [await created(topic, 'fast'), await created(topic, 'slow')];
    for (let i = 0; i < 5; i++) await topic.publish(`p${i}`);
    await drain(fast, 10, []);
    expect(await topic.trim()).toBe(0);
    expect(await xlen(topic)).toBe(5);
    // The slow one leases 3 and acknowledges only the first two: the third (pending) holds the rest.
    const leased = await slow.receive(30_000, { max: 3 });
    expect(await slow.ackMany(leased.slice(0, 2))).toEqual([true, true]);
    expect(await topic.trim()).toBe(2);
    expect(await xlen(topic)).toBe(3);
    expect(await slow.ack(leased[2]!)).toBe(true);
    // Everything delivered to both is complete; publish trims as it goes (the new one stays: no one had it).
    const result = await topic.publishWithResult('p5');
    expect(result.trimmed).toBe(1);
    expect(await xlen(topic)).toBe(3);
    await drain(slow, 10, []);
    await drain(fast, 10, []);
    expect(await topic.trim({ max: 2 })).toBe(2);
    expect(await topic.trim({ max: 2 })).toBe(1);
    expect(await xlen(topic)).toBe(0);
    expect(await slow.trimmedCount()).toBe(0);
  });

  it('retention bounds trim what a subscription had not completed, and count it per subscription', async () => {
    const name = uniqueName();
    const topic = topicOf({ maxLength: 2 }, name);
    const [reader, idle] = [await created(topic, 'reader'), await created(topic, 'idle')];
    await topic.publish('p0');
    // reader leases p0 briefly; then the bound trims it (and p1, p2) before reader completes it.
    const [leased] = await reader.receive(50);
    for (const p of ['p1', 'p2', 'p3', 'p4']) await topic.publish(p);
    expect(await xlen(topic)).toBe(2);
    // idle was delivered none of the 3: counted at the trim. reader had p1, p2 undelivered.
    expect(await idle.trimmedCount()).toBe(3);
    expect(await reader.trimmedCount()).toBe(2);
    // The receive that finds reader's leased p0 gone settles it and counts it.
    await untilAllDue(connection(), name, 'reader');
    expect(await reader.ack(leased!)).toBe(false);
    expect((await reader.receive(30_000)).map((m) => m.payload)).toEqual(['p3', 'p4']);
    expect(await reader.trimmedCount()).toBe(3);
    expect((await idle.receive(30_000)).map((m) => m.payload)).toEqual(['p3', 'p4']);
  });

  it('retention by age trims old publications and counts them', async () => {
    const topic = topicOf({ maxAgeMs: 1 });
    const subscription = await created(topic, 's');
    const oldMs = Number((await topic.publish('old')).split('-')[0]);
    // Older than 1 ms by its entry ID's time on the server clock.
    await eventually(async () => Math.floor(await serverTimeMs(connection(), topic.streamKey)) > oldMs + 1, 10_000, 1);
    await topic.publish('new');
    expect(await xlen(topic)).toBe(1);
    expect(await subscription.trimmedCount()).toBe(1);
    expect((await subscription.receive(30_000)).map((m) => m.payload)).toEqual(['new']);
  });

  it('remove() deletes the subscription’s state and releases what it held', async () => {
    const topic = topicOf();
    const [keep, gone] = [await created(topic, 'keep'), await created(topic, 'gone')];
    for (const p of ['a', 'b']) await topic.publish(p);
    await drain(keep, 10, []);
    const [held] = await gone.receive(30_000);
    expect(await topic.trim()).toBe(0);
    expect(await gone.remove()).toBe(true);
    expect(await gone.remove()).toBe(false);
    expect(await gone.ack(held!)).toBe(false);
    const deadlines = topicKeys(topic.name, '').deadlinesPrefix + 'gone';
    expect(await connection().raw(deadlines, ['EXISTS', deadlines])).toBe(0);
    expect(await topic.trim()).toBe(2);
    const error = await gone.receive(30_000).catch((e: unknown) => e);
    expect(isRespireError(error, 'INVALID_STATE')).toBe(true);
  });

  it('seek replays retained publications or skips ahead; leases are discarded and their receipts go stale', async () => {
    const topic = topicOf();
    const [replay, other] = [await created(topic, 'replay'), await created(topic, 'other')];
    const ids: string[] = [];
    for (const p of ['a', 'b', 'c']) ids.push(await topic.publish(p));
    await drain(replay, 2, []);
    const [leased] = await replay.receive(30_000, { max: 1 });
    expect(leased!.payload).toBe('c');
    // Back to after 'a': 'b' and 'c' again, counting from 1; the lease on 'c' is gone.
    expect(await replay.seek(ids[0]!)).toEqual({ position: ids[0], discarded: 1 });
    expect(await replay.ack(leased!)).toBe(false);
    const again = await replay.receive(30_000);
    expect(again.map((m) => [m.payload, m.deliveryCount])).toEqual([
      ['b', 1],
      ['c', 1],
    ]);
    expect(await replay.ackMany(again)).toEqual([true, true]);
    // Skipping ahead releases what it skipped: 'other' alone holds a, b, c until it skips too.
    expect(await topic.trim()).toBe(0);
    expect(await other.seek('latest')).toEqual({ position: ids[2], discarded: 0 });
    expect(await topic.trim()).toBe(3);
    expect(await other.receive(30_000)).toEqual([]);
    const missing = await topic
      .subscription('missing')
      .seek('earliest')
      .catch((e: unknown) => e);
    expect(isRespireError(missing, 'INVALID_STATE')).toBe(true);
  });

  it('publishMany appends every payload in order in one step, and applies retention', async () => {
    const topic = topicOf({ maxLength: 3 });
    const subscription = await created(topic, 's');
    expect(await topic.publishMany([])).toEqual([]);
    const first = await topic.publishMany(['a', 'b']);
    expect(first).toHaveLength(2);
    const second = await topic.publishMany(['c', 'd', 'e']);
    expect(second).toHaveLength(3);
    // a and b go to the bound (never delivered: counted); the three new ones stay.
    expect(await xlen(topic)).toBe(3);
    expect(await subscription.trimmedCount()).toBe(2);
    const messages = await subscription.receive(30_000);
    expect(messages.map((m) => [m.id, m.payload])).toEqual([
      [second[0], 'c'],
      [second[1], 'd'],
      [second[2], 'e'],
    ]);
  });

  it('lists its subscriptions with position, pending, lag, dead letters and trimmed count', async () => {
    const topic = topicOf({ maxLength: 3 });
    expect(await topic.subscriptions()).toEqual([]);
    const [busy, idle] = [await created(topic, 'busy', 'earliest', 1), await created(topic, 'idle')];
    const ids = await topic.publishMany(['a', 'b', 'c']);
    const [a, b] = await busy.receive(30_000, { max: 2 });
    expect(await busy.ack(a!)).toBe(true);
    expect(await busy.nack(b!)).toBe(true);
    expect(await busy.receive(30_000, { max: 1 })).toHaveLength(1); // b dead-lettered, c leased
    await topic.publishMany(['d', 'e']);
    const list = await topic.subscriptions();
    expect(list.map((s) => s.name).sort()).toEqual(['busy', 'idle']);
    const byName = new Map(list.map((s) => [s.name, s]));
    expect(byName.get('busy')).toMatchObject({ lastDeliveredId: ids[2], pending: 1, deadLetters: 1, trimmed: 0 });
    expect(byName.get('idle')).toMatchObject({ lastDeliveredId: '0-0', pending: 0, deadLetters: 0, trimmed: 2 });
    await idle.remove();
    expect((await topic.subscriptions()).map((s) => s.name)).toEqual(['busy']);
  });

  it('deduplicates publications within the window, as the queue does', async () => {
    const topic = topicOf();
    const subscription = await created(topic, 's');
    const first = await topic.publishWithResult('a', { deduplicationId: 'order-1' });
    const again = await topic.publishWithResult('b', { deduplicationId: 'order-1' });
    expect(again).toEqual({ id: first.id, duplicate: true, trimmed: 0 });
    expect(first.duplicate).toBe(false);
    expect((await subscription.receive(30_000)).map((m) => m.payload)).toEqual(['a']);
  });

  it('hands a publication’s headers to every subscription, through redelivery and into each one’s dead letters', async () => {
    const topic = topicOf();
    const [strict, patient] = [await created(topic, 'strict', 'earliest', 1), await created(topic, 'patient', 'earliest', 3)];
    const bytes = Buffer.from([0, 255, 10]);
    const id = await topic.publish('with', { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', raw: bytes } });
    await topic.publish('without');
    // One stored entry: the payload, then the headers field (a queue entry's format).
    const [entry] = (await connection().raw(topic.streamKey, ['XRANGE', topic.streamKey, id, id])) as [string, Buffer[]][];
    expect(entry![1].map(String).filter((_, i) => i % 2 === 0)).toEqual(['payload', 'headers']);
    const expected = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', raw: bytes };
    const first = await patient.receive(30_000);
    expect(first.map((m) => [m.payload, m.headers])).toEqual([
      ['with', expected],
      ['without', {}],
    ]);
    expect(await patient.nackMany(first)).toEqual([true, true]);
    expect((await patient.receive(30_000)).map((m) => [m.payload, m.deliveryCount, m.headers])).toEqual([
      ['with', 2, expected],
      ['without', 2, {}],
    ]);
    // strict dead-letters at its limit of one: the record keeps the headers.
    expect(await strict.nackMany(await strict.receive(30_000))).toEqual([true, true]);
    expect(await strict.receive(30_000)).toEqual([]);
    const dead = (await connection().raw(strict.deadLetterStreamKey, ['XRANGE', strict.deadLetterStreamKey, '-', '+'])) as [string, Buffer[]][];
    expect(dead.map(([, fields]) => fields.map(String).filter((_, i) => i % 2 === 0))).toEqual([
      ['payload', 'source_id', 'delivery_count', 'headers'],
      ['payload', 'source_id', 'delivery_count'],
    ]);
    // A duplicate publication keeps the original's headers.
    const again = await topic.publishWithResult('dup', { deduplicationId: 'd', headers: { k: 'first' } });
    expect(await topic.publishWithResult('dup', { deduplicationId: 'd', headers: { k: 'second' } })).toMatchObject({ id: again.id, duplicate: true });
    const fresh = await created(topic, 'fresh');
    expect((await fresh.receive(30_000)).map((m) => m.headers)).toEqual([expected, {}, { k: 'first' }]);
  });

  it('a waiting receive wakes on a publication from another client and when a NACK delay passes; returns empty at waitMs', async () => {
    const topic = topicOf();
    const subscription = await created(topic, 'waiting');
    const other = topicOf({}, topic.name);
    const started = performance.now();
    const [woken] = await Promise.all([
      subscription.receive(30_000, { waitMs: 10_000 }),
      new Promise((r) => setTimeout(r, 100)).then(() => other.publish('late')),
    ]);
    expect(woken.map((m) => m.payload)).toEqual(['late']);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await subscription.nack(woken[0]!, 300)).toBe(true);
    const again = await subscription.receive(30_000, { waitMs: 10_000 });
    expect(again.map((m) => [m.payload, m.deliveryCount])).toEqual([['late', 2]]);
    expect(await subscription.ack(again[0]!)).toBe(true);
    const idle = performance.now();
    expect(await subscription.receive(30_000, { waitMs: 200 })).toEqual([]);
    expect(performance.now() - idle).toBeGreaterThanOrEqual(190);
  });

  it("a waiting receive wakes when another client NACKs the subscription's delivery: at once for delay 0, at the delay otherwise", async () => {
    const topic = topicOf();
    const subscription = await created(topic, 'woken');
    const other = await target.connect();
    try {
      const holder = new ReliableTopic<string>(other.client, topic.name, { codec: utf8Codec }).subscription('woken');
      await topic.publish('held');
      for (const [delayMs, count] of [
        [0, 2],
        [700, 4],
      ] as const) {
        const [held] = await holder.receive(60_000);
        const waiting = subscription.receive(30_000, { waitMs: 10_000 });
        // Let the receiver reach its block: its bound is the lease's deadline (60 s) or waitMs (10 s).
        await new Promise((resolve) => setTimeout(resolve, 300));
        const nackedAt = performance.now();
        expect(await holder.nack(held!, delayMs)).toBe(true);
        const batch = await waiting;
        const elapsed = performance.now() - nackedAt;
        expect(batch.map((m) => [m.payload, m.deliveryCount])).toEqual([['held', count]]);
        expect(elapsed).toBeGreaterThanOrEqual(delayMs * 0.85);
        expect(elapsed).toBeLessThan(delayMs + 2500);
        expect(await subscription.nack(batch[0]!, 0)).toBe(true);
      }
      // The wake stream holds one entry at most, and remove() deletes it with the subscription.
      const { wake } = subscriptionKeys(topicKeys(topic.name, ''), 'woken');
      expect(await connection().raw(wake, ['XLEN', wake])).toBe(1);
      expect(await subscription.remove()).toBe(true);
      expect(await connection().raw(wake, ['EXISTS', wake])).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('consume() handles every publication of its subscription, independently of the others', async () => {
    const topic = topicOf();
    const [a, b] = [await created(topic, 'a'), await created(topic, 'b')];
    const seen = { a: [] as string[], b: [] as string[] };
    const consumers = [a.consume((m) => void seen.a.push(m.payload), { concurrency: 4 }), b.consume((m) => void seen.b.push(m.payload), { concurrency: 1 })];
    const sent = Array.from({ length: 20 }, (_, i) => `p${i}`);
    await topic.publishMany(sent.slice(0, 10));
    for (const p of sent.slice(10)) await topic.publish(p);
    await eventually(async () => seen.a.length === 20 && seen.b.length === 20 && (await topic.subscriptions()).every((s) => s.pending === 0), 15_000, 20);
    await Promise.all(consumers.map((c) => c.stop()));
    expect([...seen.a].sort()).toEqual([...sent].sort());
    expect(seen.b).toEqual(sent); // concurrency 1: in publication order
    // Completed by both: retention (each publish's, then this trim) releases every publication.
    await topic.trim();
    expect(await xlen(topic)).toBe(0);
  });

  it('refuses a key of another type, changing nothing', async () => {
    const topic = topicOf();
    const { trimmed } = topicKeys(topic.name, '');
    await connection().raw(trimmed, ['SET', trimmed, 'x']);
    const error = await topic.publish('x').catch((e: unknown) => e);
    expect(isRespireError(error, 'WRONG_TYPE'), String(error)).toBe(true);
    expect(await connection().raw(topic.streamKey, ['EXISTS', topic.streamKey])).toBe(0);
  });
});
