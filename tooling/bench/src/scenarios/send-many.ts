// sendMany of a batch against the same number of send() calls pipelined on one connection.
import { randomBytes } from 'node:crypto';
import { ReliableQueue, bytesCodec } from '@respire/queue';
import { connect } from '../clients.js';
import { measureThroughput, payloadOf, type ThroughputResult } from '../result.js';

export interface SendManyRun {
  messages: number;
  payloadBytes: number;
  /** Messages per step: one sendMany of this many, or this many send()s in flight together. */
  batch: number;
  way: 'sendMany' | 'send';
}

/** Sends `messages` messages one step at a time (each step awaited before the next); messages/s, Redis CPU and commands per message. */
export async function sendManyThroughput(url: string, run: SendManyRun): Promise<ThroughputResult> {
  const client = await connect(url, 'timeout-0');
  const queue = new ReliableQueue(client, `bench-send-${randomBytes(4).toString('hex')}`, { codec: bytesCodec });
  const payload = payloadOf(run.payloadBytes);
  const items = Array.from({ length: run.batch }, () => ({ payload }));
  const label = run.way === 'sendMany' ? `sendMany of ${run.batch}` : `${run.batch} pipelined send()s`;
  try {
    return await measureThroughput(label, client, run.messages, async () => {
      for (let sent = 0; sent < run.messages; sent += run.batch) {
        const step = items.slice(0, Math.min(run.batch, run.messages - sent));
        if (run.way === 'sendMany') await queue.sendMany(step);
        else await Promise.all(step.map((item) => queue.send(item.payload)));
      }
    });
  } finally {
    await client.sendCommand(['DEL', queue.streamKey]);
    client.destroy();
  }
}
