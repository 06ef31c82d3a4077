// The server-dependent paths (XACKDEL or XACK + XDEL), checked with INFO commandstats.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandCalls, redisAtLeast, startRedisServer, type RedisServerHandle } from '@respire/harness';
import { ReliableQueue, utf8Codec } from '@respire/queue';

/**
 * Version-gated paths on the real server under test (REDIS_SERVER in the CI matrix), on a private
 * server of that binary so command statistics see only this test: XACKDEL on Redis 8.2+, XACK +
 * XDEL on older Redis and on Valkey.
 */
describe('server-dependent paths, checked with INFO commandstats', () => {
  let server: RedisServerHandle;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await startRedisServer();
    client = createClient({ url: server.url });
    await client.connect();
  });
  afterAll(async () => {
    client.destroy();
    await server.close();
  });

  const calls = (command: string) => commandCalls(client, command);
  it('acks and dead-letters with XACKDEL on Redis 8.2+, with XACK + XDEL elsewhere', async () => {
    const native = redisAtLeast(server, 8, 2);
    const queue = new ReliableQueue(client, 'paths', { codec: utf8Codec, deliveryLimit: 1 });
    await queue.send('a');
    await queue.send('b');
    const [a, b] = await queue.receive(30_000);
    const before = { xackdel: await calls('xackdel'), xdel: await calls('xdel'), xack: await calls('xack') };
    expect(await queue.ack(a!)).toBe(true);
    expect(await queue.nack(b!, 0)).toBe(true);
    expect(await queue.receive(30_000)).toEqual([]); // moves b to the dead-letter stream
    const after = { xackdel: await calls('xackdel'), xdel: await calls('xdel'), xack: await calls('xack') };
    expect(await client.xLen(queue.deadLetterStreamKey)).toBe(1);
    expect(await client.xLen(queue.streamKey)).toBe(0);
    if (native) {
      expect(after.xackdel - before.xackdel).toBe(2);
      expect(after.xdel - before.xdel).toBe(0);
    } else {
      expect(after.xackdel).toBe(0);
      expect(after.xack - before.xack).toBe(2);
      expect(after.xdel - before.xdel).toBe(2);
    }
  });
});
