// A topic's publishManyWithResults: headers and deduplication per item, the queue's sendMany rules, on every target.
import { expect, it } from 'vitest';
import { ReliableTopic, utf8Codec, type QueueInstrumentation, type ReliableTopicOptions } from '@respire/queue';
import { describeOnTargets, targets, uniqueName } from './support.js';

describeOnTargets('ReliableTopic.publishManyWithResults', targets, (_target, connection) => {
  const topicOf = (options: Partial<ReliableTopicOptions<string>> = {}) =>
    new ReliableTopic<string>(connection().client, uniqueName(), { codec: utf8Codec, ...options });
  const xlen = async (topic: ReliableTopic<string>) => Number(await connection().raw(topic.streamKey, ['XLEN', topic.streamKey]));

  it('publishes items in order with their headers; every subscription gets them once, headers included', async () => {
    const topic = topicOf();
    const [a, b] = [topic.subscription('a', { start: 'earliest' }), topic.subscription('b', { start: 'earliest' })];
    await Promise.all([a.create(), b.create()]);
    expect(await topic.publishManyWithResults([])).toEqual([]);
    const results = await topic.publishManyWithResults([
      { payload: 'one', headers: { kind: 'x', raw: new Uint8Array([0, 255]) } },
      { payload: 'two' },
      { payload: 'three', headers: { kind: 'z' } },
    ]);
    expect(results.map((r) => r.duplicate)).toEqual([false, false, false]);
    expect(new Set(results.map((r) => r.id)).size).toBe(3);
    expect(await xlen(topic)).toBe(3);
    for (const subscription of [a, b]) {
      const messages = await subscription.receive(30_000, { max: 10 });
      expect(messages.map((m) => [m.id, m.payload, m.deliveryCount])).toEqual([
        [results[0]!.id, 'one', 1],
        [results[1]!.id, 'two', 1],
        [results[2]!.id, 'three', 1],
      ]);
      expect(String(messages[0]!.headers.kind)).toBe('x');
      expect([...(messages[0]!.headers.raw as Uint8Array)]).toEqual([0, 255]);
      expect(messages[1]!.headers).toEqual({});
      expect(String(messages[2]!.headers.kind)).toBe('z');
      expect(await subscription.ackMany(messages)).toEqual([true, true, true]);
    }
  });

  it('deduplicates per item as the queue does: within the window, across calls, with publish, and within one batch', async () => {
    const topic = topicOf();
    const sub = topic.subscription('s', { start: 'earliest' });
    await sub.create();
    const original = await topic.publish('p0', { deduplicationId: 'order-1' });
    const results = await topic.publishManyWithResults([
      { payload: 'p1', deduplicationId: 'order-1' },
      { payload: 'p2', deduplicationId: 'order-2' },
      { payload: 'p3' },
      { payload: 'p4', deduplicationId: 'order-2' },
      { payload: 'p5', deduplicationId: 'order-3', deduplicationWindowMs: 50 },
    ]);
    expect(results[0]).toEqual({ id: original, duplicate: true });
    expect(results[1]!.duplicate).toBe(false);
    expect(results[2]!.duplicate).toBe(false);
    expect(results[3]).toEqual({ id: results[1]!.id, duplicate: true });
    expect(results[4]!.duplicate).toBe(false);
    expect((await sub.receive(30_000, { max: 10 })).map((m) => m.payload)).toEqual(['p0', 'p2', 'p3', 'p5']);
    // A repeat of the batch appends only what has no ID, and what outlived its window.
    await new Promise((resolve) => setTimeout(resolve, 120));
    const again = await topic.publishManyWithResults([
      { payload: 'p2', deduplicationId: 'order-2' },
      { payload: 'p5', deduplicationId: 'order-3', deduplicationWindowMs: 50 },
    ]);
    expect(again[0]).toEqual({ id: results[1]!.id, duplicate: true });
    expect(again[1]!.duplicate).toBe(false);
    expect(again[1]!.id).not.toBe(results[4]!.id);
    // publish sees the batch's IDs too.
    expect(await topic.publishWithResult('p9', { deduplicationId: 'order-2' })).toEqual({ id: results[1]!.id, duplicate: true, trimmed: 0 });
    // An all-duplicate batch appends and trims nothing.
    const before = await xlen(topic);
    expect((await topic.publishManyWithResults([{ payload: 'x', deduplicationId: 'order-1' }])).map((r) => r.duplicate)).toEqual([true]);
    expect(await xlen(topic)).toBe(before);
  });

  it('applies retention after appending, never trimming the new publications; counts what a bound took', async () => {
    const topic = topicOf({ maxLength: 2 });
    const sub = topic.subscription('s', { start: 'earliest' });
    await sub.create();
    await topic.publishMany(['a', 'b']);
    const results = await topic.publishManyWithResults([{ payload: 'c', headers: { h: '1' } }, { payload: 'd' }, { payload: 'e', deduplicationId: 'e' }]);
    expect(await xlen(topic)).toBe(3);
    expect(await sub.trimmedCount()).toBe(2);
    expect((await sub.receive(30_000, { max: 10 })).map((m) => m.id)).toEqual(results.map((r) => r.id));
  });

  it('adds the instrumentation’s trace-context headers to every item, beside its own', async () => {
    const instrumentation: QueueInstrumentation = {
      startOperation: () => ({ messageHeaders: { traceparent: '00-abc-def-01' }, end: () => {} }),
    };
    const topic = topicOf({ instrumentation });
    const sub = topic.subscription('s', { start: 'earliest' });
    await sub.create();
    await topic.publishManyWithResults([{ payload: 'a', headers: { own: 'yes' } }, { payload: 'b' }]);
    await topic.publishMany(['c']);
    const messages = await sub.receive(30_000, { max: 10 });
    expect(messages.map((m) => [m.payload, String(m.headers.traceparent), m.headers.own === undefined ? null : String(m.headers.own)])).toEqual([
      ['a', '00-abc-def-01', 'yes'],
      ['b', '00-abc-def-01', null],
      ['c', '00-abc-def-01', null],
    ]);
  });
});
