// The bench's sections beyond the queue: the worker, fencing, telemetry and the fake server.
import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider, PeriodicExportingMetricReader, InMemoryMetricExporter, AggregationTemporality } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createStreamWorkerTelemetry } from '@respire/otel';
import type { ThroughputResult } from './result.js';
import { groups, groupsNoisy } from './groups-section.js';
import { partitions } from './partitions-section.js';
import { topic } from './topic-section.js';
import { queueFeatureSections } from './queue-features-section.js';
import { bullmqThroughput } from './scenarios/bullmq.js';
import { fakeScriptRate } from './scenarios/fake.js';
import { fenceCost } from './scenarios/fence-cost.js';
import { historySampleCost } from './scenarios/history.js';
import { queueThroughput, type QueueRun } from './scenarios/queue.js';
import { streamCeiling } from './scenarios/stream-ceiling.js';
import { workerThroughput } from './scenarios/worker.js';

/** Bench sections run after the queue throughput. */
export interface SectionContext {
  quick: boolean;
  messages: number;
  onFreshServer<T>(task: (url: string) => Promise<T>): Promise<T>;
  log(line?: string): void;
}

export interface BenchSection {
  /** Name for `--only` and the JSON report. */
  readonly name: string;
  readonly title: string;
  run(context: SectionContext): Promise<unknown>;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function table(log: (line?: string) => void, rows: ThroughputResult[]): void {
  log('| scenario | entries/s | Redis CPU µs/entry | server cmds/entry | Node CPU µs/entry |');
  log('| --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    log(
      `| ${r.scenario} | ${fmt(r.messagesPerSecond)} | ${fmt(r.redisCpuUsPerMessage, 1)} | ${fmt(r.serverCommandsPerMessage, 2)} | ${fmt(r.nodeCpuUsPerMessage, 1)} |`,
    );
  }
}

const met = (ok: boolean) => (ok ? 'met' : 'not met');

const worker: BenchSection = {
  name: 'worker',
  title: 'Stream worker: StreamWorker vs the raw processing ceiling vs BullMQ (filled stream, no-op handler)',
  async run({ quick, messages, onFreshServer, log }) {
    const base = { messages, payloadBytes: 100 };
    const rows: ThroughputResult[] = [];
    const add = async <R extends ThroughputResult>(task: (url: string) => Promise<R>): Promise<R> => {
      const row = await onFreshServer(task);
      rows.push(row);
      log(`  ${row.scenario}: ${fmt(row.messagesPerSecond)} entries/s`);
      return row;
    };
    // Warm up the JIT and the client code paths; not reported.
    await onFreshServer((url) => workerThroughput(url, { ...base, messages: Math.min(messages, 5000), consumerCount: 4, batchSize: 16 }));
    await onFreshServer((url) => streamCeiling(url, { ...base, messages: Math.min(messages, 5000), consumerCount: 4, batchSize: 16 }));
    // The ratios' three rows run interleaved, each row its median (the machine's load drifts).
    const rounds = quick ? 1 : 3;
    const runs: ThroughputResult[][] = [[], [], []];
    for (let round = 0; round < rounds; round++) {
      runs[0]!.push(await onFreshServer((url) => streamCeiling(url, { ...base, consumerCount: 1, batchSize: 100 })));
      runs[1]!.push(await onFreshServer((url) => streamCeiling(url, { ...base, consumerCount: 4, batchSize: 16 })));
      runs[2]!.push(await onFreshServer((url) => workerThroughput(url, { ...base, consumerCount: 4, batchSize: 16 })));
    }
    const median = (list: ThroughputResult[]) => [...list].sort((a, b) => a.messagesPerSecond - b.messagesPerSecond)[list.length >> 1]!;
    const [ceiling1, ceiling4, worker416] = runs.map(median) as [ThroughputResult, ThroughputResult, ThroughputResult];
    for (const row of [ceiling1, ceiling4]) rows.push(row);
    log(`  ${rounds} interleaved rounds: ${runs.map((r) => `${r[0]!.scenario} ${r.map((x) => fmt(x.messagesPerSecond)).join(' / ')}`).join('; ')}`);
    const worker11 = await add((url) => workerThroughput(url, { ...base, consumerCount: 1, batchSize: 1, latency: true }));
    for (const [consumerCount, batchSize] of [
      [1, 16],
      [4, 1],
    ] as const)
      await add((url) => workerThroughput(url, { ...base, consumerCount, batchSize }));
    rows.push(worker416);
    const bull = await add((url) =>
      bullmqThroughput(url, { messages: quick ? Math.min(messages, 5000) : messages, payloadBytes: 100, concurrency: 50, mode: 'processing' }),
    );
    log('');
    table(log, rows);
    const ceiling = Math.max(ceiling1.messagesPerSecond, ceiling4.messagesPerSecond);
    const ratios = {
      workerOfCeiling: worker416.messagesPerSecond / ceiling,
      workerOfCeiling1x100: worker416.messagesPerSecond / ceiling1.messagesPerSecond,
      workerOfCeiling4x16: worker416.messagesPerSecond / ceiling4.messagesPerSecond,
      workerOverBullmq: worker416.messagesPerSecond / bull.messagesPerSecond,
    };
    const latency = worker11.ackLatency!;
    log('\n| StreamWorker 4 × 16 | value | goal |');
    log('| --- | ---: | --- |');
    log(
      `| ÷ the raw ceiling (the higher of the two; medians of ${rounds}) | ${fmt(ratios.workerOfCeiling, 2)} (÷ 1 × 100: ${fmt(ratios.workerOfCeiling1x100, 2)}; ÷ 4 × 16: ${fmt(ratios.workerOfCeiling4x16, 2)}) | ≥ 0.5, ${met(ratios.workerOfCeiling >= 0.5)} |`,
    );
    log(`| ÷ BullMQ processing, concurrency 50 | ${fmt(ratios.workerOverBullmq, 1)}× | ≥ 5×, ${met(ratios.workerOverBullmq >= 5)} |`);
    log(`| Redis CPU per entry | ${fmt(worker416.redisCpuUsPerMessage, 1)} µs | ≤ 3 µs, ${met(worker416.redisCpuUsPerMessage <= 3)} |`);
    log(`| server commands per entry | ${fmt(worker416.serverCommandsPerMessage, 2)} | ≤ 0.3, ${met(worker416.serverCommandsPerMessage <= 0.3)} |`);
    log(`| Node CPU per entry | ${fmt(worker416.nodeCpuUsPerMessage, 1)} µs (ceiling 4 × 16: ${fmt(ceiling4.nodeCpuUsPerMessage, 1)} µs) | |`);
    // On 2 shared cores wall-clock rates follow the machine's load; CPU per entry does not.
    const cpu = (r: ThroughputResult) => r.redisCpuUsPerMessage + r.nodeCpuUsPerMessage;
    log(`| Redis + Node CPU per entry | ${fmt(cpu(worker416), 1)} µs (ceilings: ${fmt(cpu(ceiling1), 1)} µs 1 × 100, ${fmt(cpu(ceiling4), 1)} µs 4 × 16) | |`);
    log(`\nStreamWorker 1 × 1 handler-to-ack latency: p50 ${fmt(latency.p50Ms, 3)} ms, p99 ${fmt(latency.p99Ms, 3)} ms over ${fmt(latency.samples)} entries`);
    return { rows, rounds: runs, ratios, ackLatency1x1: latency };
  },
};

const fencing: BenchSection = {
  name: 'fencing',
  title: 'Fencing: Redis CPU of completing reads of 16, one connection, completion written with the next read',
  async run({ quick, onFreshServer, log }) {
    const rounds = quick ? 1 : 3;
    const rows = await onFreshServer((url) => fenceCost(url, quick ? 16_000 : 64_000, 16, 100, rounds));
    table(log, rows);
    const [xack, least, complete] = rows as [ThroughputResult, ThroughputResult, ThroughputResult];
    log(
      `\nRedis CPU per entry (each way's cheapest of ${rounds} rounds): the fence's floor (one XPENDING) adds ${fmt(least.redisCpuUsPerMessage - xack.redisCpuUsPerMessage, 1)} µs, worker-complete ${fmt(complete.redisCpuUsPerMessage - least.redisCpuUsPerMessage, 1)} µs more`,
    );
    return { rows };
  },
};

const telemetry: BenchSection = {
  name: 'telemetry',
  title: 'Telemetry overhead: StreamWorker 4×16 with telemetry off, API without SDK, and with the SDK',
  async run({ quick, messages, onFreshServer, log }) {
    const base = { messages, payloadBytes: 100, consumerCount: 4, batchSize: 16 };
    const run = (label: string, instrumentation?: ReturnType<typeof createStreamWorkerTelemetry>) =>
      onFreshServer((url) => workerThroughput(url, { ...base, label, ...(instrumentation ? { instrumentation } : {}) }));
    const withSdk = async () => {
      const meterProvider = new MeterProvider({
        readers: [new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 1000 })],
      });
      const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new InMemorySpanExporter())] });
      const row = await run('@respire/otel with the SDK (in-memory exporters)', createStreamWorkerTelemetry({ meterProvider, tracerProvider }));
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
      return row;
    };
    metrics.disable();
    trace.disable();
    await run('warm-up');
    // Worker throughput varies from run to run; interleave the three and report each one's median.
    const rounds = quick ? 1 : 3;
    const results: ThroughputResult[][] = [[], [], []];
    for (let round = 0; round < rounds; round++) {
      results[0]!.push(await run('telemetry off'));
      results[1]!.push(await run('@respire/otel, no SDK registered', createStreamWorkerTelemetry()));
      results[2]!.push(await withSdk());
    }
    const median = (rows: ThroughputResult[]) => [...rows].sort((a, b) => a.messagesPerSecond - b.messagesPerSecond)[rows.length >> 1]!;
    const [off, noSdk, sdk] = results.map(median) as [ThroughputResult, ThroughputResult, ThroughputResult];
    table(log, [off, noSdk, sdk]);
    const ratios = { noSdkOfOff: noSdk.messagesPerSecond / off.messagesPerSecond, sdkOfOff: sdk.messagesPerSecond / off.messagesPerSecond };
    log(`\nmedian of ${rounds} interleaved runs each; no SDK ÷ off: ${fmt(ratios.noSdkOfOff, 3)} (goal ≥ 0.97); SDK ÷ off: ${fmt(ratios.sdkOfOff, 3)}`);
    // The end-to-end figure moves ±10% between identical runs, so also time the hooks themselves.
    const hookNs = hookCost(createStreamWorkerTelemetry());
    const perMessageNs = 1e9 / off.messagesPerSecond;
    log(
      `hook cost with no SDK: ${fmt(hookNs)} ns per delivery = ${fmt((100 * hookNs) / perMessageNs, 2)}% of the ${fmt(perMessageNs / 1000, 1)} µs per message with telemetry off`,
    );
    return { rows: results, ratios, hookNsPerDeliveryNoSdk: hookNs };
  },
};

/** ns per startDelivery + end, best of 3 rounds of 200k calls. */
function hookCost(instrumentation: ReturnType<typeof createStreamWorkerTelemetry>): number {
  const start = {
    telemetryName: 'bench',
    stream: '{o}:events',
    destination: '{o}:events',
    group: 'g',
    entryId: '1-1',
    deliveryCount: 1,
    traceParent: undefined,
    traceState: undefined,
  };
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const began = process.hrtime.bigint();
    for (let i = 0; i < 200_000; i++) instrumentation.startDelivery!(start)?.end('ack');
    best = Math.min(best, Number(process.hrtime.bigint() - began) / 200_000);
  }
  instrumentation.dispose();
  return best;
}

const fake: BenchSection = {
  name: 'fake',
  title: 'Fake server: queue-receive script runs per second (10 messages each)',
  async run({ quick, log }) {
    const result = await fakeScriptRate(quick ? 1000 : 5000);
    log(`${fmt(result.perSecond)} runs/s over ${fmt(result.runs)} runs (goal ≥ 10,000)`);
    return result;
  },
};

const history: BenchSection = {
  name: 'history',
  title: "History: what one queue sample costs Redis, and the queue's throughput with samples taken",
  async run({ quick, messages, onFreshServer, log }) {
    const samples = quick ? 2000 : 10_000;
    const backlog = quick ? 10_000 : 100_000;
    const cost = await onFreshServer((url) => historySampleCost(url, samples, backlog));
    log('| per sample (admin-history-queue, a queue of ' + fmt(backlog) + ' messages, a tenth leased) | value |');
    log('| --- | ---: |');
    log(`| Redis CPU | ${fmt(cost.redisCpuUsPerSample, 1)} µs |`);
    log(`| server commands | ${fmt(cost.commandsPerSample, 1)} |`);
    log(`| memory of the history stream | ${fmt(cost.bytesPerSample, 0)} bytes (a day at one per second: ${fmt(cost.mibPerDayAtOneSecond, 1)} MiB) |`);
    // End to end, interleaved rounds, each way its median: no sampler, one sample a second, one every 10 ms.
    const base: QueueRun = { messages, payloadBytes: 100, batch: 100, consumers: 1, ack: 'batch', setting: 'timeout-0', mode: 'end-to-end' };
    const ways: [string, number | undefined][] = [
      ['no history', undefined],
      ['a sample every second', 1000],
      ['a sample every 10 ms', 10],
    ];
    await onFreshServer((url) => queueThroughput(url, { ...base, messages: Math.min(messages, 10_000) }));
    const rounds = quick ? 1 : 3;
    const runs: ThroughputResult[][] = ways.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (const [i, [label, sampleEveryMs]] of ways.entries()) {
        runs[i]!.push(await onFreshServer((url) => queueThroughput(url, { ...base, label, ...(sampleEveryMs === undefined ? {} : { sampleEveryMs }) })));
      }
    }
    const median = (list: ThroughputResult[]) => [...list].sort((a, b) => a.messagesPerSecond - b.messagesPerSecond)[list.length >> 1]!;
    const rows = runs.map(median);
    log('');
    table(log, rows);
    const [off, perSecond, every10] = rows as [ThroughputResult, ThroughputResult, ThroughputResult];
    // One sample a second costs its Redis CPU once a second, shared by the messages of that second.
    const perMessageNs = (1000 * cost.redisCpuUsPerSample) / off.messagesPerSecond;
    log(
      `\nmedian of ${rounds} interleaved runs each; one sample a second at ${fmt(off.messagesPerSecond)} msgs/s: ${fmt(perMessageNs, 2)} ns of Redis CPU per message ` +
        `(${fmt((100 * cost.redisCpuUsPerSample) / (off.redisCpuUsPerMessage * off.messagesPerSecond), 3)}% of the queue's own); ` +
        `throughput ÷ no history: every second ${fmt(perSecond.messagesPerSecond / off.messagesPerSecond, 3)}, every 10 ms ${fmt(every10.messagesPerSecond / off.messagesPerSecond, 3)}`,
    );
    return { sample: cost, rows, rounds: runs, redisCpuNsPerMessageAtOneSamplePerSecond: perMessageNs };
  },
};

export const extraSections: BenchSection[] = [worker, fencing, telemetry, fake, history, groups, groupsNoisy, topic, ...queueFeatureSections, partitions];
