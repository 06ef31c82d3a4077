// The example of packages/testing/README.md, as written there (it needs @respire/queue, which
// @respire/testing cannot depend on: this package depends on it). The last test checks that the
// README still shows exactly this code.
import { FakeRedisServer } from '@respire/testing';
import { ReliableQueue, isRespireError, utf8Codec } from '@respire/queue';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';

let server: FakeRedisServer;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  // Redis 8.2 semantics, a clock that only moves when the test says so.
  server = await FakeRedisServer.start({ version: '8.2', clock: { mode: 'virtual' } });
  client = createClient({ url: server.url });
  // Required: an injected lost reply or drop closes the connection, and node-redis reports it as
  // an 'error' event (then reconnects); without a listener that event crashes the test process.
  client.on('error', () => {});
  await client.connect();
});

afterAll(async () => {
  client.destroy();
  await server.close();
});

it('redelivers a message once its visibility timeout has passed, without sleeping', async () => {
  const queue = new ReliableQueue(client, 'orders', { codec: utf8Codec });
  await queue.send('order 1');
  const [first] = await queue.receive(30_000);
  expect(first).toMatchObject({ payload: 'order 1', deliveryCount: 1 });
  expect(await queue.receive(30_000)).toEqual([]); // leased: nobody else gets it
  server.clock.advance(30_000); // the lease expires
  const [again] = await queue.receive(30_000);
  expect(again).toMatchObject({ id: first!.id, deliveryCount: 2 });
  expect(await queue.ack(first!)).toBe(false); // the first delivery's receipt is stale
  expect(await queue.ack(again!)).toBe(true);
});

it('reports an unknown outcome when the reply is lost, although the send happened', async () => {
  const queue = new ReliableQueue(client, 'payments', { codec: utf8Codec });
  server.faults.inject({ command: 'XADD', action: { type: 'lost-reply' } }); // once: executed, then the connection closes
  const error = await queue.send('payment 1').catch((e: unknown) => e);
  expect(isRespireError(error, 'TRANSPORT_FAILED')).toBe(true);
  expect(error).toMatchObject({ outcomeUnknown: true });
  const [message] = await queue.receive(30_000); // node-redis has reconnected: the send did happen
  expect(message?.payload).toBe('payment 1');
});

// Not part of the example.
it('is the example of packages/testing/README.md, as written there', async () => {
  const { readFileSync } = await import('node:fs');
  const readme = readFileSync(new URL('../../testing/README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Example\n'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block, 'no ```ts block in the README section "## Example"').toBeDefined();
  const self = readFileSync(new URL(import.meta.url), 'utf8');
  expect(self).toContain(block!);
  expect(self.indexOf(block!)).toBe(self.indexOf('import { FakeRedisServer }'));
});
