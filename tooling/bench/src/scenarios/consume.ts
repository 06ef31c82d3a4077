// queue.consume() against the loop a user writes by hand (receive max 64, no-op handlers, ackMany), draining a filled queue.
import { randomBytes } from 'node:crypto';
import { ReliableQueue, bytesCodec, type ReceivedMessage } from '@respire/queue';
import { connect } from '../clients.js';
import { measureThroughput, payloadOf, type ThroughputResult } from '../result.js';

export interface ConsumeRun {
  messages: number;
  payloadBytes: number;
  /** consume()'s concurrency, and the hand-written loop's receive max. */
  concurrency: number;
  /**
   * 'consume': queue.consume() with a no-op handler; 'loop': receive(max) → handlers → ackMany, one
   * step after the other; 'loop-overlapped': the previous batch's ackMany sent with the next receive.
   */
  way: 'consume' | 'loop' | 'loop-overlapped';
}

const noop = (_message: ReceivedMessage<Buffer>) => undefined;

/** Fills a queue with `messages` messages (sendMany of 1,000), then times draining it one way. */
export async function consumeThroughput(url: string, run: ConsumeRun): Promise<ThroughputResult> {
  const client = await connect(url, 'timeout-0');
  const queue = new ReliableQueue(client, `bench-consume-${randomBytes(4).toString('hex')}`, { codec: bytesCodec });
  const payload = payloadOf(run.payloadBytes);
  for (let sent = 0; sent < run.messages; sent += 1000) {
    await queue.sendMany(Array.from({ length: Math.min(1000, run.messages - sent) }, () => ({ payload })));
  }
  const label = {
    consume: `consume() concurrency ${run.concurrency}, no-op handler`,
    loop: `hand-written receive(max ${run.concurrency}) → handlers → ackMany`,
    'loop-overlapped': `hand-written receive(max ${run.concurrency}), ackMany sent with the next receive`,
  }[run.way];
  try {
    return await measureThroughput(label, client, run.messages, async () => {
      if (run.way === 'consume') await viaConsume(queue, run);
      else await viaLoop(queue, run);
    });
  } finally {
    await client.sendCommand(['DEL', queue.streamKey]);
    client.destroy();
  }
}

async function viaConsume(queue: ReliableQueue<Buffer>, run: ConsumeRun): Promise<void> {
  let handled = 0;
  let allHandled!: () => void;
  const done = new Promise<void>((resolve) => (allHandled = resolve));
  const consumer = queue.consume(
    (message) => {
      noop(message);
      if (++handled === run.messages) allHandled();
    },
    { concurrency: run.concurrency, visibilityTimeoutMs: 60_000 },
  );
  await done;
  await consumer.stop(); // flushes the last ACKs
}

async function viaLoop(queue: ReliableQueue<Buffer>, run: ConsumeRun): Promise<void> {
  let acked = 0;
  let pending: Promise<void> = Promise.resolve();
  const ack = async (batch: ReceivedMessage<Buffer>[]) => {
    if (batch.length > 0) acked += (await queue.ackMany(batch)).filter(Boolean).length;
  };
  while (acked < run.messages) {
    if (run.way === 'loop') {
      const batch = await queue.receive(60_000, { max: run.concurrency });
      await Promise.all(batch.map(async (message) => noop(message)));
      await ack(batch);
    } else {
      const [batch] = await Promise.all([queue.receive(60_000, { max: run.concurrency }), pending]);
      await Promise.all(batch.map(async (message) => noop(message)));
      pending = ack(batch);
      if (batch.length === 0) await pending;
    }
  }
  await pending;
}
