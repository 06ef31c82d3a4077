// A profiling driver for the groups bench's end-to-end run: one grouped (or ungrouped) queue, the producer and one consumer together.
/**
 * Runs the `groups` section's end-to-end scenario (batch 100, ackMany) `rounds` times on one server
 * and prints, per round, messages/s, Redis CPU per message and the server commands per message by
 * name (a script's inner commands count). Usage: `cd tooling/bench && npx tsx
 * --conditions=@respire/source src/profile-e2e.ts [messages] [groups] [rounds]` (default 20,000,
 * 1,000, 2; 0 groups: the ungrouped queue); `REDIS_SERVER=<binary>` picks the server (a server run
 * under callgrind, say) and `SERVER_ARGS` adds to its arguments (`--hash-max-listpack-entries 0`,
 * say, to see what a hash's encoding costs).
 */
import { startRedisServer } from '@respire/harness';
import { connect } from './clients.js';
import { queueThroughput } from './scenarios/queue.js';
import { delta, sampleServer } from './server-stats.js';

const [messages = 20_000, groups = 1000, rounds = 2] = process.argv.slice(2).map(Number);
const binary = process.env.REDIS_SERVER;
const args = process.env.SERVER_ARGS ? process.env.SERVER_ARGS.split(' ') : [];
const server = await startRedisServer(binary ? { binary, args } : { args });
const admin = await connect(server.url, 'timeout-0');
const raw = admin as unknown as { sendCommand(args: string[]): Promise<unknown> };
try {
  for (let round = 0; round < rounds; round++) {
    const before = await sampleServer(raw);
    const r = await queueThroughput(server.url, {
      messages,
      payloadBytes: 100,
      batch: 100,
      consumers: 1,
      ack: 'batch',
      setting: 'timeout-0',
      mode: 'end-to-end',
      ...(groups > 0 ? { groups } : {}),
    });
    const calls = [...delta(before, await sampleServer(raw)).calls].filter(([name]) => name !== 'info').sort((a, b) => b[1] - a[1]);
    console.log(
      `round ${round}: ${r.messagesPerSecond.toFixed(0)} msgs/s, Redis CPU ${r.redisCpuUsPerMessage.toFixed(1)} µs/msg, Node CPU ${r.nodeCpuUsPerMessage.toFixed(1)} µs/msg`,
    );
    console.log(`  commands/message: ${calls.map(([name, n]) => `${name} ${(n / messages).toFixed(2)}`).join(', ')}`);
  }
} finally {
  admin.destroy();
  await server.close();
}
