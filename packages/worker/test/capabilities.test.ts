// Capability decisions per operation on the serving node, and the documented fallbacks when a permission or command is missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAclUser, type AclUser } from '@respire/harness';
import { inject } from 'vitest';
import type { StreamWorker, StreamEntry } from '../src/index.js';
import { add, atLeast, eventually, pendingCount, range, standalone, uniqueKeys, workerFixture, type Connection, type TestOptions } from './support.js';

/**
 * README "Server requirements": capability decisions per operation, with the documented fallbacks.
 * Each assertion follows the version of the server under test (REDIS_SERVER picks the binary; the
 * suite also passes on Redis 8.6, where XACKDEL, XREADGROUP CLAIM and IDMP are native).
 */
let admin: Connection;
const opened: Connection[] = [];
beforeAll(async () => void (admin = await standalone(inject('redisUrl'))));
afterAll(async () => {
  await Promise.allSettled(opened.map((c) => c.close()));
  await admin.close();
});
const workerOn = workerFixture(() => admin);

async function as(rules: string[]): Promise<{ user: AclUser; conn: Connection }> {
  const user = await createAclUser([inject('redisUrl')], `cap-${Math.random().toString(36).slice(2)}`, rules);
  const conn = await standalone(user.urlFor(inject('redisUrl')));
  opened.push(conn);
  return { user, conn };
}

function worker<T = StreamEntry>(conn: Connection, options: TestOptions<T>): StreamWorker<T> {
  return workerOn<T>({ client: conn.client, ...options });
}

describe('capabilities', () => {
  it('a denied XACKDEL faults the worker on Redis 8.2+ (entry stays pending); older servers use XACK and are unaffected', async () => {
    const native = await atLeast(admin, 8, 2);
    const { conn } = await as(native ? ['~*', '+@all', '-xackdel'] : ['~*', '+@all']); // 7.x has no XACKDEL to deny
    const { stream } = uniqueKeys();
    const seen: string[] = [];
    const w = worker(conn, { stream, group: 'g', deleteAcknowledgedEntries: true, handler: (e) => (seen.push(e.id), 'ack') });
    await w.start();
    await add(admin, stream, { k: 'v' });
    if (native) {
      await expect(w.done).rejects.toMatchObject({ name: 'RespirePermissionError' });
      expect(await pendingCount(admin, stream, 'g')).toBe(1);
    } else {
      await eventually(async () => seen.length === 1 && (await pendingCount(admin, stream, 'g')) === 0);
      expect((await range(admin, stream)).length).toBe(1);
      expect(w.state).toBe('running');
    }
  });

  it('recovery works without XRANGE permission (Redis 8.4+ falls back from CLAIM to XAUTOCLAIM)', async () => {
    const { conn } = await as(['~*', '+@all', '-xrange']);
    const { stream } = uniqueKeys();
    await admin.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    await add(admin, stream, { k: 'a' });
    await add(admin, stream, { k: 'b' });
    await admin.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'gone-0', 'COUNT', '2', 'STREAMS', stream, '>']);
    const ids = ((await admin.raw(stream, ['XPENDING', stream, 'g', '-', '+', '10'])) as unknown[][]).map((p) => String(p[0]));
    await admin.raw(stream, ['XDEL', stream, ids[0]!]);
    const seen: [string, number][] = [];
    const w = worker(conn, {
      stream,
      group: 'g',
      minimumIdleTimeMs: 1,
      recoveryPollIntervalMs: 50,
      handler: (e) => (seen.push([e.getString('k')!, e.deliveryCount]), 'ack'),
    });
    await w.start();
    await eventually(async () => (await pendingCount(admin, stream, 'g')) === 0);
    expect(seen).toEqual([['b', 2]]);
  });

  it('dead-letter completion checks XADD on the destination and XACK on the source before writing', async () => {
    const { conn } = await as(['~*', '+@all', '-xack']);
    const { stream, dead } = uniqueKeys();
    const w = worker(conn, { stream, group: 'g', deadLetterStream: dead, handler: () => 'dead-letter' });
    await w.start();
    await add(admin, stream, { k: 'v' });
    await expect(w.done).rejects.toMatchObject({ name: 'RespirePermissionError', message: expect.stringMatching(/XACK/) });
    expect(await admin.raw(dead, ['EXISTS', dead])).toBe(0);
    expect(await pendingCount(admin, stream, 'g')).toBe(1);
  });
});
