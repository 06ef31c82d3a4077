// A profiling driver for the grouped queue: where a grouped message's Redis CPU goes, per phase.
/**
 * Sends `messages` messages over `groups` groups (0: the ungrouped queue) with pipelined `send()`s,
 * then drains them with receive (max 100) and ackMany, and prints per phase (send; receive; ACK)
 * the Redis CPU per message (INFO cpu around each call, the INFO's own cost left out) and the
 * server commands per message by name (INFO commandstats deltas: a script's inner commands count).
 * Usage: `cd tooling/bench && npx tsx --conditions=@respire/source src/profile-groups.ts
 * [messages] [groups] [rounds]` (default 20,000, 1,000, 3; the first round warms up and is not
 * printed); `REDIS_SERVER=<binary>` picks the server; `NOISY=<n>` sends the first n messages to one group.
 */
import { startRedisServer } from '@respire/harness';
import { ReliableQueue, bytesCodec } from '@respire/queue';
import { connect } from './clients.js';
import { delta, pooled, sampleServer, type ServerSample } from './server-stats.js';

const [messages = 20_000, groups = 1000, rounds = 3] = process.argv.slice(2).map(Number);
const binary = process.env.REDIS_SERVER;
// NOISY=n: the first n messages go to one group (a backlog far behind the others' heads).
const noisy = Number(process.env.NOISY ?? 0);
const server = await startRedisServer(binary ? { binary } : {});
const client = await connect(server.url, 'timeout-0');
const raw = client as unknown as { sendCommand(args: string[]): Promise<unknown> };
const cpuUs = async () => {
  const info = String(await raw.sendCommand(['INFO', 'cpu']));
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
};
const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1] ?? Number.NaN;
const perMessage = (calls: ReadonlyMap<string, number>) =>
  [...calls]
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${(n / messages).toFixed(2)}`)
    .join(', ');
const payload = Buffer.alloc(100, 'x');

try {
  // The cost of the INFO cpu pair itself, taken off every measured call.
  const probes: number[] = [];
  for (let i = 0; i < 50; i++) probes.push(-(await cpuUs()) + (await cpuUs()));
  const probeUs = median(probes);
  for (let round = 0; round < rounds; round++) {
    const queue = new ReliableQueue(client, `profile-${round}`, { codec: bytesCodec, ...(groups > 0 ? { groups: {} } : {}) });
    let before: ServerSample = await sampleServer(raw);
    let c0 = await cpuUs();
    await pooled(messages, 256, (i) => (groups > 0 ? queue.send(payload, { groupId: i < noisy ? 'noisy' : `g${i % groups}` }) : queue.send(payload)));
    const sendUs = (await cpuUs()) - c0 - probeUs;
    const sendCalls = delta(before, await sampleServer(raw)).calls;
    before = await sampleServer(raw);
    let receiveUs = 0;
    let ackUs = 0;
    let acked = 0;
    while (acked < messages) {
      c0 = await cpuUs();
      const batch = await queue.receive(60_000, { max: 100 });
      const c1 = await cpuUs();
      if (batch.length > 0) acked += (await queue.ackMany(batch)).filter(Boolean).length;
      const c2 = await cpuUs();
      receiveUs += c1 - c0 - probeUs;
      ackUs += c2 - c1 - probeUs;
    }
    const drainCalls = delta(before, await sampleServer(raw)).calls;
    drainCalls.delete('info');
    sendCalls.delete('info');
    if (round === 0) continue;
    const us = (n: number) => (n / messages).toFixed(2);
    console.log(
      `round ${round}, ${groups > 0 ? `${groups} groups` : 'ungrouped'}: Redis CPU µs/message: send ${us(sendUs)}, receive ${us(receiveUs)}, ACK ${us(ackUs)}`,
    );
    console.log(`  send commands/message: ${perMessage(sendCalls)}`);
    console.log(`  receive + ACK commands/message: ${perMessage(drainCalls)}`);
  }
} finally {
  client.destroy();
  await server.close();
}
