// The bench's reliable-topic section: deliveries through 4 subscriptions against the same number through one queue, and memory per retained publication.
import type { ThroughputResult } from './result.js';
import { topicMemory, topicThroughput } from './scenarios/topic.js';

/** What the section needs of the bench (sections.ts's SectionContext, without importing it back). */
interface TopicContext {
  quick: boolean;
  messages: number;
  onFreshServer<T>(task: (url: string) => Promise<T>): Promise<T>;
  log(line?: string): void;
}

const SUBSCRIPTIONS = 4;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const median = (list: ThroughputResult[]) => [...list].sort((a, b) => a.messagesPerSecond - b.messagesPerSecond)[list.length >> 1]!;

/**
 * Publish + 4 subscriptions each consuming with batch 100 + ackMany, in deliveries/s, ÷ the same
 * number of deliveries through one queue (4 consumers, batch 100 + ackMany), both timed over
 * filling and draining (scenarios/topic.ts says why); the bar is 0.8.
 * Memory per retained publication with 4 subscriptions ÷ with 1; the bar is 1.5.
 */
export const topic = {
  name: 'topic',
  title: 'Reliable topic: publish + 4 subscriptions (batch 100 + ackMany) ÷ the same deliveries through one queue; memory per retained publication',
  async run({ quick, messages, onFreshServer, log }: TopicContext) {
    const publications = Math.max(1000, Math.floor(messages / SUBSCRIPTIONS));
    // Warm up both paths; not reported.
    for (const kind of ['topic', 'queue'] as const) await onFreshServer((url) => topicThroughput(url, kind, Math.min(publications, 2500), SUBSCRIPTIONS, 100));
    const rounds = quick ? 1 : 3;
    const runs: ThroughputResult[][] = [[], []];
    for (let round = 0; round < rounds; round++) {
      runs[0]!.push(await onFreshServer((url) => topicThroughput(url, 'queue', publications, SUBSCRIPTIONS, 100)));
      runs[1]!.push(await onFreshServer((url) => topicThroughput(url, 'topic', publications, SUBSCRIPTIONS, 100)));
    }
    const [queue, topicRow] = runs.map(median) as [ThroughputResult, ThroughputResult];
    log('| scenario | deliveries/s | Redis CPU µs/delivery | server cmds/delivery | Node CPU µs/delivery |');
    log('| --- | ---: | ---: | ---: | ---: |');
    for (const r of [queue, topicRow]) {
      log(
        `| ${r.scenario} | ${fmt(r.messagesPerSecond)} | ${fmt(r.redisCpuUsPerMessage, 1)} | ${fmt(r.serverCommandsPerMessage, 2)} | ${fmt(r.nodeCpuUsPerMessage, 1)} |`,
      );
    }
    const ratio = topicRow.messagesPerSecond / queue.messagesPerSecond;
    log(`\nmedian of ${rounds} interleaved runs each; topic ÷ queue deliveries/s: ${fmt(ratio, 2)} (bar 0.8: ${ratio >= 0.8 ? 'met' : 'not met'})`);
    const retained = quick ? 20_000 : 100_000;
    const one = await onFreshServer((url) => topicMemory(url, retained, 1, 100));
    const four = await onFreshServer((url) => topicMemory(url, retained, SUBSCRIPTIONS, 100));
    const memoryRatio = four / one;
    log(
      `memory per retained publication (100-byte payload, ${fmt(retained)} publications): 1 subscription ${fmt(one)} B, ` +
        `4 subscriptions ${fmt(four)} B; ratio ${fmt(memoryRatio, 2)} (bar 1.5: ${memoryRatio <= 1.5 ? 'met' : 'not met'})`,
    );
    return { rows: [queue, topicRow], rounds: runs, ratio, memory: { one, four, ratio: memoryRatio } };
  },
};
