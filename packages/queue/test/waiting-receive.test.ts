// The waiting receive (README "Waiting receive"): it wakes on a send, a NACK (at once or at its delay) or a lease deadline, costs a few commands when idle, and leaves no connection.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServerHandle } from '@respire/harness';
import { MAX_WAIT_MS, ReliableQueue, isRespireError, utf8Codec } from '@respire/queue';
import { queueKeys } from '@respire/core-scripts/internal';
import { describeOnTargets, eventually, queueFixture, targets, uniqueName } from './support.js';

describeOnTargets('ReliableQueue waiting receive', targets, (target, connection) => {
  const queueOf = queueFixture(connection);

  it('wakes on a send from another client, well before waitMs', async () => {
    const queue = queueOf();
    const other = await target.connect();
    try {
      const sender = new ReliableQueue(other.client, queue.name, { codec: utf8Codec });
      const started = performance.now();
      const waiting = queue.receive(30_000, { waitMs: 10_000 });
      // Let the receiver reach its block before sending (a send before it is found by the receive anyway).
      await new Promise((resolve) => setTimeout(resolve, 200));
      const id = await sender.send('hello');
      const batch = await waiting;
      const elapsed = performance.now() - started;
      expect(batch.map((m) => [m.id, m.payload])).toEqual([[id, 'hello']]);
      expect(elapsed).toBeLessThan(3000);
    } finally {
      await other.close();
    }
  });

  it('returns a message already receivable at once, as the nonblocking receive', async () => {
    const queue = queueOf();
    const id = await queue.send('ready');
    const started = performance.now();
    expect((await queue.receive(30_000, { waitMs: 10_000 })).map((m) => m.id)).toEqual([id]);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('wakes when a NACK delay passes, not before', async () => {
    const queue = queueOf();
    const id = await queue.send('retry me');
    const [first] = await queue.receive(30_000);
    expect(await queue.nack(first!, 400)).toBe(true);
    const started = performance.now();
    const batch = await queue.receive(30_000, { waitMs: 10_000 });
    const elapsed = performance.now() - started;
    expect(batch.map((m) => [m.id, m.deliveryCount])).toEqual([[id, 2]]);
    expect(elapsed).toBeGreaterThanOrEqual(300);
    expect(elapsed).toBeLessThan(3000);
  });

  it('wakes at once when another client NACKs the message it waits for (delay 0), well before its lease or waitMs would end', async () => {
    const queue = queueOf();
    const other = await target.connect();
    try {
      const holder = new ReliableQueue(other.client, queue.name, { codec: utf8Codec });
      const id = await queue.send('held');
      const [held] = await holder.receive(60_000);
      const waiting = queue.receive(30_000, { waitMs: 10_000 });
      // Let the receiver reach its block: nothing is receivable, and its bound is the lease's deadline (60 s).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const nackedAt = performance.now();
      expect(await holder.nack(held!, 0)).toBe(true);
      const batch = await waiting;
      const elapsed = performance.now() - nackedAt;
      expect(batch.map((m) => [m.id, m.deliveryCount])).toEqual([[id, 2]]);
      // Without the wake it would return only after waitMs (10 s): the margin is for a loaded machine.
      expect(elapsed).toBeLessThan(2500);
    } finally {
      await other.close();
    }
  });

  it("wakes when another client NACKs with a delay, and leases the message at the NACK's due time", async () => {
    const queue = queueOf();
    const other = await target.connect();
    try {
      const holder = new ReliableQueue(other.client, queue.name, { codec: utf8Codec });
      const id = await queue.send('held');
      const [held] = await holder.receive(60_000);
      const waiting = queue.receive(30_000, { waitMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const nackedAt = performance.now();
      expect(await holder.nack(held!, 700)).toBe(true);
      const batch = await waiting;
      const elapsed = performance.now() - nackedAt;
      expect(batch.map((m) => [m.id, m.deliveryCount])).toEqual([[id, 2]]);
      expect(elapsed).toBeGreaterThanOrEqual(600);
      expect(elapsed).toBeLessThan(3200);
    } finally {
      await other.close();
    }
  });

  it('a NACK that releases nothing (a stale receipt) does not touch the wake stream', async () => {
    const queue = queueOf();
    const keys = queueKeys(queue.name, '');
    await queue.send('done');
    const [message] = await queue.receive(30_000);
    expect(await queue.ack(message!)).toBe(true);
    expect(await queue.nack(message!, 0)).toBe(false);
    expect(await connection().raw(keys.wake, ['EXISTS', keys.wake])).toBe(0);
    await queue.send('again');
    const [next] = await queue.receive(30_000);
    expect(await queue.nackMany([next!, next!], 0)).toEqual([true, false]);
    // One entry per call that released a lease, never more than one kept.
    expect(await connection().raw(keys.wake, ['XLEN', keys.wake])).toBe(1);
  });

  it('wakes when a lease deadline passes', async () => {
    const queue = queueOf();
    const id = await queue.send('slow');
    await queue.receive(500);
    const started = performance.now();
    const batch = await queue.receive(30_000, { waitMs: 10_000 });
    expect(batch.map((m) => [m.id, m.deliveryCount])).toEqual([[id, 2]]);
    expect(performance.now() - started).toBeLessThan(3500);
  });

  it('wakes when a delayed message becomes due, not before', async () => {
    const queue = queueOf();
    const started = performance.now();
    const id = await queue.send('later', { delayMs: 500 });
    const batch = await queue.receive(30_000, { waitMs: 10_000 });
    const elapsed = performance.now() - started;
    expect(batch.map((m) => [m.id, m.deliveryCount])).toEqual([[id, 1]]);
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(3500);
  });

  it('wakes on a delayed send from another client made while it waits, at its due time', async () => {
    const queue = queueOf();
    const other = await target.connect();
    try {
      const sender = new ReliableQueue(other.client, queue.name, { codec: utf8Codec });
      const waiting = queue.receive(30_000, { waitMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const sentAt = performance.now();
      const id = await sender.send('delayed', { delayMs: 400 });
      const batch = await waiting;
      const elapsed = performance.now() - sentAt;
      expect(batch.map((m) => m.id)).toEqual([id]);
      expect(elapsed).toBeGreaterThanOrEqual(300);
      expect(elapsed).toBeLessThan(3500);
    } finally {
      await other.close();
    }
  });

  it('returns an empty batch once waitMs has passed', async () => {
    const queue = queueOf();
    const started = performance.now();
    expect(await queue.receive(30_000, { waitMs: 600 })).toEqual([]);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(590);
    expect(elapsed).toBeLessThan(3000);
  });

  it('refuses a bad waitMs before any I/O', async () => {
    const queue = queueOf();
    for (const waitMs of [-1, MAX_WAIT_MS + 1, Number.NaN, Infinity, '10' as unknown as number]) {
      const error = await queue.receive(1000, { waitMs }).catch((e: unknown) => e);
      expect(isRespireError(error, 'INVALID_ARGUMENT'), String(waitMs)).toBe(true);
    }
  });
});

/** A private server: INFO commandstats and CLIENT LIST show only this file's commands and connections. */
describe('ReliableQueue waiting receive on a private server', () => {
  let server: RedisServerHandle;
  let admin: ReturnType<typeof createClient>;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = createClient({ url: server.url });
    client = createClient({ url: server.url });
    for (const c of [admin, client]) {
      c.on('error', () => {});
      await c.connect();
    }
  });
  afterAll(async () => {
    admin?.destroy();
    client?.destroy();
    await server?.close();
  });

  /** Calls per command (INFO commandstats; commands run inside scripts count too). */
  const calls = async () =>
    new Map([...String(await admin.sendCommand(['INFO', 'commandstats'])).matchAll(/cmdstat_(\S+?):calls=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
  /** Connections other than the admin's and the caller's. */
  const others = async () => {
    const ids = [String(await admin.sendCommand(['CLIENT', 'ID'])), String(await client.sendCommand(['CLIENT', 'ID']))];
    return String(await admin.sendCommand(['CLIENT', 'LIST']))
      .split('\n')
      .filter((line) => line.trim() !== '' && !ids.includes(/(?:^| )id=(\d+)/.exec(line)![1]!))
      .map((line) => /(?:^| )cmd=(\S*)/.exec(line)![1]!);
  };

  it('costs the server a few commands per idle wait and leaves no connection', async () => {
    const queue = new ReliableQueue(client as never, uniqueName(), { codec: utf8Codec });
    // The scripts are loaded and the group exists (a wait long enough to reach the wait point under load).
    await queue.receive(1000, { waitMs: 300 });
    const before = await calls();
    const started = performance.now();
    expect(await queue.receive(30_000, { waitMs: 2000 })).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1990);
    const after = await calls();
    const sent = (command: string) => (after.get(command) ?? 0) - (before.get(command) ?? 0);
    // What the client sent for one idle wait: the receive script before and after the block, the
    // queue-wait-state script, one XREAD BLOCK (on the stream and the wake stream), and the blocking
    // connection's handshake (HELLO).
    // Nothing else reached the server from outside a script but this test's own INFO.
    expect({ evalsha: sent('evalsha'), eval: sent('eval'), xread: sent('xread'), hello: sent('hello') }).toEqual({ evalsha: 3, eval: 0, xread: 1, hello: 1 });
    const outside = ['evalsha', 'eval', 'xread', 'hello', 'info'];
    const inScripts = ['type', 'time', 'zrange', 'zrangebyscore', 'exists', 'xinfo|groups', 'xrevrange', 'xreadgroup', 'xgroup|create'];
    for (const [command, count] of after) {
      if (!outside.includes(command) && !inScripts.includes(command)) expect(count - (before.get(command) ?? 0), command).toBe(0);
    }
    expect(await others()).toEqual([]);
  });

  it('survives a CLIENT KILL of its blocking connection mid-wait and leaves no connection', async () => {
    const queue = new ReliableQueue(client as never, uniqueName(), { codec: utf8Codec });
    const started = performance.now();
    const waiting = queue.receive(30_000, { waitMs: 3000 });
    await eventually(async () => (await others()).includes('xread'), 5000, 10);
    const blocked = String(await admin.sendCommand(['CLIENT', 'LIST']))
      .split('\n')
      .find((line) => / cmd=xread /.test(` ${line} `));
    const id = /(?:^| )id=(\d+)/.exec(blocked!)![1]!;
    expect(Number(await admin.sendCommand(['CLIENT', 'KILL', 'ID', id]))).toBe(1);
    // A new connection takes over the wait: the call ends empty at waitMs, not with an error.
    expect(await waiting).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(2900);
    await eventually(async () => (await others()).length === 0, 5000, 20);
  });
});
