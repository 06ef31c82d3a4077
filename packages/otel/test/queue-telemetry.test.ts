// The queue's metrics and spans on real Redis.
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ReliableQueue, ReliableTopic, utf8Codec } from '@respire/queue';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { QUEUE_DEAD_LETTERS, QUEUE_MESSAGES, QUEUE_OPERATION_DURATION, createQueueTelemetry, queueMessageContext } from '@respire/otel';
import { telemetrySdk } from './support.js';

describe('reliable-queue telemetry on real Redis', () => {
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    client = createClient({ url: inject('redisUrl') });
    await client.connect();
  });
  afterAll(() => client.destroy());

  it('spans and metrics for send, receive, ack, nack and dead-letter moves; no keys or IDs in metrics', async () => {
    const sdk = telemetrySdk();
    const name = `orders-${randomBytes(4).toString('hex')}`;
    const queue = new ReliableQueue(client, name, {
      codec: utf8Codec,
      deliveryLimit: 1,
      keyPrefix: 'tenant:',
      instrumentation: createQueueTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider, telemetryName: 'notifications' }),
    });
    const id = await queue.send('a', { deduplicationId: 'd' });
    await queue.send('a again', { deduplicationId: 'd' });
    await queue.send('b');
    const [a, b] = await queue.receive(30_000);
    expect(await queue.ack(a!)).toBe(true);
    expect(await queue.nack(b!, 0)).toBe(true);
    expect(await queue.receive(30_000)).toEqual([]);

    const spans = sdk.spans.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual([
      `${name} send`,
      `${name} send`,
      `${name} send`,
      `${name} receive`,
      `${name} ack`,
      `${name} nack`,
      `${name} receive`,
    ]);
    expect(spans[0]!.kind).toBe(SpanKind.PRODUCER);
    expect(spans[0]!.attributes).toMatchObject({
      'messaging.system': 'redis',
      'messaging.operation.type': 'send',
      'messaging.destination.name': name,
      'messaging.message.id': id,
    });
    expect(spans[4]!.attributes).toMatchObject({ 'messaging.operation.type': 'settle', 'messaging.message.id': a!.id });
    expect(spans[3]!.attributes['messaging.batch.message_count']).toBe(2);

    const messages = await sdk.points(QUEUE_MESSAGES);
    const byOperation = Object.fromEntries(messages.map((p) => [p.attributes['respire.queue.operation'], p.value]));
    expect(byOperation).toEqual({ send: 2, receive: 2, ack: 1, nack: 1 });
    for (const point of messages) expect(Object.keys(point.attributes).sort()).toEqual(['respire.queue.name', 'respire.queue.operation']);
    expect(await sdk.points(QUEUE_DEAD_LETTERS)).toEqual([expect.objectContaining({ value: 1, attributes: { 'respire.queue.name': 'notifications' } })]);
    const durations = await sdk.points(QUEUE_OPERATION_DURATION);
    expect(durations.every((p) => p.unit === 's' && p.attributes['respire.queue.outcome'] === 'ok')).toBe(true);
    await sdk.shutdown();
  });

  it('a topic: publish is a send on the topic, a subscription names itself on its spans and metrics, and trace context reaches every subscription', async () => {
    const sdk = telemetrySdk();
    const name = `events-${randomBytes(4).toString('hex')}`;
    const topic = new ReliableTopic(client, name, {
      codec: utf8Codec,
      deliveryLimit: 1,
      instrumentation: createQueueTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider, telemetryName: 'events' }),
    });
    const [billing, audit] = [topic.subscription('billing', { start: 'earliest' }), topic.subscription('audit', { start: 'earliest' })];
    await billing.create();
    await audit.create();
    const id = await topic.publish('a', { headers: { tenant: 't1' } });
    expect(await topic.publishMany(['b', 'c'])).toHaveLength(2);
    const fromBilling = await billing.receive(30_000);
    expect(await billing.ackMany(fromBilling)).toEqual([true, true, true]);
    const [first, ...rest] = await audit.receive(30_000);
    expect(await audit.extend(first!, 30_000)).toBe(true);
    expect(await audit.nackMany([first!, ...rest], 0)).toEqual([true, true, true]);
    // audit's delivery limit is one: the next receive moves all three to its dead letters.
    expect(await audit.receive(30_000)).toEqual([]);

    const spans = sdk.spans.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.attributes['messaging.consumer.group.name']])).toEqual([
      [`${name} send`, undefined],
      [`${name} send`, undefined],
      [`${name} receive`, 'billing'],
      [`${name} ack`, 'billing'],
      [`${name} receive`, 'audit'],
      [`${name} extend`, 'audit'],
      [`${name} nack`, 'audit'],
      [`${name} receive`, 'audit'],
    ]);
    expect(spans[0]!.attributes).toMatchObject({ 'messaging.destination.name': name, 'messaging.message.id': id });
    // The publish span's context travels in the publication's headers, beside its own, to each subscription.
    const published = trace.getSpanContext(queueMessageContext(fromBilling[0]!))!;
    expect(published.traceId).toBe(spans[0]!.spanContext().traceId);
    expect(published.spanId).toBe(spans[0]!.spanContext().spanId);
    expect(fromBilling[0]!.headers.tenant).toBe('t1');
    expect(trace.getSpanContext(queueMessageContext(first!))!.spanId).toBe(spans[0]!.spanContext().spanId);

    const points = await sdk.points(QUEUE_MESSAGES);
    const counted = Object.fromEntries(
      points.map((p) => [`${p.attributes['respire.queue.operation']}/${p.attributes['respire.queue.subscription'] ?? '-'}`, p.value]),
    );
    expect(counted).toEqual({ 'send/-': 3, 'receive/billing': 3, 'ack/billing': 3, 'receive/audit': 3, 'extend/audit': 1, 'nack/audit': 3 });
    expect(await sdk.points(QUEUE_DEAD_LETTERS)).toEqual([
      expect.objectContaining({ value: 3, attributes: { 'respire.queue.name': 'events', 'respire.queue.subscription': 'audit' } }),
    ]);
    await sdk.shutdown();
  });

  it('marks failed operations as errors and never changes their outcome', async () => {
    const sdk = telemetrySdk();
    const name = `orders-${randomBytes(4).toString('hex')}`;
    const queue = new ReliableQueue(client, name, {
      codec: utf8Codec,
      instrumentation: createQueueTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider }),
    });
    await client.set(queue.streamKey, 'occupied');
    await expect(queue.receive(1000, { max: 50 })).rejects.toMatchObject({ code: 'WRONG_TYPE' });
    const [span] = sdk.spans.getFinishedSpans();
    expect(span!.status.code).toBe(2);
    expect(span!.attributes['error.type']).toBe('RespireKeyTypeError');
    // Nothing was received: no batch size, and never the requested max.
    expect(span!.attributes).not.toHaveProperty('messaging.batch.message_count');
    const durations = await sdk.points(QUEUE_OPERATION_DURATION);
    expect(durations.map((p) => p.attributes['respire.queue.outcome'])).toEqual(['error']);
    await sdk.shutdown();
  });

  it('a receive reports the messages it received as its batch size: none when decoding failed, 0 for an empty batch', async () => {
    const sdk = telemetrySdk();
    const name = `orders-${randomBytes(4).toString('hex')}`;
    const instrumentation = createQueueTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider });
    const writer = new ReliableQueue(client, name, { codec: utf8Codec });
    await writer.send('not json');
    const reader = new ReliableQueue(client, name, {
      codec: { encode: (v: unknown) => JSON.stringify(v), decode: (b) => JSON.parse(b.toString()) as unknown },
      instrumentation,
    });
    await expect(reader.receive(30_000, { max: 10 })).rejects.toMatchObject({ code: 'CODEC_FAILED' });
    expect(await reader.receive(30_000, { max: 10 })).toEqual([]);
    const [failed, empty] = sdk.spans.getFinishedSpans();
    expect(failed!.attributes).not.toHaveProperty('messaging.batch.message_count');
    expect(failed!.attributes['error.type']).toBe('RespireCodecError');
    expect(empty!.attributes['messaging.batch.message_count']).toBe(0);
    await sdk.shutdown();
  });

  it("carries the send span's trace context to the consumer through the message's headers, keeping headers the message already has", async () => {
    const sdk = telemetrySdk();
    const name = `orders-${randomBytes(4).toString('hex')}`;
    const queue = new ReliableQueue(client, name, {
      codec: utf8Codec,
      instrumentation: createQueueTelemetry({ meterProvider: sdk.meterProvider, tracerProvider: sdk.tracerProvider }),
    });
    const own = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await queue.send('traced', { headers: { tenant: 'a' } });
    await queue.sendMany([{ payload: 'batch' }, { payload: 'own context', headers: { traceparent: own } }]);
    const full = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`h${i}`, 'v']));
    await queue.send('no room', { headers: full });
    const [traced, batch, ownContext, noRoom] = await queue.receive(30_000);
    const [sendSpan, sendManySpan] = sdk.spans.getFinishedSpans();

    const parent = trace.getSpanContext(queueMessageContext(traced!))!;
    expect(parent).toMatchObject({ traceId: sendSpan!.spanContext().traceId, spanId: sendSpan!.spanContext().spanId, isRemote: true });
    expect(traced!.headers.tenant).toBe('a');
    expect(trace.getSpanContext(queueMessageContext(batch!))).toMatchObject({ spanId: sendManySpan!.spanContext().spanId });
    expect(ownContext!.headers.traceparent).toBe(own);
    expect(Object.keys(noRoom!.headers)).toHaveLength(64);
    expect(noRoom!.headers).not.toHaveProperty('traceparent');
    await sdk.shutdown();
  });

  it('a missing, invalid or oversized trace context gives the root context, never the active span', () => {
    expect(queueMessageContext({ headers: {} })).toBe(ROOT_CONTEXT);
    expect(queueMessageContext({ headers: { traceparent: '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01' } })).toBe(ROOT_CONTEXT);
    expect(queueMessageContext({ headers: { traceparent: Buffer.from('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01') } })).toBe(ROOT_CONTEXT);
    const valid = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const oversized = queueMessageContext({ headers: { traceparent: valid, tracestate: `a=${'x'.repeat(600)}` } });
    expect(trace.getSpanContext(oversized)).toMatchObject({ spanId: 'b7ad6b7169203331' });
    expect(trace.getSpanContext(oversized)!.traceState).toBeUndefined();
  });

  it('rejects a bad telemetry name', () => {
    expect(() => createQueueTelemetry({ telemetryName: 'has space' })).toThrow(/telemetryName/);
  });
});
