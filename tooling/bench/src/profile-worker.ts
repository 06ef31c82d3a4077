// A profiling driver for one StreamWorker scenario of the bench.
/**
 * Profiling driver: one StreamWorker scenario of the bench (scenarios/worker.ts) as a plain script.
 * Usage: `cd tooling/bench && npx tsx --conditions=@respire/source src/profile-worker.ts [messages]
 * [consumerCount] [batchSize]` (default 100,000, 4, 16). `PROFILE=<file>` writes a CPU profile and
 * `HEAP_PROFILE=<file>` sampled allocations of the measured run (after a warm-up run).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { startRedisServer } from '@respire/harness';
import { workerThroughput } from './scenarios/worker.js';

const [messages = 100_000, consumerCount = 4, batchSize = 16] = process.argv.slice(2).map(Number);
const server = await startRedisServer();
try {
  const run = { messages, consumerCount, batchSize, payloadBytes: 100 };
  await workerThroughput(server.url, { ...run, messages: Math.min(messages, 10_000) });
  const cpuFile = process.env['PROFILE'];
  const heapFile = process.env['HEAP_PROFILE'];
  const session = cpuFile || heapFile ? new Session() : undefined;
  session?.connect();
  if (cpuFile) {
    await session!.post('Profiler.enable');
    await session!.post('Profiler.start');
  }
  if (heapFile)
    await session!.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  const row = await workerThroughput(server.url, run);
  if (cpuFile) writeFileSync(cpuFile, JSON.stringify((await session!.post('Profiler.stop')).profile));
  if (heapFile) writeFileSync(heapFile, JSON.stringify((await session!.post('HeapProfiler.stopSampling')).profile));
  const f = (n: number) => n.toFixed(1);
  console.log(
    `${row.scenario}: ${Math.round(row.messagesPerSecond)} entries/s, Redis CPU ${f(row.redisCpuUsPerMessage)} µs, ${row.serverCommandsPerMessage.toFixed(2)} commands, Node CPU ${f(row.nodeCpuUsPerMessage)} µs per entry`,
  );
} finally {
  await server.close();
}
