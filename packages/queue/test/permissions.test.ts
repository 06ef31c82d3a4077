// ACL refusals change nothing: each call checks the writes it will make before the first.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAclUser, redisAtLeast } from '@respire/harness';
import { queueKeys } from '@respire/core-scripts/internal';
import { ReliableQueue, isRespireError, utf8Codec } from '@respire/queue';
import { snapshot, standalone, uniqueName, type Connection } from './support.js';

describe('refusals change nothing', () => {
  let admin: Connection;
  beforeAll(async () => {
    admin = await standalone(inject('redisUrl'));
  });
  afterAll(async () => {
    await admin.close();
  });

  async function restrictedQueue(name: string, rules: string[], deliveryLimit = 5) {
    const user = await createAclUser([inject('redisUrl')], `u-${uniqueName()}`, rules);
    const conn = await standalone(user.urlFor(inject('redisUrl')));
    return { conn, queue: new ReliableQueue(conn.client, name, { codec: utf8Codec, deliveryLimit }) };
  }

  it('a user without XDEL cannot ack: typed error, state unchanged; one with it can', async () => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    const owner = new ReliableQueue(admin.client, name, { codec: utf8Codec });
    await owner.send('x');
    const [message] = await owner.receive(30_000);
    // On Redis 8.2+ the ack would take XACKDEL instead, so deny that too where it exists.
    const native = redisAtLeast({ flavour: inject('redisFlavour'), version: inject('redisVersion') }, 8, 2) ? ['-xackdel'] : [];
    const { conn, queue } = await restrictedQueue(name, ['~*', '+@all', '-xdel', ...native]);
    try {
      const before = await snapshot(admin, keys);
      const error = await queue.ack(message!).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
      expect((error as Error).message).toContain('XDEL');
      expect(await snapshot(admin, keys)).toBe(before);
      expect(await owner.ack(message!)).toBe(true);
    } finally {
      await conn.close();
    }
  });

  it('a user without ZADD cannot extend: typed error, state unchanged; a stale extend by that user is just false', async () => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    const owner = new ReliableQueue(admin.client, name, { codec: utf8Codec });
    await owner.send('x');
    const [message] = await owner.receive(30_000);
    const { conn, queue } = await restrictedQueue(name, ['~*', '+@all', '-zadd']);
    try {
      const before = await snapshot(admin, keys);
      const error = await queue.extend(message!, 60_000).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
      expect((error as Error).message).toContain('ZADD');
      expect(await snapshot(admin, keys)).toBe(before);
      expect(await queue.extend({ id: message!.id, receipt: `1.${'A'.repeat(16)}.1` }, 60_000)).toBe(false);
      expect(await owner.extend(message!, 60_000)).toBe(true);
    } finally {
      await conn.close();
    }
  });

  it('a user without XADD cannot nack (it appends to the wake stream): typed error naming XADD, state unchanged', async () => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    const owner = new ReliableQueue(admin.client, name, { codec: utf8Codec });
    await owner.send('x');
    const [message] = await owner.receive(30_000);
    const { conn, queue } = await restrictedQueue(name, ['~*', '+@all', '-xadd']);
    try {
      const before = await snapshot(admin, keys);
      const error = await queue.nack(message!, 0).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
      expect((error as Error).message).toContain('XADD');
      expect(await snapshot(admin, keys)).toBe(before);
      expect(await admin.raw(keys.wake, ['EXISTS', keys.wake])).toBe(0);
      // A NACK that releases nothing writes nothing, so it needs no XADD: just false.
      expect(await queue.nack({ id: message!.id, receipt: `1.${'A'.repeat(16)}.1` }, 0)).toBe(false);
      expect(await owner.nack(message!, 0)).toBe(true);
    } finally {
      await conn.close();
    }
  });

  it('a user without SET cannot sendMany with deduplication IDs: typed error, nothing appended; without IDs it can', async () => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    const { conn, queue } = await restrictedQueue(name, ['~*', '+@all', '-set']);
    try {
      const error = await queue.sendMany([{ payload: 'plain' }, { payload: 'deduplicated', deduplicationId: 'd', delayMs: 1_000 }]).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
      expect((error as Error).message).toContain('SET');
      expect(await admin.raw(keys.stream, ['EXISTS', keys.stream])).toBe(0);
      const results = await queue.sendMany([{ payload: 'plain' }, { payload: 'delayed', delayMs: 1_000 }]);
      expect(results.map((r) => r.duplicate)).toEqual([false, false]);
    } finally {
      await conn.close();
    }
  });

  it('a user without XADD on the dead-letter key can receive until a move is due, then gets a typed error and nothing changes', async () => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    // XADD is allowed on the queue's keys but the dead-letter stream (a Redis 7 ACL selector): the
    // ready stream (send) and the wake stream (nack).
    const { conn, queue } = await restrictedQueue(name, ['~*', '+@all', '-xadd', `(~${keys.stream} ~${keys.wake} +xadd)`], 1);
    expect(await queue.send('allowed on the ready stream')).toMatch(/^\d+-\d+$/);
    await admin.raw(keys.stream, ['DEL', keys.stream]);
    try {
      const owner = new ReliableQueue(admin.client, name, { codec: utf8Codec, deliveryLimit: 1 });
      await owner.send('poison');
      await owner.send('fine');
      const [poison] = await queue.receive(30_000, { max: 1 });
      expect(poison!.payload).toBe('poison');
      expect(await queue.nack(poison!, 0)).toBe(true);
      const before = await snapshot(admin, keys);
      const error = await queue.receive(30_000).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
      expect((error as Error).message).toContain('XADD');
      expect(await snapshot(admin, keys)).toBe(before);
      const batch = await owner.receive(30_000);
      expect(batch.map((m) => m.payload)).toEqual(['fine']);
      expect(await admin.raw(keys.deadLetter, ['XLEN', keys.deadLetter])).toBe(1);
    } finally {
      await conn.close();
    }
  });

  it.each([
    ['stream', 'stream'],
    ['deadlines', 'deadlines'],
  ] as const)('a string already at the %s key gives a typed error and nothing changes', async (_label, role) => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    const queue = new ReliableQueue(admin.client, name, { codec: utf8Codec });
    if (role !== 'stream') await queue.send('x');
    await admin.raw(keys[role], ['SET', keys[role], 'occupied']);
    const before = await snapshot(admin, keys);
    const error = await queue.receive(30_000).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'WRONG_TYPE'), String(error)).toBe(true);
    expect((error as Error).message).toContain(keys[role]);
    expect(await snapshot(admin, keys)).toBe(before);
    if (role === 'stream') {
      const sendError = await queue.send('y').then(
        () => null,
        (e: unknown) => e,
      );
      expect(isRespireError(sendError, 'WRONG_TYPE')).toBe(true);
      const dedupError = await queue.send('y', { deduplicationId: 'd' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isRespireError(dedupError, 'WRONG_TYPE')).toBe(true);
      expect(await admin.raw(keys.stream, ['EXISTS', `${keys.deduplicationPrefix}d`])).toBe(0);
    }
  });

  it('a hash at the dead-letter key stops the move with a typed error and nothing changes', async () => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    const queue = new ReliableQueue(admin.client, name, { codec: utf8Codec, deliveryLimit: 1 });
    await queue.send('x');
    const [message] = await queue.receive(30_000);
    await queue.nack(message!, 0);
    await admin.raw(keys.deadLetter, ['HSET', keys.deadLetter, 'f', 'v']);
    const before = await snapshot(admin, keys);
    const error = await queue.receive(30_000).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'WRONG_TYPE'), String(error)).toBe(true);
    expect(await snapshot(admin, keys)).toBe(before);
  });
});
