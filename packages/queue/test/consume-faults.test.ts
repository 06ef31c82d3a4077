// consume() on the fake server: transient receive replies back off and retry; ACKs go out batched; a lost ACK reply is reported, not repeated.
import { createClient } from 'redis';
import { afterEach, expect, it } from 'vitest';
import { eventually } from '@respire/harness';
import { queueKeys, scripts } from '@respire/core-scripts/internal';
import { FakeRedisServer } from '@respire/testing';
import { ReliableQueue, utf8Codec, type QueueConsumer, type QueueConsumerLogger } from '@respire/queue';

const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

async function fakeQueue() {
  const server = await FakeRedisServer.start({ scripts: Object.values(scripts.allScripts).map((s) => ({ name: s.name, sha1: s.sha1 })) });
  const client = createClient({ url: server.url });
  client.on('error', () => {});
  await client.connect();
  opened.push(async () => {
    client.destroy();
    await server.close();
  });
  const queue = new ReliableQueue(client, 'orders', { codec: utf8Codec });
  return { server, client, queue, keys: queueKeys('orders', '') };
}

function recordingLogger(): QueueConsumerLogger & { lines: { level: string; message: string; context: unknown }[] } {
  const lines: { level: string; message: string; context: unknown }[] = [];
  return {
    lines,
    warn: (message, context) => void lines.push({ level: 'warn', message, context }),
    error: (message, context) => void lines.push({ level: 'error', message, context }),
  };
}

function started(consumer: QueueConsumer): QueueConsumer {
  opened.push(() => consumer.stop());
  return consumer;
}

it('backs off and retries receives answered with a transient reply, then handles the message', async () => {
  const { server, queue } = await fakeQueue();
  await queue.send('x');
  const fault = server.faults.inject({
    script: 'queue-receive',
    action: { type: 'error', message: 'LOADING Redis is loading the dataset in memory' },
    times: 3,
  });
  const logger = recordingLogger();
  const handled: string[] = [];
  started(queue.consume((message) => void handled.push(message.payload), { logger }));
  await eventually(() => handled.length === 1, 10_000, 10);
  expect(fault.hits).toBe(3);
  const retries = logger.lines.filter((line) => line.message.includes('receive failed'));
  expect(retries).toHaveLength(3);
  expect(retries.map((line) => (line.context as { delayMs: number }).delayMs)).toEqual([50, 100, 200]);
  expect(retries.every((line) => line.level === 'warn')).toBe(true);
});

it('does not repeat an ACK whose reply was lost: it reports the unknown outcome', async () => {
  const { server, client, queue, keys } = await fakeQueue();
  await queue.ack({ id: '1-0', receipt: `1.${'A'.repeat(16)}.1` }); // the script is loaded: the fault hits a real run
  const fault = server.faults.inject({ script: 'queue-ack', action: { type: 'lost-reply' } });
  await queue.send('x');
  const logger = recordingLogger();
  started(queue.consume(() => undefined, { logger }));
  await eventually(() => logger.lines.some((line) => line.message.includes('reply was lost')), 10_000, 10);
  expect(fault.hits).toBe(1);
  const lost = logger.lines.find((line) => line.message.includes('reply was lost'))!;
  expect(lost).toMatchObject({ level: 'warn', context: { action: 'ack', errorType: 'RespireTransportError', code: 'TRANSPORT_FAILED' } });
  // The ACK ran; a repeat would have answered false and been logged as a lease gone.
  await eventually(async () => (await client.xLen(keys.stream)) === 0, 5000, 10);
  expect(logger.lines.some((line) => line.message.includes('lease gone'))).toBe(false);
});

it('sends the ACKs of handlers that finish together as one ackMany', async () => {
  const { server, client, queue, keys } = await fakeQueue();
  await queue.ack({ id: '1-0', receipt: `1.${'A'.repeat(16)}.1` }); // the script is loaded: one call is one run
  await queue.sendMany(Array.from({ length: 20 }, (_, i) => ({ payload: `m${i}` })));
  const calls = server.faults.inject({ script: 'queue-ack', action: { type: 'latency', ms: 0 }, times: 'always' }); // counts the calls
  const handled: string[] = [];
  started(queue.consume((message) => void handled.push(message.payload), { concurrency: 20, logger: recordingLogger() }));
  await eventually(async () => (await client.xLen(keys.stream)) === 0, 10_000, 10);
  expect(handled).toHaveLength(20);
  expect(calls.hits).toBe(1);
});

it('reports a lost reply of a batched ACK for every message of the batch, and repeats none', async () => {
  const { server, client, queue, keys } = await fakeQueue();
  await queue.ack({ id: '1-0', receipt: `1.${'A'.repeat(16)}.1` }); // the script is loaded: the fault hits a real run
  await queue.sendMany([{ payload: 'a' }, { payload: 'b' }, { payload: 'c' }]);
  const fault = server.faults.inject({ script: 'queue-ack', action: { type: 'lost-reply' } });
  const logger = recordingLogger();
  started(queue.consume(() => undefined, { concurrency: 3, logger }));
  await eventually(() => logger.lines.filter((line) => line.message.includes('reply was lost')).length === 3, 10_000, 10);
  expect(fault.hits).toBe(1);
  const ids = logger.lines.filter((line) => line.message.includes('reply was lost')).map((line) => (line.context as { messageId: string }).messageId);
  expect(new Set(ids).size).toBe(3);
  await eventually(async () => (await client.xLen(keys.stream)) === 0, 5000, 10);
  expect(logger.lines.some((line) => line.message.includes('lease gone'))).toBe(false);
});
