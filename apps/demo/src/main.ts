// The demo's entry point (`pnpm demo`): the queue and worker demos against real Redis, or the fake server.
/**
 * Respire's main job: an order-notification run of the reliable queue against real Redis.
 * Uses REDIS_URL when set, else a private redis-server on a free port; exits non-zero when an
 * invariant fails.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { runQueueDemo, type QueueDemoSummary } from './queue-demo.js';
import { runWorkerDemo, type WorkerDemoSummary } from './worker-demo.js';
import { FakeRedisServer } from '@respire/testing';
import { startPrivateRedis, type DemoRedis } from './server.js';
import { runDashboardDemo } from './dashboard-demo.js';

const log = (line: string) => console.log(line);

async function chooseRedis(): Promise<DemoRedis> {
  const url = process.env.REDIS_URL?.trim();
  if (url) return { url, description: `REDIS_URL (${url.replace(/\/\/[^@]*@/, '//***@')})`, close: async () => {} };
  const own = process.env.RESPIRE_DEMO_FAKE ? null : await startPrivateRedis();
  if (own) return own;
  // Neither: the in-memory fake server runs the same Lua scripts, much more slowly.
  const fake = await FakeRedisServer.start();
  log(
    'No REDIS_URL and no redis-server found: using the in-memory fake server from @respire/testing.\n' +
      'For a real run set REDIS_URL=redis://host:port or install redis-server (Debian/Ubuntu: apt-get install -y redis-server).',
  );
  return { url: fake.url, description: `the in-memory fake server (Redis ${fake.model.version} model)`, close: () => fake.close() };
}

function printQueueSummary(s: QueueDemoSummary): void {
  const rate = Math.round((s.acked + s.deadLettered) / (s.elapsedMs / 1000));
  log('');
  log('Reliable queue summary');
  log(`  sent                  ${s.sent}`);
  log(`  duplicates suppressed ${s.duplicatesSuppressed}`);
  log(`  accepted              ${s.accepted}`);
  log(`  received (deliveries) ${s.received}`);
  log(`  redelivered           ${s.redelivered}`);
  log(`  acked                 ${s.acked}`);
  log(`  dead-lettered         ${s.deadLettered}`);
  log(`  elapsed               ${(s.elapsedMs / 1000).toFixed(2)} s`);
  log(`  throughput            ${rate} messages/s`);
  log(`  invariants            ${s.failures.length === 0 ? 'all hold' : `FAILED:\n    - ${s.failures.join('\n    - ')}`}`);
}

function printWorkerSummary(s: WorkerDemoSummary): void {
  const dead = Object.values(s.deadLettered).reduce((a, b) => a + b, 0);
  log('');
  log('Stream worker summary');
  log(`  produced              ${s.produced}`);
  log(`  handler attempts      ${s.attempts}`);
  log(`  retried attempts      ${s.retried}`);
  log(`  acked                 ${s.acked}`);
  log(
    `  dead-lettered         ${dead} (${Object.entries(s.deadLettered)
      .map(([reason, n]) => `${reason} ${n}`)
      .join(', ')})`,
  );
  log(`  elapsed               ${(s.elapsedMs / 1000).toFixed(2)} s`);
  log(`  throughput            ${Math.round(s.produced / (s.elapsedMs / 1000))} entries/s`);
  log(`  invariants            ${s.failures.length === 0 ? 'all hold' : `FAILED:\n    - ${s.failures.join('\n    - ')}`}`);
}

/** Removes this run's keys from a shared server (a private one is discarded anyway). */
async function deleteKeysTagged(client: { sendCommand(args: string[]): Promise<unknown> }, tag: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = (await client.sendCommand(['SCAN', cursor, 'MATCH', `*${tag}*`, 'COUNT', '1000'])) as [string, string[]];
    if (keys.length > 0) await client.sendCommand(['UNLINK', ...keys]);
    cursor = String(next);
  } while (cursor !== '0');
}

async function main(): Promise<number> {
  if (process.argv.includes('--dashboard')) return runDashboardDemo(await chooseRedis(), log);
  const redis = await chooseRedis();
  log(`Respire demo against ${redis.description}`);
  const client = createClient({ url: redis.url });
  client.on('error', (error: Error) => console.error(`redis client: ${error.message}`));
  await client.connect();
  const run = randomBytes(4).toString('hex');
  const queueName = `order-notifications-${run}`;
  let failed = false;
  try {
    log(`\n1. Reliable queue '${queueName}': 3,000 orders, 4 consumers, delivery limit 4`);
    const summary = await runQueueDemo(client, queueName, { orders: 3000, consumers: 4, batch: 20, deliveryLimit: 4, log });
    printQueueSummary(summary);
    failed ||= summary.failures.length > 0;

    log(`\n2. Stream worker on '{${queueName}}:orders': 2,000 orders, 4 readers × batch 8, delivery limit 3`);
    const workerSummary = await runWorkerDemo(client, queueName, { orders: 2000, consumerCount: 4, batchSize: 8, deliveryLimit: 3, log });
    printWorkerSummary(workerSummary);
    failed ||= workerSummary.failures.length > 0;
  } finally {
    await deleteKeysTagged(client, queueName).catch(() => {});
    client.destroy();
    await redis.close();
  }
  log(failed ? '\nThe demo FAILED an invariant.' : '\nThe demo finished: every invariant holds.');
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
