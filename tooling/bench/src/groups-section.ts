// The bench's message-groups sections: a grouped queue's throughput against the ungrouped queue's, and the noisy neighbour.
import type { ThroughputResult } from './result.js';
import { noisyNeighbour, type NoisyResult, type NoisyRun } from './scenarios/noisy-neighbour.js';
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

/** p99 wait of 100 quiet groups' messages beside one group with a large backlog ÷ without it; the issue's bar is 2. */
export const groupsNoisy = {
  name: 'groups-noisy',
  title: 'Message groups, noisy neighbour: p99 wait of 100 quiet groups × 10 messages beside one group with a backlog ÷ without it, max 100',
  async run({ quick, onFreshServer, log }: GroupsContext) {
    const backlog = quick ? 10_000 : 100_000;
    const base: NoisyRun = { noisyBacklog: 0, quietGroups: 100, perQuietGroup: 10, max: 100 };
    const ways: NoisyRun[] = [base, { ...base, noisyBacklog: backlog }];
    // Warm up (not reported).
    for (const way of ways) await onFreshServer((url) => noisyNeighbour(url, { ...way, noisyBacklog: Math.min(way.noisyBacklog, 1000) }));
    const rounds = quick ? 3 : 5;
    const runs: NoisyResult[][] = ways.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (const [i, way] of ways.entries()) runs[i]!.push(await onFreshServer((url) => noisyNeighbour(url, way)));
    }
    const median = (list: NoisyResult[], key: 'p50Ms' | 'p99Ms' | 'maxMs' | 'receives') =>
      [...list].map((r) => r[key]).sort((a, b) => a - b)[list.length >> 1]!;
    log('| noisy group backlog | quiet wait p50 ms | p99 ms | max ms | receives until all quiet delivered |');
    log('| ---: | ---: | ---: | ---: | ---: |');
    for (const list of runs) {
      log(
        `| ${fmt(list[0]!.noisyBacklog)} | ${fmt(median(list, 'p50Ms'), 2)} | ${fmt(median(list, 'p99Ms'), 2)} | ${fmt(median(list, 'maxMs'), 2)} | ${fmt(median(list, 'receives'))} |`,
      );
    }
    const [quiet, noisy] = runs.map((list) => median(list, 'p99Ms')) as [number, number];
    const ratio = noisy / quiet;
    log(`\nmedians of ${rounds} interleaved runs each; p99 with ÷ without the noisy group: ${fmt(ratio, 2)} (bar 2: ${ratio <= 2 ? 'met' : 'not met'})`);
    return { backlog, rounds: runs, p99Ms: { quiet, noisy }, ratio };
  },
};
