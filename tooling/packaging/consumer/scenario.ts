// A user's service in miniature, compiled by the packed-consumer test in three TypeScript set-ups
// (ESM `module: nodenext`, CommonJS `module: nodenext`, NestJS-style `module: commonjs` +
// `moduleResolution: node`), strict and with `skipLibCheck: false`, then run against a private
// Redis (`REDIS_URL`): a queue send/receive/ack, a typed error, a StreamWorker round trip, the
// telemetry hooks and a FakeRedisServer, all from the installed tarballs.
import { createClient } from 'redis';
import { ReliableQueue, RespireValidationError, isRespireError, jsonCodec, type ReceivedMessage } from '@respire/queue';
import { StreamProducer, StreamWorker, StreamWorkerResult, type StreamEntry } from '@respire/worker';
import { createQueueTelemetry, createStreamWorkerTelemetry } from '@respire/otel';
import { FakeRedisServer } from '@respire/testing';

interface Order {
  id: string;
  total: number;
}

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`consumer check failed: ${what}`);
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`consumer check failed: ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function main(label: string): Promise<void> {
  const url = process.env.REDIS_URL;
  check(url, 'REDIS_URL is set');
  const client = await createClient({ url }).connect();
  try {
    // The queue: send, receive, ack.
    const queue = new ReliableQueue<Order>(client, `${label}:orders`, {
      codec: jsonCodec<Order>(),
      instrumentation: createQueueTelemetry({ telemetryName: label }),
    });
    const sent = await queue.send({ id: 'o-1', total: 42 });
    const received: ReceivedMessage<Order>[] = await queue.receive(30_000, { max: 10 });
    check(received.length === 1 && received[0]?.id === sent, 'receive returns the sent message');
    check(received[0].payload.total === 42 && received[0].deliveryCount === 1, 'payload and delivery count');
    check((await queue.ack(received[0])) === true, 'ack succeeds');
    check((await queue.receive(30_000)).length === 0, 'nothing left after ack');

    // A typed error, checked as the READMEs say (and with instanceof within one copy).
    try {
      new ReliableQueue(client, '', { codec: jsonCodec() });
      check(false, 'a blank queue name is refused');
    } catch (error) {
      check(isRespireError(error, 'INVALID_ARGUMENT') && error instanceof RespireValidationError, 'a typed validation error');
    }

    // A StreamWorker round trip.
    const stream = `{${label}}:events`;
    const producer = new StreamProducer<Order>({
      client,
      stream,
      serialize: (order) => ({ 'order-id': order.id, total: String(order.total) }),
    });
    let handled!: (entry: StreamEntry) => void;
    const seen = new Promise<StreamEntry>((resolve) => (handled = resolve));
    const worker = new StreamWorker({
      client,
      stream,
      group: 'fulfillment',
      readWaitMs: 200,
      instrumentation: createStreamWorkerTelemetry(),
      handler: async (entry) => {
        handled(entry);
        return StreamWorkerResult.Ack;
      },
    });
    await worker.start();
    const id = await producer.add({ id: 'o-2', total: 7 });
    const entry = await within(seen, 10_000, 'the worker handles the entry');
    check(entry.id === id && entry.getString('order-id') === 'o-2', 'the handled entry');
    await worker.stop();
    const pending = await client.xPending(stream, 'fulfillment');
    check(pending.pending === 0, 'the entry was acknowledged');

    // The fake server, with the real scripts in its Lua VM.
    const fake = await FakeRedisServer.start({ clock: { mode: 'virtual' } });
    const fakeClient = await createClient({ url: fake.url }).connect();
    try {
      const onFake = new ReliableQueue(fakeClient, 'orders', { codec: jsonCodec<Order>() });
      await onFake.send({ id: 'o-3', total: 1 });
      const [first] = await onFake.receive(30_000);
      fake.clock.advance(30_000);
      const [again] = await onFake.receive(30_000);
      check(first !== undefined && again?.deliveryCount === 2, 'the fake redelivers after the lease');
      check(await onFake.ack(again), 'ack on the fake');
    } finally {
      fakeClient.destroy();
      await fake.close();
    }
  } finally {
    client.destroy();
  }
  console.log(`${label}: send/receive/ack, typed error, StreamWorker round trip, telemetry hooks, fake server: ok`);
}

main(process.argv[2] ?? 'consumer').catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
