// The bench's sections for the queue's hosted consumer, batch sends and waiting receive (issue 19's figures), and the queue figures they must not regress.
import type { ThroughputResult } from './result.js';
import { consumeThroughput, type ConsumeRun } from './scenarios/consume.js';
import { memory } from './scenarios/memory.js';
import { queueThroughput, type QueueRun } from './scenarios/queue.js';
import { rawThroughput } from './scenarios/raw.js';
import { sendManyThroughput, type SendManyRun } from './scenarios/send-many.js';
import { idleCost, wakeLatency } from './scenarios/waiting.js';

/** What a section needs of the bench (sections.ts's SectionContext, without importing it back). */
interface Context {
  quick: boolean;
  messages: number;
  onFreshServer<T>(task: (url: string) => Promise<T>): Promise<T>;
  log(line?: string): void;
}

/** The README's figures (root README, "Benchmarks") these sections check for a regression of more than 10%. */
const README_REDIS_CPU_US_PER_MESSAGE_BATCH_100 = 9.4;
const README_BYTES_PER_WAITING_MESSAGE = 115;
/** The raw ceiling's Redis CPU per message in the same README row: the machine's load moves both. */
const README_RAW_REDIS_CPU_US_PER_MESSAGE = 3.7;

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const met = (ok: boolean) => (ok ? 'met' : 'not met');
const median = (list: ThroughputResult[]) => [...list].sort((a, b) => a.messagesPerSecond - b.messagesPerSecond)[list.length >> 1]!;

function table(log: (line?: string) => void, rows: ThroughputResult[]): void {
  log('| scenario | msgs/s | Redis CPU µs/msg | server cmds/msg | Node CPU µs/msg |');
  log('| --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    log(
      `| ${r.scenario} | ${fmt(r.messagesPerSecond)} | ${fmt(r.redisCpuUsPerMessage, 1)} | ${fmt(r.serverCommandsPerMessage, 2)} | ${fmt(r.nodeCpuUsPerMessage, 1)} |`,
    );
  }
}

/** Runs `ways` interleaved for `rounds` rounds, each on a fresh server; each way's median by messages/s. */
async function interleaved<W>(context: Context, ways: W[], run: (url: string, way: W) => Promise<ThroughputResult>, rounds: number) {
  const runs: ThroughputResult[][] = ways.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, way] of ways.entries()) runs[i]!.push(await context.onFreshServer((url) => run(url, way)));
  }
  return { medians: runs.map(median), runs };
}

const consume = {
  name: 'consume',
  title: 'consume() ÷ a hand-written receive + ackMany loop (concurrency 64, no-op handler, draining a filled queue)',
  async run(context: Context) {
    const { quick, messages, onFreshServer, log } = context;
    const base = { messages, payloadBytes: 100, concurrency: 64 };
    const ways: ConsumeRun[] = [
      { ...base, way: 'loop' },
      { ...base, way: 'loop-overlapped' },
      { ...base, way: 'consume' },
    ];
    // Warm up the JIT and the client code paths; not reported.
    for (const way of ways) await onFreshServer((url) => consumeThroughput(url, { ...way, messages: Math.min(messages, 10_000) }));
    // The machine's load moves a run by ±40% here: five rounds, and the ratio of each round's
    // runs (run one after the other) rather than of the medians.
    const rounds = quick ? 1 : 5;
    const { medians, runs } = await interleaved(context, ways, consumeThroughput, rounds);
    table(log, medians);
    const perRound = (of: number) => runs[2]!.map((row, round) => row.messagesPerSecond / runs[of]![round]!.messagesPerSecond).sort((a, b) => a - b);
    const ratios = perRound(0);
    const ratiosOverlapped = perRound(1);
    const ratio = ratios[ratios.length >> 1]!;
    const ratioOverlapped = ratiosOverlapped[ratiosOverlapped.length >> 1]!;
    const cpu = (r: ThroughputResult) => r.redisCpuUsPerMessage + r.nodeCpuUsPerMessage;
    const [loop, , consumer] = medians as [ThroughputResult, ThroughputResult, ThroughputResult];
    log(
      `\nconsume() ÷ hand-written loop, median of ${rounds} rounds' ratios: ${fmt(ratio, 2)} (each round: ${ratios.map((r) => fmt(r, 2)).join(', ')}) (goal ≥ 0.9, ${met(ratio >= 0.9)})`,
    );
    log(
      `consume() ÷ the loop that sends each ackMany with the next receive: ${fmt(ratioOverlapped, 2)} (${ratiosOverlapped.map((r) => fmt(r, 2)).join(', ')})`,
    );
    log(`Redis + Node CPU per message (medians' runs): consume() ${fmt(cpu(consumer), 1)} µs, hand-written loop ${fmt(cpu(loop), 1)} µs`);
    return { rows: medians, rounds: runs, ratio, ratios, ratioOverlapped, ratiosOverlapped };
  },
};

const sendMany = {
  name: 'send-many',
  title: 'sendMany of 100 ÷ 100 pipelined send()s (one step awaited at a time)',
  async run(context: Context) {
    const { quick, messages, onFreshServer, log } = context;
    const base = { messages, payloadBytes: 100, batch: 100 };
    const ways: SendManyRun[] = [
      { ...base, way: 'send' },
      { ...base, way: 'sendMany' },
    ];
    for (const way of ways) await onFreshServer((url) => sendManyThroughput(url, { ...way, messages: Math.min(messages, 10_000) }));
    const rounds = quick ? 1 : 3;
    const { medians, runs } = await interleaved(context, ways, sendManyThroughput, rounds);
    const [pipelined, batched] = medians as [ThroughputResult, ThroughputResult];
    table(log, medians);
    const ratio = batched.messagesPerSecond / pipelined.messagesPerSecond;
    log(
      `\nmedian of ${rounds} interleaved runs each; sendMany ÷ pipelined send: ${fmt(ratio, 2)}× messages/s (goal ≥ 2×, ${met(ratio >= 2)}); ` +
        `Redis CPU per message ${fmt(batched.redisCpuUsPerMessage, 1)} µs vs ${fmt(pipelined.redisCpuUsPerMessage, 1)} µs`,
    );
    return { rows: medians, rounds: runs, ratio };
  },
};

const waiting = {
  name: 'waiting-receive',
  title: 'Waiting receive on an idle queue: send-to-handler latency of consume(), and what idle waiters cost the server',
  async run({ quick, onFreshServer, log }: Context) {
    const samples = quick ? 200 : 1000;
    const latency = await onFreshServer((url) => wakeLatency(url, samples, 10));
    log(
      `send → handler (a consumer blocked on an idle queue, one send every 10 ms from another connection, ${fmt(samples)} samples): ` +
        `p50 ${fmt(latency.p50Ms, 3)} ms, p99 ${fmt(latency.p99Ms, 3)} ms, max ${fmt(latency.maxMs, 3)} ms (goal p50 ≤ 2 ms, ${met(latency.p50Ms <= 2)})`,
    );
    // Whole 20 s waits: a shorter window would count a wait's renewal or not by chance.
    const waiters = 10;
    const seconds = quick ? 20 : 40;
    const cost = await onFreshServer((url) => idleCost(url, waiters, seconds));
    log(
      `${waiters} idle consumers over ${seconds} s: ${fmt(cost.commandsPerSecondPerWaiter, 2)} server commands per second per waiter, scripts' inner commands included ` +
        `(goal ≤ 2, ${met(cost.commandsPerSecondPerWaiter <= 2)}); sent by the waiter: ${fmt(cost.sentPerSecondPerWaiter, 2)} per second`,
    );
    log(
      `commands in the window: ${Object.entries(cost.calls)
        .map(([command, calls]) => `${command} ${calls}`)
        .join(', ')}`,
    );
    return { latency, idle: cost };
  },
};

const regression = {
  name: 'queue-regression',
  title: "The queue's Redis CPU per message (batch 100 + ackMany, end to end) and memory per waiting message against the README's figures",
  async run({ quick, messages, onFreshServer, log }: Context) {
    const base: QueueRun = { messages, payloadBytes: 100, batch: 100, consumers: 1, ack: 'batch', setting: 'timeout-0', mode: 'end-to-end' };
    await onFreshServer((url) => queueThroughput(url, { ...base, messages: Math.min(messages, 10_000) }));
    const rounds = quick ? 1 : 3;
    const rows: ThroughputResult[] = [];
    const rawRows: ThroughputResult[] = [];
    for (let round = 0; round < rounds; round++) {
      rows.push(await onFreshServer((url) => queueThroughput(url, base)));
      rawRows.push(
        await onFreshServer((url) => rawThroughput(url, { messages, payloadBytes: 100, batch: 100, consumers: 1, setting: 'timeout-0', mode: 'end-to-end' })),
      );
    }
    // CPU per message is what is compared: the median of the rounds by it.
    const medianCpu = (list: ThroughputResult[]) =>
      [...list].sort((a, b) => a.redisCpuUsPerMessage - b.redisCpuUsPerMessage)[list.length >> 1]!.redisCpuUsPerMessage;
    const cpu = medianCpu(rows);
    const rawCpu = medianCpu(rawRows);
    const perRaw = cpu / rawCpu;
    const readmePerRaw = README_REDIS_CPU_US_PER_MESSAGE_BATCH_100 / README_RAW_REDIS_CPU_US_PER_MESSAGE;
    const m = await onFreshServer((url) => memory(url, messages, 100));
    const cpuRatio = cpu / README_REDIS_CPU_US_PER_MESSAGE_BATCH_100;
    const memoryRatio = m.perWaiting / README_BYTES_PER_WAITING_MESSAGE;
    log('| figure | now | README | now ÷ README | goal |');
    log('| --- | ---: | ---: | ---: | --- |');
    log(
      `| Redis CPU per message, batch 100 + ackMany (median of ${rounds}) | ${fmt(cpu, 1)} µs | ${fmt(README_REDIS_CPU_US_PER_MESSAGE_BATCH_100, 1)} µs | ${fmt(cpuRatio, 2)} | ≤ 1.10, ${met(cpuRatio <= 1.1)} |`,
    );
    log(
      `| the same ÷ the raw ceiling's in the same run (raw: ${fmt(rawCpu, 1)} µs now, ${fmt(README_RAW_REDIS_CPU_US_PER_MESSAGE, 1)} µs in the README) | ${fmt(perRaw, 2)} | ${fmt(readmePerRaw, 2)} | ${fmt(perRaw / readmePerRaw, 2)} | ≤ 1.10, ${met(perRaw / readmePerRaw <= 1.1)} |`,
    );
    log(
      `| used_memory per waiting message | ${fmt(m.perWaiting, 1)} B | ${fmt(README_BYTES_PER_WAITING_MESSAGE)} B | ${fmt(memoryRatio, 2)} | ≤ 1.10, ${met(memoryRatio <= 1.1)} |`,
    );
    return {
      rows,
      rawRows,
      redisCpuUsPerMessage: cpu,
      rawRedisCpuUsPerMessage: rawCpu,
      memory: m,
      cpuRatio,
      cpuPerRawRatio: perRaw / readmePerRaw,
      memoryRatio,
    };
  },
};

/** The sections, in the order they run. */
export const queueFeatureSections = [consume, sendMany, waiting, regression];
