// The Lua side of the fake server alone: how fast fengari runs queue-receive with canned replies.
/**
 * The Lua side alone: queue-receive in the fake's LuaRuntime with an engine stub that answers
 * every redis.call with a canned reply (no data structures, no sockets). Its rate is the ceiling
 * fengari leaves for the whole server. Run like tooling/bench/src/profile-fake.ts: `cd tooling/bench && npx tsx
 * --conditions=@respire/source ../../packages/testing/bench/lua-floor.ts [runs]`.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { scripts } from '@respire/core-scripts/internal';
import type { ClientState, Engine } from '../src/engine.js';
import { LuaRuntime } from '../src/lua/runtime.js';
import { StatusReply, type Reply } from '../src/reply.js';
import { serverModel } from '../src/versions.js';

const runs = Number(process.argv[2] ?? 20_000);
const entries: Reply[] = Array.from({ length: 10 }, (_, i) => [`1764486806000-${i}`, ['payload', 'x'.repeat(100)]]);
const canned: Record<string, Reply> = {
  TIME: ['1764486806', '123456'],
  ZRANGEBYSCORE: [],
  XREADGROUP: [['s', entries]],
  ZADD: 10,
  HSET: 10,
};
const lookup = { name: 'x', arity: -1, flags: [], categories: [], keys: () => [], handler: () => null };
const engine = {
  model: serverModel('redis', '7.0'),
  callFromScript: (_client: ClientState, args: string[]) => {
    const name = args[0]!.toUpperCase();
    if (name === 'TYPE') return new StatusReply(({ s: 'stream', d: 'zset', m: 'hash' } as Record<string, string>)[args[1]!] ?? 'none');
    return canned[name] ?? null;
  },
  lookup: () => lookup,
  resolve: () => lookup,
  acl: { denial: () => undefined },
  scriptLog: [],
} as unknown as Engine;
const runtime = new LuaRuntime(engine, { timeLimitMs: 5000 });
const sha = runtime.load(scripts.queueReceive.source);
const client = { user: {} } as unknown as ClientState;
const keys = ['s', 'd', 'm', 'dl'];
const args = ['3600000', '10', '5', 'AAAAAAAAAAAAAAAA', 'respire'];
console.log(JSON.stringify(runtime.run(client, sha, '', keys, args, false)).slice(0, 200));
for (let i = 0; i < 2000; i++) runtime.run(client, sha, '', keys, args, false);
const session = process.env['PROFILE'] ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const cpu = process.cpuUsage();
for (let i = 0; i < runs; i++) runtime.run(client, sha, '', keys, args, false);
const used = process.cpuUsage(cpu);
if (session) writeFileSync(process.env['PROFILE']!, JSON.stringify((await session.post('Profiler.stop')).profile));
console.log(`${((used.user + used.system) / runs).toFixed(1)} µs CPU per run, Lua side only`);
