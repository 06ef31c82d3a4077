// The example of README.md, kept runnable.
import { commandTarget, queueKeys, runScript, scripts } from '@respire/core-scripts/internal';
import { FakeRedisServer } from '../src/index.js';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';

let server: FakeRedisServer;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  // Redis 8.2 semantics, a clock that only moves when the test says so.
  server = await FakeRedisServer.start({ version: '8.2', clock: { mode: 'virtual' } });
  client = createClient({ url: server.url });
  client.on('error', () => {}); // a dropped connection is reported here; node-redis reconnects
  await client.connect();
});

afterAll(async () => {
  client.destroy();
  await server.close();
});

it('redelivers a message once its visibility timeout has passed, without sleeping', async () => {
  const target = commandTarget(client);
  const q = queueKeys('orders', '');
  const keys = [q.stream, q.deadlines, q.deadLetter];
  await runScript(target, scripts.queueSend, [q.stream, `${q.deduplicationPrefix}o-1`], ['payload', '60000']);
  const receive = async () => (await runScript(target, scripts.queueReceive, keys, ['30000', '10', '5', 'TTTTTTTTTTTTTTTT', 'respire'])) as unknown[];

  expect(await receive()).toHaveLength(4); // { deadLettered, id, payload, deliveryCount }
  server.clock.advance(30_000);            // the lease expires
  expect((await receive())[3]).toBe(2);    // delivered a second time
});

it('reports an unknown outcome when the reply is lost, although the send happened', async () => {
  const target = commandTarget(client);
  const q = queueKeys('payments', '');
  server.faults.inject({ script: 'queue-send', action: { type: 'lost-reply' } });
  await expect(runScript(target, scripts.queueSend, [q.stream, `${q.deduplicationPrefix}p-1`], ['x', '60000'])).rejects.toMatchObject({
    code: 'TRANSPORT_FAILED',
  });
  expect(await client.xLen(q.stream)).toBe(1);
});
