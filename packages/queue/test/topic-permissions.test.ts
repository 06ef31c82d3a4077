// The topic's ACL refusals change nothing: each script checks the writes it will make before the first.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAclUser } from '@respire/harness';
import { ReliableTopic, isRespireError, utf8Codec } from '@respire/queue';
import { standalone, uniqueName, type Connection } from './support.js';

describe('ReliableTopic: refusals change nothing', () => {
  let admin: Connection;
  beforeAll(async () => {
    admin = await standalone(inject('redisUrl'));
  });
  afterAll(async () => {
    await admin.close();
  });

  async function restricted(name: string, rules: string[]) {
    const user = await createAclUser([inject('redisUrl')], `u-${uniqueName()}`, rules);
    const conn = await standalone(user.urlFor(inject('redisUrl')));
    return { conn, topic: new ReliableTopic(conn.client, name, { codec: utf8Codec }) };
  }
  const refusal = (run: () => Promise<unknown>) =>
    run().then(
      () => null,
      (e: unknown) => e,
    );

  it('a user without XTRIM cannot publish (retention is part of publish): typed error, nothing appended', async () => {
    const name = uniqueName();
    const owner = new ReliableTopic(admin.client, name, { codec: utf8Codec });
    await owner.publish('first');
    const { conn, topic } = await restricted(name, ['~*', '+@all', '-xtrim']);
    try {
      const error = await refusal(() => topic.publish('refused'));
      expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
      expect((error as Error).message).toContain('XTRIM');
      expect(await admin.raw(owner.streamKey, ['XLEN', owner.streamKey])).toBe(1);
    } finally {
      await conn.close();
    }
  });

  it('a user without XINFO (retention reads its subscriptions) cannot publish; nothing appended', async () => {
    const name = uniqueName();
    const owner = new ReliableTopic(admin.client, name, { codec: utf8Codec });
    await owner.subscription('s').create();
    await owner.publish('first');
    const { conn, topic } = await restricted(name, ['~*', '+@all', '-xinfo']);
    try {
      const error = await refusal(() => topic.publish('refused'));
      expect(isRespireError(error), String(error)).toBe(true);
      expect(await admin.raw(owner.streamKey, ['XLEN', owner.streamKey])).toBe(1);
    } finally {
      await conn.close();
    }
  });

  it('a user without XACK cannot ack a delivery: typed error, the lease still holds', async () => {
    const name = uniqueName();
    const owner = new ReliableTopic(admin.client, name, { codec: utf8Codec });
    const mine = owner.subscription('s', { start: 'earliest' });
    await mine.create();
    await owner.publish('x');
    const [message] = await mine.receive(30_000);
    const { conn, topic } = await restricted(name, ['~*', '+@all', '-xack']);
    try {
      const error = await refusal(() => topic.subscription('s').ack(message!));
      expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
      expect(await mine.receive(30_000)).toEqual([]);
      expect(await mine.ack(message!)).toBe(true);
    } finally {
      await conn.close();
    }
  });

  it("a user without XADD cannot nack a delivery (it appends to the subscription's wake stream): typed error, the lease still holds", async () => {
    const name = uniqueName();
    const owner = new ReliableTopic(admin.client, name, { codec: utf8Codec });
    const mine = owner.subscription('s', { start: 'earliest' });
    await mine.create();
    await owner.publish('x');
    const [message] = await mine.receive(30_000);
    const { conn, topic } = await restricted(name, ['~*', '+@all', '-xadd']);
    try {
      const error = await refusal(() => topic.subscription('s').nack(message!, 0));
      expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
      expect((error as Error).message).toContain('XADD');
      expect(await mine.receive(30_000)).toEqual([]);
      expect(await mine.ack(message!)).toBe(true);
    } finally {
      await conn.close();
    }
  });

  it('a user without XGROUP cannot create a subscription; nothing is made', async () => {
    const name = uniqueName();
    const { conn, topic } = await restricted(name, ['~*', '+@all', '-xgroup']);
    try {
      const error = await refusal(() => topic.subscription('s').create());
      expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
      expect(await admin.raw(topic.streamKey, ['EXISTS', topic.streamKey])).toBe(0);
    } finally {
      await conn.close();
    }
  });
});
