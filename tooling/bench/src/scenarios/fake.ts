import { createClient } from 'redis';
import { commandTarget, queueKeys, runScript, scripts } from '@respire/core-scripts';
import { FakeRedisServer } from '@respire/testing';

/**
 * The fake server's throughput for our receive script with 10 messages: each run leases 10 new
 * messages (sent beforehand), so every run does the full read-and-lease work.
 */
export async function fakeScriptRate(runs: number): Promise<{ runs: number; seconds: number; perSecond: number }> {
  const server = await FakeRedisServer.start({ clock: { mode: 'virtual' } });
  const client = createClient({ url: server.url, commandOptions: { timeout: 0 } });
  await client.connect();
  try {
    const keys = queueKeys('bench-fake', '');
    const target = commandTarget(client);
    const payload = Buffer.alloc(100, 'x');
    const receive = () =>
      runScript(target, scripts.queueReceive, [keys.stream, keys.deadlines, keys.deadLetter], ['3600000', '10', '5', 'AAAAAAAAAAAAAAAA', 'respire'], { binary: true });
    for (let i = 0; i < runs * 10; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, runs * 10 - i) }, () => client.sendCommand(['XADD', keys.stream, '*', 'payload', payload])));
    }
    await receive();
    // 16 in flight, pipelined: the server's script rate rather than one client's round trips.
    let next = 1;
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next++ < runs) await receive();
    }));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { runs: runs - 1, seconds, perSecond: (runs - 1) / seconds };
  } finally {
    client.destroy();
    await server.close();
  }
}
