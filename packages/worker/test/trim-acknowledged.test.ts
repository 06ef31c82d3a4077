// trimAcknowledgedEntries (README "Trimming acknowledged entries"): a stream read by several groups
// keeps an entry until every group has acknowledged it, then the workers trim it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAclUser, describeOnTargets, startRedisServer, type RedisServerHandle } from '@respire/harness';
import { scriptCalls, commandTarget } from '@respire/core-scripts/internal';
import { add, eventually, range, recordingLogger, standalone, targets, uniqueKeys, workerFixture, type Connection } from './support.js';

describeOnTargets('trimAcknowledgedEntries', targets, (_target, connection) => {
  const worker = workerFixture(connection);
  const ids = async (stream: string) => (await range(connection(), stream)).map(([id]) => id);

  it('trims only what every group has acknowledged: undelivered and pending entries of another group stay', async () => {
    const conn = connection();
    const { stream } = uniqueKeys();
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'audit', '0', 'MKSTREAM']);
    const added: string[] = [];
    for (let i = 0; i < 5; i++) added.push(await add(conn, stream, { i: String(i) }));
    // 'audit' (no worker) has read three: acknowledged the first, the second and third still pending.
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'audit', 'a', 'COUNT', '3', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XACK', stream, 'audit', added[0]!]);
    const seen: string[] = [];
    const w = worker({ stream, group: 'billing', recoveryPollIntervalMs: 50, trimAcknowledgedEntries: true, handler: (e) => (seen.push(e.id), 'ack') });
    await w.start();
    await eventually(() => seen.length === 5);
    // billing has acknowledged all five; audit still needs the second onwards.
    await eventually(async () => (await ids(stream)).length === 4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await ids(stream)).toEqual(added.slice(1));
    // audit settles its pending entries: the next pages trim up to its last-delivered ID, not past it.
    await conn.raw(stream, ['XACK', stream, 'audit', added[1]!, added[2]!]);
    await eventually(async () => (await ids(stream)).length === 2);
    expect(await ids(stream)).toEqual(added.slice(3));
  });

  it('a stream with one group loses each entry soon after its acknowledgement', async () => {
    const conn = connection();
    const { stream } = uniqueKeys();
    const logger = recordingLogger();
    const w = worker({ stream, group: 'g', recoveryPollIntervalMs: 50, trimAcknowledgedEntries: true, logger, handler: () => 'ack' });
    await w.start();
    for (let i = 0; i < 3; i++) await add(conn, stream, { i: String(i) });
    await eventually(async () => (await ids(stream)).length === 0);
    expect(w.state).toBe('running');
    expect(logger.entries.filter((e) => e.level === 'warn' || e.level === 'error')).toEqual([]);
  });

  it('the script trims nothing on a stream without groups, a missing stream, or past its limit', async () => {
    const conn = connection();
    const target = commandTarget(conn.client);
    const { stream } = uniqueKeys();
    expect(await scriptCalls.workerTrim(target, { stream, limit: 10 })).toBe(0);
    for (let i = 0; i < 4; i++) await add(conn, stream, { i: String(i) });
    expect(await scriptCalls.workerTrim(target, { stream, limit: 10 })).toBe(0);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '$']);
    // Created at the end: the group has all four delivered and none pending.
    expect(await scriptCalls.workerTrim(target, { stream, limit: 3 })).toBe(3);
    expect(await scriptCalls.workerTrim(target, { stream, limit: 3 })).toBe(1);
    expect((await range(conn, stream)).length).toBe(0);
  });
});

describe('trimAcknowledgedEntries without permission (private standalone server)', () => {
  let server: RedisServerHandle;
  let conn: Connection;
  beforeAll(async () => {
    server = await startRedisServer();
    conn = await standalone(server.url);
  });
  afterAll(async () => {
    await conn.close();
    await server.close();
  });
  const worker = workerFixture(() => conn);

  it('a denied XTRIM is logged as a warning with its code at each page; the worker keeps processing', async () => {
    const user = await createAclUser([server.url], `trim-${Date.now()}`, ['~*', '+@all', '-xtrim']);
    const limited = await standalone(user.urlFor(server.url));
    try {
      const { stream } = uniqueKeys();
      const logger = recordingLogger();
      const seen: string[] = [];
      const w = worker({
        client: limited.client,
        stream,
        group: 'g',
        recoveryPollIntervalMs: 50,
        trimAcknowledgedEntries: true,
        logger,
        handler: (e) => (seen.push(e.id), 'ack'),
      });
      await w.start();
      for (let i = 0; i < 3; i++) await add(conn, stream, { i: String(i) });
      await eventually(() => seen.length === 3 && logger.entries.filter((e) => e.message.startsWith('trimming acknowledged entries failed')).length >= 2);
      const warning = logger.entries.find((e) => e.message.startsWith('trimming acknowledged entries failed'))!;
      expect(warning.level).toBe('warn');
      expect(warning.context).toMatchObject({ exceptionType: 'RespirePermissionError' });
      expect(w.state).toBe('running');
      expect((await range(conn, stream)).length).toBe(3);
    } finally {
      await limited.close();
    }
  });
});
