// The reliable topic's bench scenarios: deliveries through subscriptions, and memory per retained publication.
import { randomBytes } from 'node:crypto';
import { ReliableQueue, ReliableTopic, bytesCodec, type ReceivedMessage } from '@respire/queue';
import { connect } from '../clients.js';
import { measureThroughput, payloadOf, type ThroughputResult } from '../result.js';
import { pooled, sampleServer } from '../server-stats.js';

const PUBLISH_WINDOW = 256;
const BATCH = 100;

/** What a consumer of a subscription or a queue needs: receive, and ackMany of what it received. */
interface Consumable {
  receive(visibilityTimeoutMs: number, options: { max: number }): Promise<ReceivedMessage<Buffer>[]>;
  ackMany(messages: readonly ReceivedMessage<Buffer>[]): Promise<boolean[]>;
}

/** Receives batches of 100 and acknowledges each with ackMany while the next receive is in flight, until a receive comes back empty. */
async function drain(source: Consumable): Promise<number> {
  let acked = 0;
  let pending: Promise<void> = Promise.resolve();
  for (;;) {
    const [batch] = await Promise.all([source.receive(60_000, { max: BATCH }), pending]);
    if (batch.length === 0) break;
    pending = source.ackMany(batch).then((results) => {
      acked += results.filter(Boolean).length;
    });
  }
  await pending;
  return acked;
}

/**
 * Deliveries through a topic with `subscriptions` subscriptions against the same number through
 * one queue, each timed over both phases: publish `publications` (or send publications ×
 * subscriptions), then drain with one consumer per subscription (or as many on the queue), batch
 * 100 + ackMany. Filling first keeps idle consumers from polling (a subscription has no waiting
 * receive yet), so both rows count only the work of sending, receiving and acknowledging.
 */
export async function topicThroughput(
  url: string,
  kind: 'topic' | 'queue',
  publications: number,
  subscriptions: number,
  payloadBytes: number,
): Promise<ThroughputResult> {
  const client = await connect(url, 'timeout-0');
  const name = `bench-${randomBytes(4).toString('hex')}`;
  const payload = payloadOf(payloadBytes);
  const deliveries = publications * subscriptions;
  const topic = new ReliableTopic(client, name, { codec: bytesCodec });
  const queue = new ReliableQueue(client, name, { codec: bytesCodec });
  const subs = Array.from({ length: subscriptions }, (_, i) => topic.subscription(`s${i}`, { start: 'earliest' }));
  if (kind === 'topic') for (const s of subs) await s.create();
  const label =
    kind === 'topic'
      ? `topic: publish, then ${subscriptions} subscriptions drain (batch ${BATCH} + ackMany)`
      : `queue: send, then ${subscriptions} consumers drain (batch ${BATCH} + ackMany)`;
  try {
    return await measureThroughput(label, client, deliveries, async () => {
      if (kind === 'topic') await pooled(publications, PUBLISH_WINDOW, () => topic.publish(payload));
      else await pooled(deliveries, PUBLISH_WINDOW, () => queue.send(payload));
      const acked = await Promise.all(kind === 'topic' ? subs.map(drain) : subs.map(() => drain(queue)));
      const total = acked.reduce((a, b) => a + b, 0);
      if (total !== deliveries) throw new Error(`${label}: ${total} of ${deliveries} deliveries acknowledged`);
    });
  } finally {
    await client.sendCommand(['DEL', topic.streamKey, queue.streamKey]);
    client.destroy();
  }
}

/** used_memory per retained publication with `subscriptions` subscriptions that have received nothing yet. */
export async function topicMemory(url: string, publications: number, subscriptions: number, payloadBytes: number): Promise<number> {
  const client = await connect(url, 'timeout-0');
  const topic = new ReliableTopic(client, `bench-mem-${randomBytes(4).toString('hex')}`, { codec: bytesCodec });
  try {
    for (let i = 0; i < subscriptions; i++) await topic.subscription(`s${i}`, { start: 'earliest' }).create();
    const before = (await sampleServer(client)).usedMemory;
    await pooled(publications, 512, () => topic.publish(payloadOf(payloadBytes)));
    return ((await sampleServer(client)).usedMemory - before) / publications;
  } finally {
    await client.sendCommand(['DEL', topic.streamKey]);
    client.destroy();
  }
}
