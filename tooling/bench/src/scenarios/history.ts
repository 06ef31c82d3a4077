// What keeping history costs: Redis CPU, commands and memory of one queue sample, and queue throughput with a sample every second.
import { randomBytes } from 'node:crypto';
import { scripts } from '@respire/core-scripts/internal';
import { ReliableQueue, bytesCodec } from '@respire/queue';
import { connect, type BenchClient } from '../clients.js';
import { payloadOf } from '../result.js';
import { delta, pooled, sampleServer } from '../server-stats.js';

export interface HistorySampleCost {
  readonly samples: number;
  /** Redis CPU per sample (the admin-history-queue script), µs. */
  readonly redisCpuUsPerSample: number;
  /** Commands the server ran per sample, the script's inner ones included. */
  readonly commandsPerSample: number;
  /** MEMORY USAGE of the history stream ÷ its samples, bytes. */
  readonly bytesPerSample: number;
  /** A day of samples at one per second, one queue, MiB. */
  readonly mibPerDayAtOneSecond: number;
}

const DAY_MS = 86_400_000;

/** The history keys the admin uses for a queue: in the queue's slot, next to its stream. */
export function queueHistoryKeys(streamKey: string): { stream: string; deadlines: string; deadLetter: string; counters: string; history: string } {
  const base = streamKey.slice(0, -'stream'.length);
  return { stream: streamKey, deadlines: `${base}deadlines`, deadLetter: `${base}dead-letter`, counters: `${base}counters`, history: `${base}history` };
}

/** One admin-history-queue run that always records (minimum interval 0), kept a day. */
export function sampleQueue(client: BenchClient, sha: string, streamKey: string): Promise<unknown> {
  const k = queueHistoryKeys(streamKey);
  return client.sendCommand(['EVALSHA', sha, '5', k.stream, k.deadlines, k.deadLetter, k.counters, k.history, '0', String(DAY_MS), '100']);
}

export const loadHistoryScript = async (client: BenchClient) => String(await client.sendCommand(['SCRIPT', 'LOAD', scripts.adminHistoryQueue.source]));

/**
 * A queue with `backlog` messages waiting and a tenth of them leased, sampled `samples` times in a
 * row: what one sample costs the server, and what the samples take in memory.
 */
export async function historySampleCost(url: string, samples: number, backlog: number): Promise<HistorySampleCost> {
  const client = await connect(url, 'timeout-0');
  try {
    const queue = new ReliableQueue(client, `bench-history-${randomBytes(4).toString('hex')}`, { codec: bytesCodec });
    const payload = payloadOf(100);
    await pooled(backlog, 256, () => queue.send(payload));
    for (let leased = 0; leased < Math.floor(backlog / 10); leased += 1000)
      await queue.receive(60_000, { max: Math.min(1000, Math.floor(backlog / 10) - leased) });
    const sha = await loadHistoryScript(client);
    await sampleQueue(client, sha, queue.streamKey);
    const before = await sampleServer(client);
    for (let i = 0; i < samples; i++) await sampleQueue(client, sha, queue.streamKey);
    const d = delta(before, await sampleServer(client));
    const { history } = queueHistoryKeys(queue.streamKey);
    const [length, bytes] = await Promise.all([client.sendCommand(['XLEN', history]), client.sendCommand(['MEMORY', 'USAGE', history, 'SAMPLES', '0'])]);
    const bytesPerSample = Number(bytes) / Number(length);
    return {
      samples,
      // EVALSHA counts once and so does every command inside it.
      redisCpuUsPerSample: d.cpuUs / samples,
      commandsPerSample: d.commandCalls / samples,
      bytesPerSample,
      mibPerDayAtOneSecond: (bytesPerSample * 86_400) / 2 ** 20,
    };
  } finally {
    client.destroy();
  }
}
