/**
 * Profiling driver: the bench's fake-server scenario (tooling/bench/src/scenarios/fake.ts) as a
 * plain script, so `node --cpu-prof --conditions=@respire/source --import tsx` can profile it.
 * Usage (tsx lives in tooling/bench): `cd tooling/bench && npx tsx --conditions=@respire/source
 * ../../packages/testing/bench/receive-rate.ts [runs]` (default 10,000).
 * With `PROFILE=<file>` only the measured phase is profiled (no start-up, no XADD fill).
 */
import { commandTarget, queueKeys, runScript, scripts } from '@respire/core-scripts';
import { createClient } from 'redis';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { FakeRedisServer } from '../src/index.js';

const runs = Number(process.argv[2] ?? 10_000);
const server = await FakeRedisServer.start({ clock: { mode: 'virtual' } });
const client = createClient({ url: server.url, commandOptions: { timeout: 0 } });
await client.connect();
const keys = queueKeys('bench-fake', '');
const target = commandTarget(client);
const payload = Buffer.alloc(100, 'x');
const receive = () =>
  runScript(target, scripts.queueReceive, [keys.stream, keys.deadlines, keys.deadLetter], ['3600000', '10', '5', 'AAAAAAAAAAAAAAAA', 'respire'], { binary: true });
for (let i = 0; i < runs * 10; i += 500) {
  await Promise.all(Array.from({ length: Math.min(500, runs * 10 - i) }, () => client.sendCommand(['XADD', keys.stream, '*', 'payload', payload])));
}
await receive();
// PROFILE=<file>: CPU profile of the measured phase; HEAP_PROFILE=<file>: sampled allocations.
const session = process.env['PROFILE'] || process.env['HEAP_PROFILE'] ? new Session() : undefined;
if (session) session.connect();
if (process.env['PROFILE']) {
  await session!.post('Profiler.enable');
  await session!.post('Profiler.start');
}
if (process.env['HEAP_PROFILE']) await session!.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
let next = 1;
const cpu = process.cpuUsage();
const started = process.hrtime.bigint();
await Promise.all(Array.from({ length: 16 }, async () => {
  while (next++ < runs) await receive();
}));
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const used = process.cpuUsage(cpu);
if (process.env['PROFILE']) writeFileSync(process.env['PROFILE'], JSON.stringify((await session!.post('Profiler.stop')).profile));
if (process.env['HEAP_PROFILE']) writeFileSync(process.env['HEAP_PROFILE'], JSON.stringify((await session!.post('HeapProfiler.stopSampling')).profile));
// CPU µs per run is steadier than runs/s on a busy machine (this process's user + system time).
const cpuUs = (used.user + used.system) / (runs - 1);
console.log(`${Math.round((runs - 1) / seconds)} runs/s over ${runs - 1} runs (${seconds.toFixed(2)} s), ${cpuUs.toFixed(0)} µs CPU per run`);
client.destroy();
await server.close();
