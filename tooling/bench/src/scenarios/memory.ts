// Redis memory per waiting, leased and acknowledged queue message.
import { randomBytes } from 'node:crypto';
import { queueKeys } from '@respire/core-scripts/internal';
import { ReliableQueue, bytesCodec } from '@respire/queue';
import { connect } from '../clients.js';
import { pooled, sampleServer } from '../server-stats.js';

export interface MemoryResult {
  readonly messages: number;
  readonly payloadBytes: number;
  /** used_memory delta per waiting message, bytes. */
  readonly perWaiting: number;
  /** MEMORY USAGE of the ready stream per waiting message, bytes. */
  readonly streamPerWaiting: number;
  /** Extra used_memory per message once leased (delivery metadata), bytes. */
  readonly perLeasedExtra: number;
  /** used_memory left per message after all were acked, bytes (≈ 0: metadata only while leased). */
  readonly perAfterAck: number;
  /** Extra used_memory per deduplication key, bytes. */
  readonly perDeduplicationKey: number;
}

async function settledMemory(client: { sendCommand(args: string[]): Promise<unknown> }): Promise<number> {
  return (await sampleServer(client)).usedMemory;
}

/** Redis memory per waiting, leased and acked message and per deduplication key. */
export async function memory(url: string, messages: number, payloadBytes: number): Promise<MemoryResult> {
  const client = await connect(url, 'timeout-0');
  const payload = Buffer.alloc(payloadBytes, 'x');
  const name = `bench-mem-${randomBytes(4).toString('hex')}`;
  const queue = new ReliableQueue(client, name, { codec: bytesCodec });
  try {
    const empty = await settledMemory(client);
    await pooled(messages, 512, () => queue.send(payload));
    const waiting = await settledMemory(client);
    const streamBytes = Number(await client.sendCommand(['MEMORY', 'USAGE', queue.streamKey, 'SAMPLES', '0']));
    const received = [];
    while (received.length < messages) received.push(...(await queue.receive(3_600_000, { max: 1000 })));
    const leased = await settledMemory(client);
    for (let i = 0; i < received.length; i += 1000) await queue.ackMany(received.slice(i, i + 1000));
    const afterAck = await settledMemory(client);
    await client.sendCommand(['DEL', queue.streamKey, ...Object.values(queueKeys(name, '')).filter((k) => k.includes(':') && !k.endsWith(':'))]);

    const dedupQueue = new ReliableQueue(client, `${name}-dedup`, { codec: bytesCodec });
    const beforeDedup = await settledMemory(client);
    await pooled(messages, 512, (i) => dedupQueue.send(payload, { deduplicationId: `order-${i}-shipped` }));
    const withDedup = await settledMemory(client);
    await client.sendCommand(['DEL', dedupQueue.streamKey]);
    const perWaiting = (waiting - empty) / messages;
    return {
      messages,
      payloadBytes,
      perWaiting,
      streamPerWaiting: streamBytes / messages,
      perLeasedExtra: (leased - waiting) / messages,
      perAfterAck: (afterAck - empty) / messages,
      perDeduplicationKey: (withDedup - beforeDedup) / messages - perWaiting,
    };
  } finally {
    client.destroy();
  }
}
