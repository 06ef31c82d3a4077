// A grouped queue's refusals change nothing: key types on every target, ACL permissions on a private Redis.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAclUser } from '@respire/harness';
import { ReliableQueue, RespireKeyTypeError, isRespireError, utf8Codec } from '@respire/queue';
import { groupedKeys, groupedSnapshot, untilAllGroupedDue } from './groups-support.js';
import { describeOnTargets, queueFixture, standalone, targets, uniqueName, type Connection } from './support.js';

describeOnTargets('ReliableQueue with groups: key types', targets, (_target, connection) => {
  const queueOf = queueFixture(connection);

  it('a string at the ready ring: send and receive throw RespireKeyTypeError naming it, and nothing changes', async () => {
    const queue = queueOf<string>({ groups: {} });
    const keys = groupedKeys(queue.name);
    await queue.send('a1', { groupId: 'a' });
    await connection().raw(keys.ready, ['DEL', keys.ready]);
    await connection().raw(keys.ready, ['SET', keys.ready, 'x']);
    const before = await groupedSnapshot(connection(), queue.name);
    await expect(queue.send('a2', { groupId: 'b' })).rejects.toThrow(RespireKeyTypeError);
    await expect(queue.receive(30_000)).rejects.toThrow(new RegExp(`${keys.ready.replace(/[{}]/g, '\\$&')} holds a string`));
    expect(await groupedSnapshot(connection(), queue.name)).toBe(before);
  });

  it("a string at a ready group's backlog: receive throws RespireKeyTypeError before taking any head, and nothing changes", async () => {
    const queue = queueOf<string>({ groups: {} });
    const keys = groupedKeys(queue.name);
    await queue.send('a1', { groupId: 'a' });
    await queue.send('b1', { groupId: 'b' });
    await connection().raw(keys.ready, ['DEL', `${keys.backlogPrefix}b`]);
    await connection().raw(keys.ready, ['SET', `${keys.backlogPrefix}b`, 'x']);
    const before = await groupedSnapshot(connection(), queue.name);
    await expect(queue.receive(30_000, { max: 10 })).rejects.toThrow(RespireKeyTypeError);
    await expect(queue.send('b2', { groupId: 'b' })).rejects.toThrow(RespireKeyTypeError);
    expect(await groupedSnapshot(connection(), queue.name)).toBe(before);
  });

  // The receive takes new heads before it settles due ones: a settled head's backlog is type-checked
  // first, or the groups taken before the failure would stay leased with no deadline, blocked.
  for (const [mode, groups] of [
    ['ordered', {}],
    ['fair', { groupConcurrency: 2 }],
  ] as const) {
    for (const fate of ['deleted', 'exhausted'] as const) {
      it(`${mode}: a due head ${fate} whose group's backlog is of another type: receive throws RespireKeyTypeError, and nothing changes`, async () => {
        const queue = queueOf<string>({ groups, deliveryLimit: 1 });
        const keys = groupedKeys(queue.name);
        await queue.send('a1', { groupId: 'a' });
        const [leased] = await queue.receive(20);
        expect(leased?.payload).toBe('a1');
        await queue.send('b1', { groupId: 'b' });
        await untilAllGroupedDue(connection(), queue.name);
        if (fate === 'deleted') await connection().raw(keys.stream, ['XDEL', keys.stream, leased!.id]);
        await connection().raw(keys.ready, ['DEL', `${keys.backlogPrefix}a`]);
        await connection().raw(keys.ready, ['SET', `${keys.backlogPrefix}a`, 'x']);
        const before = await groupedSnapshot(connection(), queue.name);
        await expect(queue.receive(30_000, { max: 10 })).rejects.toThrow(RespireKeyTypeError);
        expect(await groupedSnapshot(connection(), queue.name)).toBe(before);
        // Repaired, the next receive settles the head and delivers b1.
        await connection().raw(keys.ready, ['DEL', `${keys.backlogPrefix}a`]);
        const next = await queue.receive(30_000, { max: 10 });
        expect(next.map((m) => m.payload)).toEqual(['b1']);
      });
    }
  }

  it("a string at one item's backlog: sendMany throws RespireKeyTypeError, and no item of the batch is appended", async () => {
    const queue = queueOf<string>({ groups: {} });
    const keys = groupedKeys(queue.name);
    await queue.send('a1', { groupId: 'a' });
    await connection().raw(keys.ready, ['SET', `${keys.backlogPrefix}c`, 'x']);
    const before = await groupedSnapshot(connection(), queue.name);
    const batch = [
      { payload: 'a2', groupId: 'a' },
      { payload: 'b1', groupId: 'b', deduplicationId: 'd' },
      { payload: 'c1', groupId: 'c' },
    ];
    await expect(queue.sendMany(batch)).rejects.toThrow(RespireKeyTypeError);
    expect(await groupedSnapshot(connection(), queue.name)).toBe(before);
  });

  // The backlog's type is found by its RPUSH, after earlier items were written: the call removes
  // them, and the stream it created, before the error.
  it.each([
    ['ordered', {}],
    ['fair', { groupConcurrency: 2 }],
  ] as const)(
    "%s: a string at the last item's backlog of a new queue: sendMany throws RespireKeyTypeError naming it, and creates no key",
    async (_mode, groups) => {
      const queue = queueOf<string>({ groups });
      const keys = groupedKeys(queue.name);
      await connection().raw(keys.ready, ['SET', `${keys.backlogPrefix}c`, 'x']);
      const before = await groupedSnapshot(connection(), queue.name);
      const batch = [
        { payload: 'a1', groupId: 'a', deduplicationId: 'd1' },
        { payload: 'a2', groupId: 'a' },
        { payload: 'b1', groupId: 'b', deduplicationId: 'd2' },
        { payload: 'c1', groupId: 'c' },
      ];
      const error = await queue.sendMany(batch).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RespireKeyTypeError);
      expect((error as Error).message).toContain(`${keys.backlogPrefix}c holds a string`);
      expect(await groupedSnapshot(connection(), queue.name)).toBe(before);
      // Repaired, the same batch is appended in full (its deduplication IDs were not recorded).
      await connection().raw(keys.ready, ['DEL', `${keys.backlogPrefix}c`]);
      expect((await queue.sendMany(batch)).map((r) => r.duplicate)).toEqual([false, false, false, false]);
      const received = await queue.receive(30_000, { max: 10 });
      expect(received.map((m) => m.payload).sort()).toEqual(['a1', 'b1', 'c1']);
    },
  );
});

describe('ReliableQueue with groups: permissions', () => {
  let admin: Connection;
  beforeAll(async () => {
    admin = await standalone(inject('redisUrl'));
  });
  afterAll(async () => {
    await admin.close();
  });

  async function restricted<R>(name: string, rules: string[], run: (queue: ReliableQueue<string>) => Promise<R>): Promise<R> {
    const user = await createAclUser([inject('redisUrl')], `u-${uniqueName()}`, rules);
    const conn = await standalone(user.urlFor(inject('redisUrl')));
    try {
      return await run(new ReliableQueue(conn.client, name, { codec: utf8Codec, groups: {} }));
    } finally {
      await conn.close();
    }
  }

  const refusal = (call: Promise<unknown>): Promise<unknown> =>
    call.then(
      () => null,
      (e: unknown) => e,
    );

  it('a user without HSET cannot receive, and one without ZADD cannot ack: typed errors naming the command, nothing changed', async () => {
    const name = uniqueName();
    const owner = new ReliableQueue(admin.client, name, { codec: utf8Codec, groups: {} });
    await owner.send('a1', { groupId: 'a' });
    await owner.send('a2', { groupId: 'a' });
    let before = await groupedSnapshot(admin, name);
    const noHset = await restricted(name, ['~*', '+@all', '-hset'], (queue) => refusal(queue.receive(30_000)));
    expect(isRespireError(noHset, 'PERMISSION_DENIED'), String(noHset)).toBe(true);
    expect((noHset as Error).message).toContain('HSET');
    expect(await groupedSnapshot(admin, name)).toBe(before);

    const [head] = await owner.receive(30_000);
    before = await groupedSnapshot(admin, name);
    // The group has more: settling would put it back on the ring with ZADD.
    const noZadd = await restricted(name, ['~*', '+@all', '-zadd'], (queue) => refusal(queue.ack(head!)));
    expect(isRespireError(noZadd, 'PERMISSION_DENIED'), String(noZadd)).toBe(true);
    expect((noZadd as Error).message).toContain('ZADD');
    expect(await groupedSnapshot(admin, name)).toBe(before);
    expect(await owner.ack(head!)).toBe(true);
    expect((await owner.receive(30_000)).map((m) => m.payload)).toEqual(['a2']);
  });

  it('a user without SET cannot sendMany with a deduplication ID: a typed error naming SET, no item appended', async () => {
    const name = uniqueName();
    const batch = [
      { payload: 'a1', groupId: 'a' },
      { payload: 'b1', groupId: 'b', deduplicationId: 'd' },
    ];
    const error = await restricted(name, ['~*', '+@all', '-set'], (queue) => refusal(queue.sendMany(batch)));
    expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
    expect((error as Error).message).toContain('SET');
    expect(await groupedSnapshot(admin, name)).toBe('[]');
  });

  it('a user without XADD cannot nack a grouped delivery (it appends to the wake stream): a typed error, nothing changed', async () => {
    const name = uniqueName();
    const owner = new ReliableQueue(admin.client, name, { codec: utf8Codec, groups: {} });
    await owner.send('a1', { groupId: 'a' });
    const [head] = await owner.receive(30_000);
    const before = await groupedSnapshot(admin, name);
    const error = await restricted(name, ['~*', '+@all', '-xadd'], (queue) => refusal(queue.nack(head!)));
    expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
    expect((error as Error).message).toContain('XADD');
    expect(await groupedSnapshot(admin, name)).toBe(before);
    expect(await owner.nack(head!)).toBe(true);
  });

  it('a user without RPUSH cannot sendMany: a typed error naming RPUSH, nothing appended', async () => {
    const name = uniqueName();
    const batch = [
      { payload: 'a1', groupId: 'a' },
      { payload: 'b1', groupId: 'b' },
    ];
    const error = await restricted(name, ['~*', '+@all', '-rpush'], (queue) => refusal(queue.sendMany(batch)));
    expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
    expect((error as Error).message).toContain('RPUSH');
    expect(await groupedSnapshot(admin, name)).toBe('[]');
  });

  it("a user whose key patterns leave out one group's backlog cannot sendMany to it: a typed error, nothing appended", async () => {
    const name = uniqueName();
    const keys = groupedKeys(name);
    const base = keys.pattern.slice(0, -2);
    const patterns = [keys.stream, keys.ready, keys.ungroupedStream, `${base}:groups:in-flight`, `${keys.backlogPrefix}a`].map((key) => `~${key}`);
    const batch = [
      { payload: 'a1', groupId: 'a' },
      { payload: 'b1', groupId: 'b' },
    ];
    const error = await restricted(name, [...patterns, '+@all'], (queue) => refusal(queue.sendMany(batch)));
    expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
    expect(await groupedSnapshot(admin, name)).toBe('[]');
    // Its own group's messages go through.
    const sent = await restricted(name, [...patterns, '+@all'], (queue) => queue.sendMany([{ payload: 'a1', groupId: 'a' }]));
    expect(sent.map((r) => r.duplicate)).toEqual([false]);
  });

  it('a user without XADD cannot send: nothing is appended to the stream, the backlog or the ring', async () => {
    const name = uniqueName();
    const error = await restricted(name, ['~*', '+@all', '-xadd'], (queue) => refusal(queue.send('a1', { groupId: 'a' })));
    expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
    expect(await groupedSnapshot(admin, name)).toBe('[]');
  });
});
