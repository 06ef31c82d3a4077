// The waiting receive on an idle queue: how soon a consumer's handler sees a send, and what idle waiters cost the server.
import { randomBytes } from 'node:crypto';
import { ReliableQueue, utf8Codec, type QueueConsumer } from '@respire/queue';
import { connect } from '../clients.js';
import { delta, percentile, sampleServer } from '../server-stats.js';

const quietLogger = { warn: () => {}, error: () => {} };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface WakeLatency {
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/**
 * One consume() consumer blocked on an idle queue; another connection sends one message every
 * `gapMs` (the consumer is blocked again by then): ms from the send call to the handler's call.
 */
export async function wakeLatency(url: string, samples: number, gapMs: number): Promise<WakeLatency> {
  const consumerClient = await connect(url, 'timeout-0');
  const producerClient = await connect(url, 'timeout-0');
  const name = `bench-wake-${randomBytes(4).toString('hex')}`;
  const producer = new ReliableQueue(producerClient, name, { codec: utf8Codec });
  let arrived: ((at: number) => void) | undefined;
  const consumer = new ReliableQueue(consumerClient, name, { codec: utf8Codec }).consume(() => arrived?.(performance.now()), { logger: quietLogger });
  const latencies: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      await pause(gapMs);
      const handled = new Promise<number>((resolve) => (arrived = resolve));
      const sentAt = performance.now();
      await producer.send(String(i));
      latencies.push((await handled) - sentAt);
    }
  } finally {
    await consumer.stop();
    await producerClient.sendCommand(['DEL', producer.streamKey]);
    consumerClient.destroy();
    producerClient.destroy();
  }
  latencies.sort((a, b) => a - b);
  return { samples, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), maxMs: latencies[latencies.length - 1]! };
}

export interface IdleCost {
  readonly waiters: number;
  readonly seconds: number;
  /** Every command the server ran (scripts' inner commands included), per second per waiter. */
  readonly commandsPerSecondPerWaiter: number;
  /** Commands sent by the waiters themselves (EVALSHA, EVAL, XREAD), per second per waiter. */
  readonly sentPerSecondPerWaiter: number;
  readonly calls: Record<string, number>;
}

/**
 * `waiters` consume() consumers, each on its own idle queue, left waiting for `seconds` (a multiple
 * of their 20 s wait, so each window holds whole waits); INFO commandstats before and after.
 */
export async function idleCost(url: string, waiters: number, seconds: number): Promise<IdleCost> {
  const client = await connect(url, 'timeout-0');
  const consumers: QueueConsumer[] = [];
  try {
    for (let i = 0; i < waiters; i++) {
      const queue = new ReliableQueue(client, `bench-idle-${randomBytes(4).toString('hex')}`, { codec: utf8Codec });
      consumers.push(queue.consume(() => undefined, { logger: quietLogger }));
    }
    await pause(1000); // every consumer is in its first block
    const before = await sampleServer(client);
    await pause(seconds * 1000);
    const d = delta(before, await sampleServer(client));
    const sent = ['evalsha', 'eval', 'xread'].reduce((sum, command) => sum + (d.calls.get(command) ?? 0), 0);
    return {
      waiters,
      seconds,
      commandsPerSecondPerWaiter: d.commandCalls / waiters / seconds,
      sentPerSecondPerWaiter: sent / waiters / seconds,
      calls: Object.fromEntries(d.calls),
    };
  } finally {
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    client.destroy();
  }
}
