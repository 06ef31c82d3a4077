// `pnpm --filter @respire/bench bench:durability`: the cost of the queue's durability option on a local replica.
/**
 * One master with one replica (private servers, loopback). For each set-up, without the option and
 * with `durability: { replicas: 1 }`: one send at a time (messages/s, latency p50/p99), batches of
 * 100 sent with `sendMany` (messages/s, latency p50/p99 per batch), and batches of 100 received and
 * settled (receive of 100, then one ackMany of 100; messages/s). Prints a table.
 */
import { parseArgs } from 'node:util';
import { createClient } from 'redis';
import { startReplicatedServer } from '@respire/harness';
import { ReliableQueue, utf8Codec, type ReliableQueueOptions } from '@respire/queue';

const { values } = parseArgs({ options: { messages: { type: 'string' } } });
const N = Number(values.messages ?? 2_000);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

async function run(url: string, durability: ReliableQueueOptions<string>['durability']) {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    const queue = new ReliableQueue<string>(client, `bench-${Math.random().toString(16).slice(2)}`, { codec: utf8Codec, durability });
    const latencies: number[] = [];
    const started = performance.now();
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      await queue.send('payload');
      latencies.push(performance.now() - t);
    }
    const sendRate = N / ((performance.now() - started) / 1000);
    latencies.sort((a, b) => a - b);
    // The same number of messages again, in batches of 100: one script and one wait per batch.
    const batchLatencies: number[] = [];
    const payloads = Array.from({ length: 100 }, () => ({ payload: 'payload' }));
    const manyStarted = performance.now();
    for (let i = 0; i < N; i += 100) {
      const t = performance.now();
      await queue.sendMany(payloads);
      batchLatencies.push(performance.now() - t);
    }
    const sendManyRate = (Math.ceil(N / 100) * 100) / ((performance.now() - manyStarted) / 1000);
    batchLatencies.sort((a, b) => a - b);
    const batchStarted = performance.now();
    let settled = 0;
    while (settled < N + Math.ceil(N / 100) * 100) {
      const batch = await queue.receive(60_000, { max: 100 });
      if (batch.length === 0) break;
      await queue.ackMany(batch);
      settled += batch.length;
    }
    const batchRate = settled / ((performance.now() - batchStarted) / 1000);
    return {
      sendRate,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      sendManyRate,
      manyP50: percentile(batchLatencies, 50),
      manyP99: percentile(batchLatencies, 99),
      batchRate,
    };
  } finally {
    client.destroy();
  }
}

const set = await startReplicatedServer({ replicas: 1 });
try {
  const without = await run(set.master.url, undefined);
  const withOption = await run(set.master.url, { replicas: 1, timeoutMs: 1000 });
  const row = (name: string, r: typeof without) =>
    `| ${name} | ${Math.round(r.sendRate)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${Math.round(r.sendManyRate)} | ${r.manyP50.toFixed(2)} | ${r.manyP99.toFixed(2)} | ${Math.round(r.batchRate)} |`;
  console.log(`${set.master.version} (${set.master.flavour}), ${N} messages, one client`);
  console.log('| set-up | send msgs/s | send p50 ms | send p99 ms | sendMany 100 msgs/s | sendMany p50 ms | sendMany p99 ms | receive+ackMany 100 msgs/s |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  console.log(row('no option', without));
  console.log(row('replicas: 1', withOption));
  console.log(
    `ratio with/without: send ${(withOption.sendRate / without.sendRate).toFixed(2)}×, p50 ${(withOption.p50 / without.p50).toFixed(1)}×, ` +
      `p99 ${(withOption.p99 / without.p99).toFixed(1)}×, sendMany ${(withOption.sendManyRate / without.sendManyRate).toFixed(2)}× ` +
      `(p50 ${(withOption.manyP50 / without.manyP50).toFixed(1)}×, p99 ${(withOption.manyP99 / without.manyP99).toFixed(1)}×), ` +
      `receive+ackMany ${(withOption.batchRate / without.batchRate).toFixed(2)}×`,
  );
} finally {
  await set.close();
}
