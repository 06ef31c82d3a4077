// `pnpm demo --dashboard`: the demo's data shown in the dashboard on a local port.
/**
 * `pnpm demo --dashboard`: the queue and worker demo, then the dashboard on a local port with
 * their data in it (dead letters to retry, leased messages, pending entries of a stalled
 * consumer, idle consumers), while a live worker and queue consumer keep running so a retry is
 * processed again. Runs until Ctrl-C.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import { startStandaloneDashboard } from '@respire/dashboard';
import { ReliableQueue, jsonCodec } from '@respire/queue';
import { StreamWorker, StreamWorkerResult, type StreamEntry } from '@respire/worker';
import type { RedisClientLike } from '@respire/core-scripts';
import { runQueueDemo } from './queue-demo.js';
import { runWorkerDemo } from './worker-demo.js';

export interface DashboardDemoRedis {
  readonly url: string;
  readonly description: string;
  close(): Promise<void>;
}

/** Runs until SIGINT/SIGTERM; resolves to the exit code. */
export async function runDashboardDemo(redis: DashboardDemoRedis, log: (line: string) => void): Promise<number> {
  log(`Respire demo with the dashboard, against ${redis.description}`);
  const client = createClient({ url: redis.url });
  client.on('error', (error: Error) => console.error(`redis client: ${error.message}`));
  await client.connect();
  const tag = `shop-${randomBytes(3).toString('hex')}`;
  const queueName = `order-notifications-${tag}`;
  const stream = `{${tag}}:orders`;
  const deadLetterStream = `{${tag}}:orders-dead`;
  const quiet = () => {};

  log(`\n1. Reliable queue '${queueName}': 400 orders; every 97th is poison and ends as a dead letter`);
  await runQueueDemo(client as RedisClientLike, queueName, { orders: 400, consumers: 2, batch: 20, deliveryLimit: 4, log: quiet });
  log(`2. Stream worker on '${stream}': 400 orders; poison and invalid ones are dead-lettered`);
  await runWorkerDemo(client as RedisClientLike, tag, { orders: 400, consumerCount: 2, batchSize: 8, deliveryLimit: 3, log: quiet });

  // Something to look at besides dead letters: a consumer that crashed holding entries, and leased messages.
  const send = (args: string[]) => client.sendCommand(args);
  for (let i = 0; i < 6; i++) await send(['XADD', stream, '*', 'order-id', String(5000 + i), 'status', 'paid']);
  await send(['XREADGROUP', 'GROUP', 'fulfillment', 'orders-host-7-0', 'COUNT', '6', 'STREAMS', stream, '>']);
  const queue = new ReliableQueue<{ orderId: number; customer: string }>(client as RedisClientLike, queueName, { codec: jsonCodec(), deliveryLimit: 4 });
  for (let i = 0; i < 5; i++) await queue.send({ orderId: 9000 + i, customer: `customer-${i}` });
  await queue.receive(15 * 60_000, { max: 5 }); // leased for 15 minutes, never acked

  // The fix is deployed: from now on every order succeeds, so a retried dead letter is processed.
  let processed = 0;
  const worker = new StreamWorker({
    client: client as RedisClientLike,
    stream,
    group: 'fulfillment',
    consumerName: 'orders-live',
    deadLetterStream,
    deliveryLimit: 3,
    readWaitMs: 1000,
    minimumIdleTimeMs: 30 * 60_000, // leave the crashed consumer's entries pending, to release them from the dashboard
    handler: (entry: StreamEntry) => {
      processed++;
      log(`  worker: processed order ${entry.getString('order-id') ?? '?'} (delivery ${entry.deliveryCount})`);
      return StreamWorkerResult.Ack;
    },
  });
  await worker.start();
  let running = true;
  const consumeQueue = (async () => {
    while (running) {
      for (const message of await queue.receive(60_000, { max: 10 })) {
        log(`  queue consumer: order ${message.payload.orderId} (delivery ${message.deliveryCount})`);
        await queue.ack(message);
      }
      await sleep(1000);
    }
  })();

  const operatorToken = randomBytes(18).toString('base64url');
  const viewerToken = randomBytes(18).toString('base64url');
  const port = Number(process.env.RESPIRE_DEMO_DASHBOARD_PORT ?? 7373);
  const options = {
    url: redis.url,
    users: [
      { name: 'operator', role: 'operator' as const, token: operatorToken },
      { name: 'viewer', role: 'viewer' as const, token: viewerToken },
    ],
    queues: [{ name: queueName }],
    streams: [{ stream, deadLetterStream, label: 'orders (stream worker)' }],
    discoverQueues: true,
    audit: (record: { actor: string; action: string; result: string }) => log(`  audit: ${record.actor} ${record.action} → ${record.result}`),
  };
  const dashboard = await startStandaloneDashboard({ ...options, port }).catch(() => startStandaloneDashboard({ ...options, port: 0 }));

  log('');
  log(`Dashboard: ${dashboard.url}`);
  log(`  sign in as  operator  with token  ${operatorToken}`);
  log(`          or  viewer    with token  ${viewerToken}  (read-only)`);
  log('  Dead letters are waiting on the queue and the stream worker: retry one and watch the worker process it.');
  log('  Press Ctrl-C to stop.');

  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  log(`\nStopping (the live worker processed ${processed} entries).`);
  running = false;
  await consumeQueue.catch(() => {});
  await worker.stop(5_000);
  await dashboard.close();
  let cursor = '0';
  do {
    const [next, keys] = (await send(['SCAN', cursor, 'MATCH', `*${tag}*`, 'COUNT', '1000'])) as unknown as [string, string[]];
    if (keys.length > 0) await send(['UNLINK', ...keys]);
    cursor = String(next);
  } while (cursor !== '0');
  client.destroy();
  await redis.close();
  return 0;
}
