// The bench's message-groups section: a grouped queue's throughput against the ungrouped queue's.
import type { ThroughputResult } from './result.js';
import { queueThroughput, type QueueRun } from './scenarios/queue.js';

/** What the section needs of the bench (sections.ts's SectionContext, without importing it back). */
interface GroupsContext {
  quick: boolean;
  messages: number;
  onFreshServer<T>(task: (url: string) => Promise<T>): Promise<T>;
  log(line?: string): void;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Grouped (1,000 groups) ÷ ungrouped, end to end, batch 100 with ackMany; the bar is 0.7. */
export const groups = {
  name: 'groups',
  title: 'Message groups: a grouped queue (1,000 groups) ÷ the ungrouped queue, end to end, batch 100 + ackMany',
  async run({ quick, messages, onFreshServer, log }: GroupsContext) {
    const base: QueueRun = { messages, payloadBytes: 100, batch: 100, consumers: 1, ack: 'batch', setting: 'timeout-0', mode: 'end-to-end' };
    const ways: QueueRun[] = [base, { ...base, groups: 1000, label: '1,000 groups' }];
    // Warm up the JIT and both scripts' paths; not reported.
    for (const way of ways) await onFreshServer((url) => queueThroughput(url, { ...way, messages: Math.min(messages, 10_000) }));
    const rounds = quick ? 1 : 3;
    const runs: ThroughputResult[][] = ways.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (const [i, way] of ways.entries()) runs[i]!.push(await onFreshServer((url) => queueThroughput(url, way)));
    }
    const median = (list: ThroughputResult[]) => [...list].sort((a, b) => a.messagesPerSecond - b.messagesPerSecond)[list.length >> 1]!;
    const [ungrouped, grouped] = runs.map(median) as [ThroughputResult, ThroughputResult];
    log('| scenario | msgs/s | Redis CPU µs/msg | server cmds/msg | Node CPU µs/msg |');
    log('| --- | ---: | ---: | ---: | ---: |');
    for (const r of [ungrouped, grouped]) {
      log(
        `| ${r.scenario} | ${fmt(r.messagesPerSecond)} | ${fmt(r.redisCpuUsPerMessage, 1)} | ${fmt(r.serverCommandsPerMessage, 2)} | ${fmt(r.nodeCpuUsPerMessage, 1)} |`,
      );
    }
    const ratio = grouped.messagesPerSecond / ungrouped.messagesPerSecond;
    log(`\nmedian of ${rounds} interleaved runs each; grouped ÷ ungrouped: ${fmt(ratio, 2)} (bar 0.7: ${ratio >= 0.7 ? 'met' : 'not met'})`);
    return { rows: [ungrouped, grouped], rounds: runs, ratio };
  },
};
