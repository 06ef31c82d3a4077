// `pnpm bench`: Respire against the raw-stream ceiling and BullMQ, in one run.
/**
 * pnpm bench [--quick] [--messages N]: Respire against the raw-stream ceiling and BullMQ, each
 * scenario on a private redis-server started here; prints a table and writes a JSON report.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startRedisServer } from '@respire/harness';
import type { ThroughputResult } from './result.js';
import { bullmqThroughput } from './scenarios/bullmq.js';
import { memory } from './scenarios/memory.js';
import { queueThroughput, type QueueRun } from './scenarios/queue.js';
import { rawThroughput } from './scenarios/raw.js';
import { queueRoundTrips } from './scenarios/round-trips.js';
import { scale } from './scenarios/scale.js';
import { extraSections } from './sections.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    messages: { type: 'string' },
    only: { type: 'string' },
  },
});
const quick = values.quick ?? false;
const N = Number(values.messages ?? (quick ? 10_000 : 100_000));
const only = values.only ? new Set(values.only.split(',')) : null;
const want = (section: string) => !only || only.has(section);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');

const report: Record<string, unknown> = {};
const log = (line = '') => console.log(line);

/** Runs `task` against a fresh private redis-server, stopped afterwards. */
async function onFreshServer<T>(task: (url: string) => Promise<T>): Promise<T> {
  const server = await startRedisServer();
  try {
    return await task(server.url);
  } finally {
    await server.close();
  }
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';

function printThroughput(rows: ThroughputResult[]): void {
  log('| scenario | msgs/s | Redis CPU µs/msg | server cmds/msg | Node CPU µs/msg |');
  log('| --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    log(
      `| ${r.scenario} | ${fmt(r.messagesPerSecond)} | ${fmt(r.redisCpuUsPerMessage, 1)} | ${fmt(r.serverCommandsPerMessage, 2)} | ${fmt(r.nodeCpuUsPerMessage, 1)} |`,
    );
  }
}

async function main(): Promise<void> {
  const probe = await startRedisServer();
  const redisVersion = probe.version;
  await probe.close();
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot }).toString().trim();
    } catch {
      return 'unknown';
    }
  })();
  report.machine = { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version };
  report.redis = redisVersion;
  report.commit = commit;
  report.messages = N;
  report.quick = quick;
  log(`Respire bench — ${quick ? 'quick' : 'full'} run, ${fmt(N)} messages of 100 bytes, Redis ${redisVersion}, node ${process.version}, commit ${commit}`);
  log(`Machine: ${cpus().length} × ${cpus()[0]?.model}`);

  if (want('round-trips')) {
    const rows = await onFreshServer(queueRoundTrips);
    report.roundTrips = rows;
    log('\n## Round trips per operation (warm scripts)\n');
    log('| operation | on the wire | server commands | which |');
    log('| --- | ---: | ---: | --- |');
    for (const r of rows) log(`| ${r.operation} | ${r.wire} | ${r.server} | ${r.serverCommands} |`);
  }

  if (want('throughput')) {
    const base = { messages: N, payloadBytes: 100 } as const;
    const rows: ThroughputResult[] = [];
    const run = async (task: (url: string) => Promise<ThroughputResult>) => {
      const row = await onFreshServer(task);
      rows.push(row);
      log(`  ${row.scenario}: ${fmt(row.messagesPerSecond)} msgs/s`);
      return row;
    };
    log('\n## Throughput (each on a fresh server)\n');
    const queue = (over: Partial<QueueRun>) => (url: string) =>
      queueThroughput(url, { ...base, batch: 100, consumers: 1, ack: 'batch', setting: 'timeout-0', mode: 'end-to-end', ...over });
    // Warm up the JIT and the client code paths; not reported.
    await onFreshServer((url) =>
      queueThroughput(url, { ...base, messages: Math.min(N, 10_000), batch: 100, consumers: 1, ack: 'batch', setting: 'timeout-0', mode: 'end-to-end' }),
    );
    await onFreshServer((url) =>
      rawThroughput(url, { ...base, messages: Math.min(N, 10_000), batch: 100, consumers: 1, setting: 'timeout-0', mode: 'end-to-end' }),
    );
    const raw100 = await run((url) => rawThroughput(url, { ...base, batch: 100, consumers: 1, setting: 'timeout-0', mode: 'end-to-end' }));
    const rawDefault = await run((url) => rawThroughput(url, { ...base, batch: 100, consumers: 1, setting: 'default', mode: 'end-to-end' }));
    const rawProcessing = await run((url) => rawThroughput(url, { ...base, batch: 100, consumers: 1, setting: 'timeout-0', mode: 'processing' }));
    await run(queue({ batch: 1 }));
    await run(queue({ batch: 10 }));
    const q100 = await run(queue({}));
    const q100single = await run(queue({ ack: 'single' }));
    await run(queue({ consumers: 4 }));
    const q100default = await run(queue({ setting: 'default' }));
    const q100defaultRespire0 = await run(queue({ setting: 'default', commandTimeoutMs: 0 }));
    const qProcessing = await run(queue({ mode: 'processing' }));
    const bullN = quick ? Math.min(N, 5_000) : N;
    const bull = await run((url) => bullmqThroughput(url, { messages: bullN, payloadBytes: 100, concurrency: 50, mode: 'end-to-end' }));
    const bullProcessing = await run((url) => bullmqThroughput(url, { messages: bullN, payloadBytes: 100, concurrency: 50, mode: 'processing' }));
    log('');
    printThroughput(rows);
    const ratios = {
      queueBatch100OfRawEndToEnd: q100.messagesPerSecond / raw100.messagesPerSecond,
      queueBatch100DefaultClientOfRawDefault: q100default.messagesPerSecond / rawDefault.messagesPerSecond,
      queueProcessingOfRawProcessing: qProcessing.messagesPerSecond / rawProcessing.messagesPerSecond,
      queueBatch100OverBullmqEndToEnd: q100.messagesPerSecond / bull.messagesPerSecond,
      queueSingleAckOverBullmqEndToEnd: q100single.messagesPerSecond / bull.messagesPerSecond,
      queueProcessingOverBullmqProcessing: qProcessing.messagesPerSecond / bullProcessing.messagesPerSecond,
      defaultClientOverTimeout0Raw: rawDefault.messagesPerSecond / raw100.messagesPerSecond,
      defaultClientOverTimeout0Queue: q100default.messagesPerSecond / q100.messagesPerSecond,
      defaultClientWithCommandTimeout0OverTimeout0Queue: q100defaultRespire0.messagesPerSecond / q100.messagesPerSecond,
    };
    report.throughput = rows;
    report.throughputRatios = ratios;
    log('\n| ratio | value | goal |');
    log('| --- | ---: | --- |');
    log(`| queue batch 100 + batch ack ÷ raw ceiling (end to end) | ${fmt(ratios.queueBatch100OfRawEndToEnd, 2)} | ≥ 0.4 |`);
    log(`| queue batch 100 + batch ack ÷ BullMQ (end to end) | ${fmt(ratios.queueBatch100OverBullmqEndToEnd, 1)}× | ≥ 4× |`);
    log(`| queue batch 100, one ack per message ÷ BullMQ (end to end) | ${fmt(ratios.queueSingleAckOverBullmqEndToEnd, 1)}× | ≥ 2.5× |`);
    log(`| queue ÷ raw (processing a filled queue) | ${fmt(ratios.queueProcessingOfRawProcessing, 2)} | |`);
    log(`| queue ÷ BullMQ (processing a filled queue) | ${fmt(ratios.queueProcessingOverBullmqProcessing, 1)}× | |`);
    log(
      `| node-redis default timeout ÷ timeout 0 (raw / queue) | ${fmt(ratios.defaultClientOverTimeout0Raw, 2)} / ${fmt(ratios.defaultClientOverTimeout0Queue, 2)} | |`,
    );
    log(`| default client + queue commandTimeoutMs 0 ÷ timeout-0 client (queue) | ${fmt(ratios.defaultClientWithCommandTimeout0OverTimeout0Queue, 2)} | |`);
  }

  for (const section of extraSections) {
    if (!want(section.name)) continue;
    log(`\n## ${section.title}\n`);
    report[section.name] = await section.run({ quick, messages: N, onFreshServer, log });
  }

  if (want('scale')) {
    log('\n## Scale: receive latency and recovery cost with a leased backlog\n');
    const backlogs = quick ? [0, 10_000, 100_000] : [0, 100_000, 1_000_000];
    const rows = [];
    for (const backlog of backlogs) {
      rows.push(await onFreshServer((url) => scale(url, backlog, quick ? 300 : 1000, quick ? 1000 : 10_000)));
    }
    report.scale = rows;
    log('| leased backlog | receive p50 ms | receive p99 ms | recovery µs/due msg | recovery Redis CPU µs/due msg |');
    log('| ---: | ---: | ---: | ---: | ---: |');
    for (const r of rows)
      log(`| ${fmt(r.backlog)} | ${fmt(r.receiveP50Ms, 3)} | ${fmt(r.receiveP99Ms, 3)} | ${fmt(r.recoveryUsPerDue, 1)} | ${fmt(r.recoveryCpuUsPerDue, 1)} |`);
    const p99Ratio = rows[rows.length - 1]!.receiveP99Ms / rows[0]!.receiveP99Ms;
    report.scaleP99Ratio = p99Ratio;
    log(`\nreceive p99 with ${fmt(backlogs[backlogs.length - 1]!)} leased ÷ empty: ${fmt(p99Ratio, 2)} (goal ≤ 1.5)`);
  }

  if (want('memory')) {
    log('\n## Memory (100-byte payloads)\n');
    const m = await onFreshServer((url) => memory(url, N, 100));
    report.memory = m;
    log('| figure | bytes |');
    log('| --- | ---: |');
    log(`| used_memory per waiting message | ${fmt(m.perWaiting, 1)} (goal ≤ payload + 120 = 220) |`);
    log(`| MEMORY USAGE of the stream per waiting message | ${fmt(m.streamPerWaiting, 1)} |`);
    log(`| extra per leased message (delivery metadata) | ${fmt(m.perLeasedExtra, 1)} |`);
    log(`| left per message after ack | ${fmt(m.perAfterAck, 1)} |`);
    log(`| per deduplication key | ${fmt(m.perDeduplicationKey, 1)} |`);
  }

  const outDir = join(repoRoot, 'bench-results');
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`);
  writeFileSync(file, JSON.stringify(report, null, 2));
  writeFileSync(join(outDir, 'latest.json'), JSON.stringify(report, null, 2));
  log(`\nReport: ${file.slice(repoRoot.length + 1)}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
