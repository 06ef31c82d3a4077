// Memory of a grouped queue: used_memory before and after sending, per message, for a few shapes of groups.
/**
 * Sends `messages` (default 100,000) messages of 100 bytes through `send()` into a fresh grouped
 * queue per shape (100,000 groups of one, 10,000 groups of 10, 10 groups of 10,000) and into an
 * ungrouped queue, and prints the server's `used_memory` growth per message.
 * Usage: `cd tooling/bench && npx tsx --conditions=@respire/source src/memory-groups.ts [messages]`;
 * `REDIS_SERVER=<binary>` picks the server.
 */
import { startRedisServer } from '@respire/harness';
import { ReliableQueue, bytesCodec } from '@respire/queue';
import { connect } from './clients.js';
import { pooled } from './server-stats.js';

const [messages = 100_000] = process.argv.slice(2).map(Number);
const binary = process.env.REDIS_SERVER;
const server = await startRedisServer(binary ? { binary } : {});
const client = await connect(server.url, 'timeout-0');
const raw = client as unknown as { sendCommand(args: string[]): Promise<unknown> };
const usedMemory = async () => Number(/^used_memory:(\d+)/m.exec(String(await raw.sendCommand(['INFO', 'memory'])))?.[1]);
const payload = Buffer.alloc(100, 7);
try {
  for (const groups of [0, messages, messages / 10, 10]) {
    await raw.sendCommand(['FLUSHALL']);
    const queue = new ReliableQueue(client, `memory-${groups}`, { codec: bytesCodec, ...(groups === 0 ? {} : { groups: {} }) });
    const before = await usedMemory();
    await pooled(messages, 256, groups === 0 ? () => queue.send(payload) : (i) => queue.send(payload, { groupId: `g${i % groups}` }));
    const perMessage = ((await usedMemory()) - before) / messages;
    console.log(
      `${groups === 0 ? 'ungrouped' : `${groups.toLocaleString('en-US')} groups of ${(messages / groups).toLocaleString('en-US')}`}: ${perMessage.toFixed(0)} bytes a message`,
    );
  }
} finally {
  client.destroy();
  await server.close();
}
