// The fake-server scenario of the bench: queue-receive runs per second.
import { createClient } from 'redis';
import { commandTarget, queueKeys, scriptCalls } from '@respire/core-scripts/internal';
import { FakeRedisServer } from '@respire/testing';

/** A fake server filled for `runs` receive calls of 10 messages each, and the call itself. */
export interface FakeReceive {
  receive(): Promise<unknown>;
  close(): Promise<void>;
}

/** Starts a fake server (virtual clock) and sends `runs` × 10 messages of 100 bytes beforehand. */
export async function prepareFakeReceive(runs: number): Promise<FakeReceive> {
  const server = await FakeRedisServer.start({ clock: { mode: 'virtual' } });
  const client = createClient({ url: server.url, commandOptions: { timeout: 0 } });
  await client.connect();
  const keys = queueKeys('bench-fake', '');
  const target = commandTarget(client);
  const payload = Buffer.alloc(100, 'x');
  const args = {
    stream: keys.stream,
    deadlines: keys.deadlines,
    deadLetter: keys.deadLetter,
    visibilityTimeoutMs: 3_600_000,
    max: 10,
    deliveryLimit: 5,
    token: 'AAAAAAAAAAAAAAAA',
    group: 'respire',
  };
  for (let i = 0; i < runs * 10; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, runs * 10 - i) }, () => client.sendCommand(['XADD', keys.stream, '*', 'payload', payload])));
  }
  return {
    receive: () => scriptCalls.queueReceive(target, args),
    close: async () => {
      client.destroy();
      await server.close();
    },
  };
}

/** Runs `receive` `runs` - 1 times, 16 in flight (the server's script rate, not one client's round trips); seconds taken. */
export async function pipelined(receive: () => Promise<unknown>, runs: number): Promise<number> {
  let next = 1;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next++ < runs) await receive();
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * The fake server's throughput for our receive script with 10 messages: each run leases 10 new
 * messages (sent beforehand), so every run does the full read-and-lease work.
 */
export async function fakeScriptRate(runs: number): Promise<{ runs: number; seconds: number; perSecond: number }> {
  const fake = await prepareFakeReceive(runs);
  try {
    await fake.receive();
    const seconds = await pipelined(fake.receive, runs);
    return { runs: runs - 1, seconds, perSecond: (runs - 1) / seconds };
  } finally {
    await fake.close();
  }
}
