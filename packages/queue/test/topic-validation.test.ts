// The topic's bad input fails before any I/O with a typed error.
import { describe, expect, it } from 'vitest';
import { keySlot, subscriptionKeys, topicKeys } from '@respire/core-scripts/internal';
import { ReliableTopic, isRespireError, utf8Codec, type Codec } from '@respire/queue';

/** A client that records every command: validation must fail before any of them. */
function recordingClient() {
  const sent: unknown[] = [];
  return {
    sent,
    client: {
      isOpen: true,
      sendCommand: async (args: unknown) => {
        sent.push(args);
        throw new Error('no I/O expected');
      },
    },
  };
}

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

function expectValidation(thrown: unknown, argument: string) {
  expect(isRespireError(thrown, 'INVALID_ARGUMENT'), String(thrown)).toBe(true);
  expect((thrown as { argument: string }).argument).toBe(argument);
}

describe('ReliableTopic: bad input fails before any I/O', () => {
  const { client, sent } = recordingClient();
  const topic = new ReliableTopic(client, 'orders', { codec: utf8Codec });
  const subscription = topic.subscription('billing');
  const message = { id: '1-0', receipt: `1.${'a'.repeat(16)}.1` };

  it.each([[''], ['  '], ['a{b'], ['a}b'], [42], ['\uD800']])('rejects the topic name %j', (name) => {
    expectValidation(
      thrownBy(() => new ReliableTopic(client, name as string, { codec: utf8Codec })),
      'name',
    );
  });

  it.each([[''], ['  '], ['a{b'], [7], ['\uDC00']])('rejects the subscription name %j', (name) => {
    expectValidation(
      thrownBy(() => topic.subscription(name as string)),
      'subscription',
    );
  });

  it('rejects bad topic options', () => {
    expectValidation(
      thrownBy(() => new ReliableTopic(client, 't', { codec: {} as Codec<string> })),
      'codec',
    );
    expectValidation(
      thrownBy(() => new ReliableTopic(client, 't', { codec: utf8Codec, deliveryLimit: 0 })),
      'deliveryLimit',
    );
    expectValidation(
      thrownBy(() => new ReliableTopic(client, 't', { codec: utf8Codec, maxAgeMs: 0 })),
      'maxAgeMs',
    );
    expectValidation(
      thrownBy(() => new ReliableTopic(client, 't', { codec: utf8Codec, maxLength: 1.5 })),
      'maxLength',
    );
    expectValidation(
      thrownBy(() => new ReliableTopic(client, 't', { codec: utf8Codec, keyPrefix: 3 as never })),
      'keyPrefix',
    );
    expectValidation(
      thrownBy(() => new ReliableTopic(client, 't', { codec: utf8Codec, retention: 'forever' } as never)),
      'options',
    );
    expectValidation(
      thrownBy(() => new ReliableTopic({} as never, 't', { codec: utf8Codec })),
      'client',
    );
  });

  it.each([
    [{ start: 'oldest' }, 'start'],
    [{ start: '1-x' }, 'start'],
    [{ start: { timeMs: -1 } }, 'start.timeMs'],
    [{ start: { timeMs: 1, extra: 2 } }, 'start'],
    [{ deliveryLimit: 2 ** 31 }, 'deliveryLimit'],
    [{ shared: true }, 'options'],
  ])('rejects the subscription options %j', (options, argument) => {
    expectValidation(
      thrownBy(() => topic.subscription('s', options as never)),
      argument,
    );
  });

  it('rejects bad publish, receive, ack, nack and trim arguments without sending anything', async () => {
    const rejected = async (run: () => Promise<unknown>, argument: string) => expectValidation(await run().catch((e: unknown) => e), argument);
    await rejected(() => topic.publish('x', { deduplicationId: '' }), 'deduplicationId');
    await rejected(() => topic.publish('x', { deduplicationId: 'a'.repeat(1025) }), 'deduplicationId');
    await rejected(() => topic.publish('x', { deduplicationId: 'a', deduplicationWindowMs: 0 }), 'deduplicationWindowMs');
    await rejected(() => topic.publish('x', { headers: [] as never }), 'headers');
    await rejected(() => topic.publish('x', { headers: { '': 'v' } }), 'headers');
    await rejected(() => topic.publish('x', { headers: { k: 7 as never } }), 'headers.k');
    await rejected(() => topic.publish('x', { headers: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`h${i}`, 'v'])) }), 'headers');
    await rejected(() => topic.publish('x', { headers: { big: 'v'.repeat(65_536) } }), 'headers');
    await rejected(() => topic.trim({ max: 1001 }), 'max');
    await rejected(() => topic.publishMany('x' as never), 'payloads');
    await rejected(() => topic.publishMany(Array.from({ length: 1001 }, () => 'x')), 'payloads');
    await rejected(() => topic.publishManyWithResults('x' as never), 'items');
    await rejected(() => topic.publishManyWithResults(Array.from({ length: 1001 }, () => ({ payload: 'x' }))), 'items');
    await rejected(() => topic.publishManyWithResults([{ payload: 'x' }, 'y' as never]), 'items[1]');
    await rejected(() => topic.publishManyWithResults([{ payload: 'x' }, {} as never]), 'items[1]');
    await rejected(() => topic.publishManyWithResults([{ payload: 'x', delayMs: 5 } as never]), 'items[0]');
    await rejected(() => topic.publishManyWithResults([{ payload: 'x' }, { payload: 'y', deduplicationId: '' }]), 'items[1].deduplicationId');
    await rejected(() => topic.publishManyWithResults([{ payload: 'x', deduplicationId: 'a', deduplicationWindowMs: 0 }]), 'items[0].deduplicationWindowMs');
    await rejected(() => topic.publishManyWithResults([{ payload: 'x', headers: { '': 'v' } }]), 'items[0].headers');
    await rejected(() => topic.publishManyWithResults([{ payload: 'x', headers: { k: 7 as never } }]), 'items[0].headers.k');
    await rejected(() => subscription.receive(0), 'visibilityTimeoutMs');
    await rejected(() => subscription.receive(1000, { max: 0 }), 'max');
    await rejected(() => subscription.receive(1000, { waitMs: 20_001 }), 'waitMs');
    await rejected(() => subscription.receive(1000, { waitMs: -1 }), 'waitMs');
    expect(() => subscription.consume('not a function' as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    await rejected(() => subscription.ack({ id: 'x', receipt: message.receipt }), 'message');
    await rejected(() => subscription.ackMany(Array.from({ length: 1001 }, () => message)), 'messages');
    await rejected(() => subscription.nack(message, -1), 'delayMs');
    expect(await subscription.ackMany([])).toEqual([]);
    expect(sent).toEqual([]);
  });
});

describe('ReliableTopic keys', () => {
  it('puts every key of a topic and its subscriptions under the topic hash tag, distinct by kind', () => {
    const topic = topicKeys('orders', 'app:');
    expect(topic.stream).toBe('app:{respire-topic:orders}:stream');
    const billing = subscriptionKeys(topic, 'billing');
    expect(billing).toEqual({
      group: 'billing',
      deadlines: 'app:{respire-topic:orders}:deadlines:billing',
      deadLetter: 'app:{respire-topic:orders}:dead-letter:billing',
      wake: 'app:{respire-topic:orders}:wake:billing',
      retried: 'app:{respire-topic:orders}:retried:billing',
    });
    const odd = subscriptionKeys(topic, 'x:dead-letter:billing');
    const keys = [
      topic.stream,
      topic.trimmed,
      `${topic.deduplicationPrefix}id`,
      billing.deadlines,
      billing.deadLetter,
      billing.wake,
      billing.retried,
      odd.deadlines,
      odd.deadLetter,
      odd.wake,
      odd.retried,
    ];
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(keySlot(key)).toBe(keySlot(topic.stream));
    expect(topicKeys('orders', '').stream).not.toBe(topicKeys('orders', 'app:').stream);
  });
});
