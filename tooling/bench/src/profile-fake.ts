// A profiling driver for the bench's fake-server scenario.
/**
 * Profiling driver: the bench's fake-server scenario (scenarios/fake.ts) as a plain script.
 * Usage: `cd tooling/bench && npx tsx --conditions=@respire/source src/profile-fake.ts [runs]`
 * (default 10,000). `PROFILE=<file>` writes a CPU profile and `HEAP_PROFILE=<file>` sampled
 * allocations of the measured phase only (no start-up, no XADD fill).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { pipelined, prepareFakeReceive } from './scenarios/fake.js';

const runs = Number(process.argv[2] ?? 10_000);
const fake = await prepareFakeReceive(runs);
await fake.receive();
const session = process.env['PROFILE'] || process.env['HEAP_PROFILE'] ? new Session() : undefined;
if (session) session.connect();
if (process.env['PROFILE']) {
  await session!.post('Profiler.enable');
  await session!.post('Profiler.start');
}
if (process.env['HEAP_PROFILE'])
  await session!.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
const cpu = process.cpuUsage();
const seconds = await pipelined(fake.receive, runs);
const used = process.cpuUsage(cpu);
if (process.env['PROFILE']) writeFileSync(process.env['PROFILE'], JSON.stringify((await session!.post('Profiler.stop')).profile));
if (process.env['HEAP_PROFILE']) writeFileSync(process.env['HEAP_PROFILE'], JSON.stringify((await session!.post('HeapProfiler.stopSampling')).profile));
// CPU µs per run is steadier than runs/s on a busy machine (this process's user + system time).
const cpuUs = (used.user + used.system) / (runs - 1);
console.log(`${Math.round((runs - 1) / seconds)} runs/s over ${runs - 1} runs (${seconds.toFixed(2)} s), ${cpuUs.toFixed(0)} µs CPU per run`);
await fake.close();
