// The queue on the fake server: a virtual clock, injected faults and server versions.
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { queueKeys, scripts } from '@respire/core-scripts/internal';
import { FakeRedisServer, type RedisVersion } from '@respire/testing';
import { ReliableQueue, isRespireError, utf8Codec } from '@respire/queue';

/** Unit tests that need a controlled clock, injected faults or another server version: on the fake server. */
const opened: { server: FakeRedisServer; client: { destroy(): void } }[] = [];
afterEach(async () => {
  for (const { server, client } of opened.splice(0)) {
    client.destroy();
    await server.close();
  }
});

async function fakeQueue(options: { version?: RedisVersion; flavour?: 'redis' | 'valkey'; deliveryLimit?: number } = {}) {
  const server = await FakeRedisServer.start({
    clock: { mode: 'virtual' },
    ...(options.version ? { version: options.version } : {}),
    ...(options.flavour ? { flavour: options.flavour } : {}),
    scripts: Object.values(scripts.allScripts).map((s) => ({ name: s.name, sha1: s.sha1 })),
  });
  const client = createClient({ url: server.url });
  client.on('error', () => {});
  await client.connect();
  opened.push({ server, client });
  const queue = new ReliableQueue(client, 'orders', { codec: utf8Codec, deliveryLimit: options.deliveryLimit ?? 5 });
  return { server, client, queue, keys: queueKeys('orders', '') };
}

describe('visibility timeouts on a virtual clock', () => {
  it('a lease is valid until just before its deadline and due at the deadline itself', async () => {
    const { server, queue } = await fakeQueue();
    await queue.send('x');
    const [first] = await queue.receive(30_000);
    server.clock.advance(29_999);
    expect(await queue.receive(30_000)).toEqual([]);
    server.clock.advance(1);
    const [second] = await queue.receive(30_000);
    expect(second).toMatchObject({ id: first!.id, deliveryCount: 2 });
    expect(await queue.ack(first!)).toBe(false);
    expect(await queue.ack(second!)).toBe(true);
  });

  it('an ack one millisecond before the deadline succeeds; at the deadline it returns false', async () => {
    const { server, queue } = await fakeQueue();
    await queue.send('a');
    await queue.send('b');
    const [a, b] = await queue.receive(1_000);
    server.clock.advance(999);
    expect(await queue.ack(a!)).toBe(true);
    server.clock.advance(1);
    expect(await queue.ack(b!)).toBe(false);
    expect(await queue.nack(b!)).toBe(false);
  });

  it('a NACK delay replaces the remaining visibility to the millisecond', async () => {
    const { server, queue } = await fakeQueue();
    await queue.send('x');
    const [m] = await queue.receive(60_000);
    expect(await queue.nack(m!, 5_000)).toBe(true);
    server.clock.advance(4_999);
    expect(await queue.receive(1_000)).toEqual([]);
    server.clock.advance(1);
    expect((await queue.receive(1_000)).map((x) => x.deliveryCount)).toEqual([2]);
  });

  it('the deduplication window expires on the server clock, removing only the deduplication key', async () => {
    const { server, queue, client, keys } = await fakeQueue();
    const first = await queue.send('a', { deduplicationId: 'd', deduplicationWindowMs: 10_000 });
    server.clock.advance(9_999);
    expect(await queue.send('b', { deduplicationId: 'd' })).toBe(first);
    server.clock.advance(1);
    const second = await queue.send('c', { deduplicationId: 'd' });
    expect(second).not.toBe(first);
    expect(await client.xLen(keys.stream)).toBe(2);
  });
});

describe('uncertain outcomes (lost replies)', () => {
  it('a lost ack reply is a transport error although the ack happened; a retry returns false', async () => {
    const { server, queue, client, keys } = await fakeQueue();
    await queue.send('x');
    const [m] = await queue.receive(30_000);
    await queue.ack({ id: '1-0', receipt: `1.${'A'.repeat(16)}.1` }); // loads the script: the fault hits a real run
    server.faults.inject({ script: 'queue-ack', action: { type: 'lost-reply' } });
    const error = await queue.ack(m!).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'TRANSPORT_FAILED'), String(error)).toBe(true);
    await client.ping();
    expect(await client.xLen(keys.stream)).toBe(0);
    expect(await queue.ack(m!)).toBe(false);
  });

  it('a lost receive reply leaves the whole batch leased; it is received again after the timeout, counting toward the limit', async () => {
    const { server, queue } = await fakeQueue();
    expect(await queue.receive(10_000)).toEqual([]); // loads the script: the fault hits a real run
    await queue.send('a');
    await queue.send('b');
    server.faults.inject({ script: 'queue-receive', action: { type: 'lost-reply' } });
    const error = await queue.receive(10_000).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'TRANSPORT_FAILED')).toBe(true);
    expect(await queue.receive(10_000)).toEqual([]);
    server.clock.advance(10_000);
    expect((await queue.receive(10_000)).map((m) => m.deliveryCount)).toEqual([2, 2]);
  });

  it('a lost send reply: retrying with the same deduplication ID returns the one appended entry', async () => {
    const { server, queue, client, keys } = await fakeQueue();
    await queue.send('warm', { deduplicationId: 'warm' }); // loads the script: the fault hits a real run
    await client.del(keys.stream);
    server.faults.inject({ script: 'queue-send', action: { type: 'lost-reply' } });
    const error = await queue.send('x', { deduplicationId: 'order-7' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'TRANSPORT_FAILED')).toBe(true);
    const id = await queue.send('x', { deduplicationId: 'order-7' });
    expect(await client.xLen(keys.stream)).toBe(1);
    expect((await queue.receive(1_000))[0]!.id).toBe(id);
  });
});

describe('server versions decide the path inside the script, per call', () => {
  it.each([
    ['7.0', 'redis', false],
    ['7.2', 'redis', false],
    ['8.2', 'redis', true],
    ['8.6', 'redis', true],
    ['7.2', 'valkey', false],
  ] as const)('Redis %s (%s): ack and dead-letter moves use XACKDEL = %s, else XACK + XDEL', async (version, flavour, native) => {
    const { server, queue } = await fakeQueue({ version, flavour, deliveryLimit: 1 });
    await queue.send('a');
    await queue.send('b');
    const [a, b] = await queue.receive(1_000);
    server.commandLog.clear();
    expect(await queue.ack(a!)).toBe(true);
    expect(await queue.nack(b!, 0)).toBe(true);
    await queue.receive(1_000);
    const inner = server.commandLog
      .entries()
      .filter((e) => e.origin === 'script')
      .map((e) => e.name);
    expect(inner.includes('XACKDEL')).toBe(native);
    expect(inner.includes('XDEL')).toBe(!native);
  });

  it('uses XACK + XDEL on Redis 8.2+ when the user may not run XACKDEL', async () => {
    const server = await FakeRedisServer.start({
      version: '8.2',
      users: [{ name: 'app', password: 'pw', rules: ['~*', '+@all', '-xackdel'] }],
    });
    const client = createClient({ url: server.url.replace('redis://', 'redis://app:pw@') });
    await client.connect();
    opened.push({ server, client });
    const queue = new ReliableQueue(client, 'orders', { codec: utf8Codec });
    await queue.send('a');
    const [a] = await queue.receive(1_000);
    server.commandLog.clear();
    expect(await queue.ack(a!)).toBe(true);
    const inner = server.commandLog
      .entries()
      .filter((e) => e.origin === 'script')
      .map((e) => e.name);
    expect(inner).toContain('XDEL');
    expect(inner).not.toContain('XACKDEL');
  });

  it('refuses Redis 6.2 (no redis.acl_check_cmd) with a typed error and changes nothing', async () => {
    const { queue, client, keys } = await fakeQueue({ version: '6.2' });
    await client.xAdd(keys.stream, '*', { payload: 'x' });
    const error = await queue.receive(1_000).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'UNSUPPORTED_SERVER'), String(error)).toBe(true);
    expect(await client.exists([keys.deadlines])).toBe(0);
  });

  it('sends one command per operation on the wire: no capability probes', async () => {
    const { server, queue } = await fakeQueue({ version: '8.2' });
    await queue.send('warm', { deduplicationId: 'w' });
    await queue.ackMany(await queue.receive(1_000));
    await queue.send('a');
    await queue.send('b', { deduplicationId: 'b' });
    server.commandLog.clear();
    const batch = await queue.receive(1_000);
    await queue.ackMany(batch);
    await queue.send('c');
    const fromClient = server.commandLog
      .entries()
      .filter((e) => e.origin === 'client')
      .map((e) => e.name);
    expect(fromClient).toEqual(['EVALSHA', 'EVALSHA', 'XADD']);
  });
});
