// Calls that were never sent, and calls whose outcome is unknown, are told apart.
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { createClient as createClientV5 } from 'redis5';
import { describe, expect, it } from 'vitest';
import { errorSummary, eventually, startRedisServer, startTcpProxy } from '@respire/harness';
import { ReliableQueue, utf8Codec, type RedisClientLike } from '@respire/queue';

/**
 * Issue 11, kind 2, the queue's share: "the outcome is unknown" only when a command may have run.
 * node-redis (5.9 and 6.3) rejects a command with TimeoutError only while it still waits to be
 * written (it drops a command's timeout once the command is on the wire), and the offline queue
 * of a reconnecting client holds commands that were never sent. Neither may be reported as an
 * unknown outcome: the caller would take a safe retry for a risky one.
 */
const name = () => `reasons-${randomBytes(5).toString('hex')}`;
/** A receipt of the right shape (nothing is sent for a malformed one). */
const someReceipt = { id: '1-1', receipt: '1.AAAAAAAAAAAAAAAA.1' };

type TestClient = RedisClientLike & { destroy(): void; readonly isReady: boolean };

async function connect(url: string, version: 6 | 5): Promise<TestClient> {
  const client = version === 6 ? createClient({ url }) : createClientV5({ url });
  client.on('error', () => {});
  await client.connect();
  return client as unknown as TestClient;
}

const calls: [string, (q: ReliableQueue<string>) => Promise<unknown>][] = [
  ['send', (q) => q.send('x')],
  ['send with a deduplication ID', (q) => q.send('x', { deduplicationId: 'd-1' })],
  ['receive', (q) => q.receive(30_000)],
  ['ack', (q) => q.ack(someReceipt)],
  ['nack', (q) => q.nack(someReceipt, 0)],
];

describe('kind 2: queue calls that were never sent', () => {
  it.each([6, 5] as const)(
    'on a client whose server is gone (node-redis %i), no call claims an unknown outcome',
    async (version) => {
      const server = await startRedisServer();
      const client = await connect(server.url, version);
      try {
        await server.close();
        // Wait until the client has noticed (it is reconnecting, and commands wait in its offline
        // queue). Before that, a command may still be written to the closing socket, and then "the
        // outcome is unknown" is the right answer, not the one this test is about.
        await eventually(() => !client.isReady, 5000);
        const queue = new ReliableQueue(client, name(), { codec: utf8Codec, commandTimeoutMs: 300 });
        const results: Record<string, unknown> = {};
        for (const [label, call] of calls) {
          const error = await call(queue).then(
            () => undefined,
            (e: unknown) => e,
          );
          const summary = errorSummary(error);
          results[label] = { code: summary.code, outcomeUnknown: summary.outcomeUnknown, claimsUnknown: /outcome is unknown/.test(String(summary.message)) };
        }
        const expected = { code: 'TRANSPORT_FAILED', outcomeUnknown: false, claimsUnknown: false };
        expect(results).toEqual(Object.fromEntries(calls.map(([label]) => [label, expected])));
      } finally {
        client.destroy();
      }
    },
    30_000,
  );
});

describe('kind 2 and the commandTimeoutMs TSDoc: "a command that times out after it was written has an unknown outcome"', () => {
  it('a send written to a connection that never answers rejects after commandTimeoutMs as an unknown outcome (it must not hang)', async () => {
    const server = await startRedisServer();
    const proxy = await startTcpProxy(server.port);
    const client = await connect(proxy.url, 6);
    try {
      const queue = new ReliableQueue(client, name(), { codec: utf8Codec, commandTimeoutMs: 300 });
      expect(await queue.send('before')).toMatch(/^\d+-\d+$/);
      proxy.freeze(); // the network black-holes the connection: written, never answered
      const began = performance.now();
      const settled = await Promise.race([
        queue.send('x').then(
          () => ({ error: undefined as unknown }),
          (error: unknown) => ({ error }),
        ),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5000)),
      ]);
      expect(settled, 'send() did not settle within 5 s with commandTimeoutMs 300').toBeDefined();
      expect(performance.now() - began).toBeLessThan(3000);
      const summary = errorSummary(settled!.error);
      expect(summary.code).toBe('TRANSPORT_FAILED');
      expect(summary.outcomeUnknown).toBe(true);
    } finally {
      client.destroy();
      await proxy.close();
      await server.close();
    }
  }, 20_000);
});
