// The queue half of the demo: order notifications through a ReliableQueue, with its invariants checked.
import { setTimeout as sleep } from 'node:timers/promises';
import { ReliableQueue, jsonCodec, type ReceivedMessage } from '@respire/queue';
import type { RedisClientLike } from '@respire/core-scripts';

/** An order notification, as a service would send it. */
interface OrderShipped {
  orderId: number;
  customer: string;
}

export interface QueueDemoOptions {
  orders: number;
  consumers: number;
  batch: number;
  deliveryLimit: number;
  log: (line: string) => void;
}

export interface QueueDemoSummary {
  sent: number;
  duplicatesSuppressed: number;
  accepted: number;
  received: number;
  redelivered: number;
  acked: number;
  deadLettered: number;
  elapsedMs: number;
  failures: string[];
}

/** Every 97th order is poison: its handler always fails, so it ends in the dead-letter stream. */
const isPoison = (orderId: number) => orderId % 97 === 0;
/** About one order in eight fails on its first delivery only, and is retried after a short delay. */
const failsOnce = (orderId: number) => orderId % 8 === 3;

/**
 * Order notifications through one reliable queue: a producer sends every order once plus a
 * retry of every tenth (same deduplication ID), consumers receive in batches, ack most,
 * nack transient failures with a delay, and poison orders exhaust the delivery limit.
 */
export async function runQueueDemo(client: RedisClientLike, name: string, options: QueueDemoOptions): Promise<QueueDemoSummary> {
  const queue = new ReliableQueue<OrderShipped>(client, name, { codec: jsonCodec<OrderShipped>(), deliveryLimit: options.deliveryLimit });
  const started = Date.now();
  const summary: QueueDemoSummary = {
    sent: 0,
    duplicatesSuppressed: 0,
    accepted: 0,
    received: 0,
    redelivered: 0,
    acked: 0,
    deadLettered: 0,
    elapsedMs: 0,
    failures: [],
  };
  const acceptedIds = new Map<string, number>();
  const ackedIds = new Set<string>();

  const produce = async () => {
    for (let orderId = 1; orderId <= options.orders; orderId++) {
      const order = { orderId, customer: `customer-${orderId % 50}` };
      const sends = orderId % 10 === 0 ? 2 : 1; // a retried send after an "uncertain" outcome
      for (let attempt = 0; attempt < sends; attempt++) {
        const result = await queue.sendWithResult(order, { deduplicationId: `order-${orderId}-shipped`, deduplicationWindowMs: 600_000 });
        summary.sent++;
        if (result.duplicate) summary.duplicatesSuppressed++;
        else acceptedIds.set(result.id, orderId);
      }
    }
    summary.accepted = acceptedIds.size;
  };

  let producing = true;
  const handle = async (message: ReceivedMessage<OrderShipped>) => {
    summary.received++;
    if (message.deliveryCount > 1) summary.redelivered++;
    const { orderId } = message.payload;
    if (isPoison(orderId) || (failsOnce(orderId) && message.deliveryCount === 1)) {
      await queue.nack(message, isPoison(orderId) ? 0 : 50);
      return;
    }
    if (await queue.ack(message)) {
      if (ackedIds.has(message.id)) summary.failures.push(`entry ${message.id} acknowledged twice`);
      ackedIds.add(message.id);
      summary.acked++;
    }
  };

  const done = () => !producing && summary.acked + summary.deadLettered >= acceptedIds.size;
  const consume = async () => {
    while (!done()) {
      const batch = await queue.receive(5_000, { max: options.batch });
      for (const message of batch) await handle(message);
      if (batch.length === 0) await sleep(10);
      summary.deadLettered = await deadLetterCount();
      if (Date.now() - started > 120_000) throw new Error('the demo did not finish within 120 s');
    }
  };
  const deadLetterCount = async () => Number(await send(['XLEN', queue.deadLetterStreamKey]));
  const send = (args: string[]) => {
    const c = client as { sendCommand: (...a: unknown[]) => Promise<unknown>; masters?: unknown };
    return Array.isArray(c.masters) ? c.sendCommand(args[1], true, args) : c.sendCommand(args);
  };

  const progress = setInterval(() => {
    options.log(`  queue: sent ${summary.sent}, acked ${summary.acked}, redelivered ${summary.redelivered}, dead-lettered ${summary.deadLettered}`);
  }, 500);
  try {
    const producer = produce().finally(() => {
      producing = false;
    });
    await Promise.all([producer, ...Array.from({ length: options.consumers }, consume)]);
  } finally {
    clearInterval(progress);
  }
  summary.elapsedMs = Date.now() - started;

  // Invariants: every accepted message acked or dead-lettered exactly once, and nothing else.
  const dead = (await send(['XRANGE', queue.deadLetterStreamKey, '-', '+'])) as [string, string[]][];
  const deadIds = dead.map(([, fields]) => fields[fields.indexOf('source_id') + 1]!);
  const poison = [...acceptedIds].filter(([, orderId]) => isPoison(orderId)).map(([id]) => id);
  if (new Set(deadIds).size !== deadIds.length) summary.failures.push('an entry was dead-lettered twice');
  if (deadIds.sort().join() !== poison.sort().join()) summary.failures.push('the dead-letter stream does not hold exactly the poison orders');
  for (const [, fields] of dead) {
    if (fields[fields.indexOf('delivery_count') + 1] !== String(options.deliveryLimit)) summary.failures.push('a dead letter has the wrong delivery_count');
  }
  for (const id of deadIds) if (ackedIds.has(id)) summary.failures.push(`entry ${id} both acked and dead-lettered`);
  if (ackedIds.size + deadIds.length !== acceptedIds.size) {
    summary.failures.push(`accepted ${acceptedIds.size} but acked ${ackedIds.size} + dead-lettered ${deadIds.length}`);
  }
  const expectedDuplicates = Math.floor(options.orders / 10);
  if (summary.duplicatesSuppressed !== expectedDuplicates) {
    summary.failures.push(`expected ${expectedDuplicates} duplicates suppressed, saw ${summary.duplicatesSuppressed}`);
  }
  if (Number(await send(['XLEN', queue.streamKey])) !== 0) summary.failures.push('the ready stream is not empty');
  return summary;
}
