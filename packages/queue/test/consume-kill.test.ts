// consume() under a SIGKILL of its process loses nothing: another consumer gets every unfinished message after its lease.
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually, spawnTypeScriptChild, startRedisServer, uniqueName, type RedisServerHandle } from '@respire/harness';
import { queueKeys } from '@respire/core-scripts/internal';
import { ReliableQueue, utf8Codec, type QueueConsumer } from '@respire/queue';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

let server: RedisServerHandle;
let client: ReturnType<typeof createClient>;
beforeAll(async () => {
  server = await startRedisServer();
  client = createClient({ url: server.url });
  client.on('error', () => {});
  await client.connect();
});
afterAll(async () => {
  client?.destroy();
  await server?.close();
});

it('a consumer killed with SIGKILL loses nothing: every unfinished message is redelivered after its lease', async () => {
  const name = uniqueName();
  const queue = new ReliableQueue(client as never, name, { codec: utf8Codec });
  const payloads = Array.from({ length: 30 }, (_, i) => `m${i}`);
  for (const payload of payloads) await queue.send(payload);
  // The child finishes its first ten messages and hangs on the rest, five at a time.
  const child = spawnTypeScriptChild(
    `
    import { createClient } from 'redis';
    import { ReliableQueue, utf8Codec } from '@respire/queue';
    const client = createClient({ url: ${JSON.stringify(server.url)} });
    client.on('error', () => {});
    await client.connect();
    const queue = new ReliableQueue(client, ${JSON.stringify(name)}, { codec: utf8Codec });
    let finished = 0;
    queue.consume(async (message) => {
      console.log('START ' + message.payload);
      if (finished < 10) { finished++; console.log('DONE ' + message.payload); return; }
      await new Promise(() => {});
    }, { concurrency: 5, visibilityTimeoutMs: 1000, logger: { warn() {}, error() {} } });
    `,
    { cwd: PACKAGE_DIR },
  );
  const starts = () => [...child.output().matchAll(/START (\S+)/g)].map((m) => m[1]!);
  await eventually(() => starts().length >= 15, 15_000, 10);
  child.process.kill('SIGKILL');
  const exit = await child.exit(5000);
  expect(exit.signal).toBe('SIGKILL');
  const started = new Set(starts());
  const done = new Set([...child.output().matchAll(/DONE (\S+)/g)].map((m) => m[1]!));
  const unfinished = [...started].filter((p) => !done.has(p));
  expect(unfinished.length).toBeGreaterThanOrEqual(5);

  const received = new Map<string, number>();
  const killedAt = performance.now();
  let unfinishedBackAt: number | undefined;
  const consumer: QueueConsumer = queue.consume(
    (message) => {
      received.set(message.payload, message.deliveryCount);
      if (unfinished.every((p) => received.has(p))) unfinishedBackAt ??= performance.now();
    },
    { concurrency: 8, logger: { warn() {}, error() {} } },
  );
  try {
    const keys = queueKeys(name, '');
    await eventually(async () => Number(await client.sendCommand(['XLEN', keys.stream])) === 0, 20_000, 20);
    await eventually(async () => Number(await client.sendCommand(['EXISTS', keys.deadlines])) === 0, 5000, 20);
  } finally {
    await consumer.stop();
  }
  // Every message was either finished by the child or handled here; the unfinished ones came back.
  for (const payload of payloads) expect(done.has(payload) || received.has(payload), payload).toBe(true);
  for (const payload of unfinished) expect(received.get(payload), payload).toBeGreaterThanOrEqual(2);
  // They came back once their leases (1 s from the last extension) ran out, not at some later sweep.
  expect(unfinishedBackAt).toBeDefined();
  expect(unfinishedBackAt! - killedAt).toBeLessThan(10_000);
});
