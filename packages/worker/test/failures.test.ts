// Failure kinds seen in the field (dropped reads, frozen reads, NOGROUP, READONLY, lost replies, denied commands), on a private server.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAclUser, startRedisServer, startTcpProxy, type RedisServerHandle } from '@respire/harness';
import type { RedisClientLike } from '@respire/core-scripts';
import { scripts } from '@respire/core-scripts/internal';
import type { StreamEntry } from '../src/index.js';
import {
  add,
  atLeast,
  eventually,
  pendingCount,
  pendingEntries,
  range,
  recordingLogger,
  standalone,
  targets,
  uniqueKeys,
  workerFixture,
  type Connection,
} from './support.js';

/**
 * Failure kinds reported by users of other stream consumers, and the fault rules of README "Faults, shutdown and failover".
 * These tests kill connections, so they run on a private server of their own.
 */
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

async function readerClientIds(): Promise<string[]> {
  const list = String(await conn.raw('x', ['CLIENT', 'LIST']));
  return list
    .split('\n')
    .filter((line) => line.includes('cmd=xreadgroup'))
    .map((line) => /id=(\d+)/.exec(line)![1]!);
}

/**
 * The suite's client, and every duplicate the worker makes of it (completions go on a reader's own
 * connection), with the reply of each completion script lost after Redis ran it.
 */
function losingCompletionReplies(): { client: RedisClientLike; calls(): number } {
  type Sender = { sendCommand(args: unknown[], options?: unknown): Promise<unknown> };
  const real = conn.client as unknown as Sender & { duplicate(): Sender };
  let calls = 0;
  const lose = (target: Sender): Sender['sendCommand'] => {
    const send = target.sendCommand.bind(target);
    return async (args, options) => {
      const isCompletion =
        (args[0] === 'EVALSHA' && args[1] === scripts.workerComplete.sha1) || (args[0] === 'EVAL' && args[1] === scripts.workerComplete.source);
      const reply = await send(args, options);
      if (!isCompletion) return reply;
      calls++;
      throw new Error('Socket closed unexpectedly');
    };
  };
  const client = {
    isOpen: true,
    sendCommand: lose(real),
    duplicate: () => {
      const duplicate = real.duplicate();
      duplicate.sendCommand = lose(duplicate);
      return duplicate;
    },
  };
  return { client: client as unknown as RedisClientLike, calls: () => calls };
}

describe('failure kinds (private standalone server)', () => {
  it('a reader whose connection drops while parked in XREADGROUP BLOCK reconnects and keeps reading', async () => {
    const { stream } = uniqueKeys();
    const seen: string[] = [];
    const w = worker({ stream, group: 'g', readWaitMs: 500, recoveryPollIntervalMs: 60_000, handler: (e) => (seen.push(e.getString('k')!), 'ack') });
    await w.start();
    await eventually(async () => (await readerClientIds()).length === 1);
    const [id] = await readerClientIds();
    await conn.raw('x', ['CLIENT', 'KILL', 'ID', id!]);
    const added = Date.now();
    await add(conn, stream, { k: 'after-outage' });
    await eventually(() => seen.length === 1, 500 + 2000);
    expect(Date.now() - added).toBeLessThan(500 + 2000);
    expect(w.state).toBe('running');
  });

  it('a client-side deadline longer than BLOCK catches a read that never returns', async () => {
    const proxy = await startTcpProxy(server.port);
    const client = createClient({ url: proxy.url });
    client.on('error', () => {});
    await client.connect();
    try {
      const { stream } = uniqueKeys();
      const seen: string[] = [];
      const logger = recordingLogger();
      const w = worker({
        client,
        logger,
        stream,
        group: 'g',
        readWaitMs: 300,
        minimumIdleTimeMs: 500,
        recoveryPollIntervalMs: 1000,
        handler: (e) => (seen.push(e.getString('k')!), 'ack'),
      });
      await w.start();
      await eventually(async () => (await readerClientIds()).length === 1); // the reader's read is parked
      proxy.freeze(1); // the caller's connection keeps working; the reader's read never returns
      await add(conn, stream, { k: 'x' });
      await eventually(() => seen.length === 1, 300 + 2000 + 3000);
      expect(logger.entries.some((e) => /reader connection lost/.test(e.message))).toBe(true);
      // The frozen read took the entry and its reply was lost: the entry stayed pending to this consumer
      // and the reader, freed by its deadline, recovered it after the minimum idle time.
      await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0);
    } finally {
      client.destroy();
      await proxy.close();
    }
  });

  it('an operator CLIENT UNBLOCK ... ERROR (UNBLOCKED reply) is not a fault: the reader reads again', async () => {
    const { stream } = uniqueKeys();
    const seen: string[] = [];
    const w = worker({ stream, group: 'g', readWaitMs: 5000, recoveryPollIntervalMs: 60_000, handler: (e) => (seen.push(e.id), 'ack') });
    await w.start();
    await eventually(async () => (await readerClientIds()).length === 1);
    const [id] = await readerClientIds();
    expect(await conn.raw('x', ['CLIENT', 'UNBLOCK', id!, 'ERROR'])).toBe(1);
    await add(conn, stream, { k: 'v' });
    await eventually(() => seen.length === 1);
    expect(w.state).toBe('running');
  });

  it('stop() for a user refused CLIENT UNBLOCK closes each parked reader connection instead, eight times under load: prompt, no fault, every handled entry acknowledged', async () => {
    const user = await createAclUser([server.url], 'no-unblock', ['~*', '+@all', '-client|unblock']);
    const client = createClient({ url: user.urlFor(server.url) });
    client.on('error', () => {});
    await client.connect();
    try {
      for (let round = 0; round < 8; round++) {
        const { stream } = uniqueKeys();
        for (let i = 0; i < 300; i++) await add(conn, stream, { i: String(i) });
        const handled = new Set<string>();
        const w = worker({
          client,
          stream,
          group: 'g',
          consumerCount: 2,
          batchSize: 16,
          readWaitMs: 10_000,
          recoveryPollIntervalMs: 60_000,
          handler: (e) => (handled.add(e.id), 'ack'),
        });
        await w.start();
        await eventually(() => handled.size >= 40 + 20 * round, 5000);
        const began = performance.now();
        await w.stop();
        const stopMs = performance.now() - began;
        await w.done; // rejects on a fault
        const stillPending = (await pendingEntries(conn, stream, 'g')).map((p) => p.id).filter((id) => handled.has(id));
        expect({ round, stillPending, state: w.state }).toEqual({ round, stillPending: [], state: 'stopped' });
        expect(stopMs).toBeLessThan(2000); // not the 10 s BLOCK
      }
      expect(await readerClientIds()).toEqual([]); // every reader connection was closed
      expect(JSON.stringify(await conn.raw('x', ['ACL', 'LOG']))).toContain('client|unblock'); // the refused path ran
    } finally {
      client.destroy();
    }
  }, 60_000);

  it('a destroyed group (NOGROUP) is recreated when createGroup is true', async () => {
    const { stream } = uniqueKeys();
    const seen: string[] = [];
    const w = worker({ stream, group: 'g', handler: (e) => (seen.push(e.getString('k')!), 'ack') });
    await w.start();
    await eventually(async () => (await readerClientIds()).length === 1);
    await conn.raw(stream, ['XGROUP', 'DESTROY', stream, 'g']);
    await add(conn, stream, { k: 'a' });
    await eventually(() => seen.includes('a'));
    expect(w.state).toBe('running');
  });

  it('a stream deleted and recreated is recreated with its group when createGroup is true', async () => {
    const { stream } = uniqueKeys();
    const seen: string[] = [];
    const w = worker({ stream, group: 'g', handler: (e) => (seen.push(e.getString('k')!), 'ack') });
    await w.start();
    await eventually(async () => (await readerClientIds()).length === 1);
    await conn.raw(stream, ['DEL', stream]);
    // The reader meets NOGROUP and recreates the stream and its group.
    await eventually(async () => ((await conn.raw(stream, ['XINFO', 'GROUPS', stream]).catch(() => [])) as unknown[]).length === 1);
    await add(conn, stream, { k: 'b' });
    await eventually(() => seen.includes('b'));
  });

  it('a destroyed group faults the worker clearly when createGroup is false', async () => {
    const { stream } = uniqueKeys();
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    const w = worker({ stream, group: 'g', createGroup: false, handler: () => 'ack' });
    await w.start();
    await eventually(async () => (await readerClientIds()).length === 1);
    await conn.raw(stream, ['XGROUP', 'DESTROY', stream, 'g']);
    await expect(w.done).rejects.toMatchObject({ name: 'RespireServerError', message: expect.stringMatching(/createGroup is false/) });
    expect(w.state).toBe('stopped');
  });

  it('pending entries whose bodies were deleted never reach a handler and leave the PEL (recovery and startup replay)', async () => {
    const { stream } = uniqueKeys();
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    const ids = [await add(conn, stream, { k: 'a' }), await add(conn, stream, { k: 'b' }), await add(conn, stream, { k: 'c' })];
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'dead-0', 'COUNT', '2', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'mine-0', 'COUNT', '1', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XDEL', stream, ids[0]!, ids[2]!]);
    const seen: StreamEntry[] = [];
    const w = worker({ stream, group: 'g', consumerName: 'mine', minimumIdleTimeMs: 1, recoveryPollIntervalMs: 50, handler: (e) => (seen.push(e), 'ack') });
    await w.start();
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0);
    expect(seen.map((e) => e.getString('k'))).toEqual(['b']);
    expect(seen.every((e) => e.fields.length > 0)).toBe(true);
  });

  it('an abandoned final attempt is dead-lettered at the next recovery without calling the handler (reason delivery-limit)', async () => {
    const { stream, dead } = uniqueKeys();
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    const id = await add(conn, stream, { k: 'v' });
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'crashed-0', 'COUNT', '1', 'STREAMS', stream, '>']); // attempt 1 abandoned
    let calls = 0;
    const w = worker({
      stream,
      group: 'g',
      deadLetterStream: dead,
      deliveryLimit: 1,
      minimumIdleTimeMs: 1,
      recoveryPollIntervalMs: 50,
      handler: () => (calls++, 'ack'),
    });
    await w.start();
    await eventually(async () => (await range(conn, dead)).length === 1);
    const [record] = await range(conn, dead);
    expect(record![1]).toEqual([
      '_respire.source_id',
      id,
      '_respire.group',
      'g',
      '_respire.attempt',
      '2',
      '_respire.reason',
      'delivery-limit',
      '_respire.exception_type',
      '',
      'k',
      'v',
    ]);
    expect(calls).toBe(0);
    expect(await pendingCount(conn, stream, 'g')).toBe(0);
  });

  it('the completion script dead-letters only a delivery still pending to this consumer at this count, and acknowledges a deleted source body without a record', async () => {
    const { stream, dead } = uniqueKeys();
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    const id = await add(conn, stream, { k: 'v' });
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', stream, '>']);
    const run = (consumer: string, count: string) =>
      conn.raw(stream, [
        'EVAL',
        scripts.workerComplete.source,
        '2',
        stream,
        dead,
        'g',
        consumer,
        '0',
        '60000',
        id,
        id,
        id,
        count,
        'dead-letter',
        'explicit',
        '',
      ]);
    expect(await run('other', '1')).toEqual([-1]); // another owner: stale
    expect(await run('c', '2')).toEqual([-1]); // another attempt: stale
    await conn.raw(stream, ['XDEL', stream, id]);
    expect(await run('c', '1')).toEqual([4]);
    expect(await pendingCount(conn, stream, 'g')).toBe(0);
    expect(await conn.raw(dead, ['EXISTS', dead])).toBe(0);
  });

  it('with deadLetterStream, an entry with more than 1,024 field/value pairs faults before the handler and stays pending', async () => {
    const { stream, dead } = uniqueKeys();
    const fields: string[] = [];
    for (let i = 0; i < 1025; i++) fields.push(`f${i}`, 'v');
    await conn.raw(stream, ['XADD', stream, '*', ...fields]);
    let calls = 0;
    const w = worker({ stream, group: 'g', deadLetterStream: dead, handler: () => (calls++, 'ack') });
    await w.start();
    await expect(w.done).rejects.toMatchObject({ name: 'RespireTooManyFieldsError', message: expect.stringMatching(/1025 field\/value pairs/) });
    expect(calls).toBe(0);
    expect(await pendingCount(conn, stream, 'g')).toBe(1);
    // Without a dead-letter stream there is no limit; 1,024 pairs are fine with one.
    const { stream: s2, dead: d2 } = uniqueKeys();
    await conn.raw(s2, ['XADD', s2, '*', ...fields]);
    await conn.raw(s2, ['XADD', s2, '*', ...fields.slice(0, 2048)]);
    const seen: number[] = [];
    const w2 = worker({ stream: s2, group: 'g', handler: (e) => (seen.push(e.fields.length), 'ack') });
    await w2.start();
    const w3 = worker({ stream: s2, group: 'g3', deadLetterStream: d2, handler: () => 'dead-letter' });
    await eventually(() => seen.length === 2);
    expect(seen).toEqual([1025, 1024]);
    await w3.start();
    await expect(w3.done).rejects.toBeDefined(); // the first entry (1,025 pairs) faults w3
  });

  it('a rejected dead-letter write (wrong destination type) faults the worker and leaves the source pending', async () => {
    const { stream, dead } = uniqueKeys();
    await conn.raw(dead, ['SET', dead, 'not a stream']);
    const w = worker({ stream, group: 'g', deadLetterStream: dead, handler: () => 'dead-letter' });
    await w.start();
    await add(conn, stream, { k: 'v' });
    await expect(w.done).rejects.toMatchObject({ name: 'RespireKeyTypeError' });
    expect(await pendingCount(conn, stream, 'g')).toBe(1);
  });

  it('a denied dead-letter XADD faults the worker and writes nothing; a denied XACK faults on ack', async () => {
    const user = await createAclUser([server.url], `w-${Date.now()}`, ['~*', '+@all', '-xadd']);
    const limited = await standalone(user.urlFor(server.url));
    try {
      const { stream, dead } = uniqueKeys();
      await add(conn, stream, { k: 'v' });
      const w = worker({ client: limited.client, stream, group: 'g', deadLetterStream: dead, handler: () => 'dead-letter' });
      await w.start();
      await expect(w.done).rejects.toMatchObject({ name: 'RespirePermissionError' });
      expect(await pendingCount(conn, stream, 'g')).toBe(1);
      expect(await conn.raw(dead, ['EXISTS', dead])).toBe(0);
    } finally {
      await limited.close();
    }
    const noAck = await createAclUser([server.url], `a-${Date.now()}`, ['~*', '+@all', '-xack']);
    const limited2 = await standalone(noAck.urlFor(server.url));
    try {
      const { stream } = uniqueKeys();
      await add(conn, stream, { k: 'v' });
      const w = worker({ client: limited2.client, stream, group: 'g', handler: () => 'ack' });
      await w.start();
      await expect(w.done).rejects.toMatchObject({ name: 'RespirePermissionError' });
      expect(await pendingCount(conn, stream, 'g')).toBe(1);
    } finally {
      await limited2.close();
    }
  });

  it("after SCRIPT FLUSH the completion script is loaded over the caller's client, not behind the reader's parked read", async () => {
    const { stream } = uniqueKeys();
    const w = worker({ stream, group: 'g', readWaitMs: 10_000, recoveryPollIntervalMs: 60_000, handler: () => 'ack' });
    await w.start();
    await add(conn, stream, { k: 'warm' });
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0 && (await readerClientIds()).length === 1);
    await conn.raw('x', ['SCRIPT', 'FLUSH']);
    await add(conn, stream, { k: 'after-flush' });
    const began = Date.now();
    // EVALSHA meets NOSCRIPT on the reader's connection, whose next read (BLOCK 10 s) is parked
    // behind it; the EVAL goes over the caller's client, so the ack does not wait for that read.
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0 && Number(await conn.raw(stream, ['XLEN', stream])) === 2, 3000);
    expect(Date.now() - began).toBeLessThan(3000);
    expect(w.state).toBe('running');
  });

  it('a lost acknowledgement reply faults the worker and is never repeated', async () => {
    const { stream } = uniqueKeys();
    const lossy = losingCompletionReplies();
    const w = worker({ client: lossy.client, stream, group: 'g', handler: () => 'ack' });
    await w.start();
    await add(conn, stream, { k: 'v' });
    await expect(w.done).rejects.toMatchObject({ name: 'RespireTransportError', code: 'TRANSPORT_FAILED' });
    expect(lossy.calls()).toBe(1);
    expect(await pendingCount(conn, stream, 'g')).toBe(0); // it did commit: the reply was lost, not the ack
  });

  it('a lost reply of a batch of completions is uncertain for every delivery in it: one fault, never repeated', async () => {
    const { stream } = uniqueKeys();
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    for (let i = 0; i < 16; i++) await add(conn, stream, { i: String(i) });
    const lossy = losingCompletionReplies();
    const outcomes: string[] = [];
    const w = worker({
      client: lossy.client,
      stream,
      group: 'g',
      batchSize: 16,
      instrumentation: { startDelivery: () => ({ end: (outcome) => void outcomes.push(outcome) }) },
      handler: () => 'ack',
    });
    await w.start();
    await expect(w.done).rejects.toMatchObject({ name: 'RespireTransportError' });
    expect(lossy.calls()).toBe(1);
    expect(outcomes).toEqual(Array(16).fill('error')); // no delivery of the batch reports an ack it cannot know
    expect(await pendingCount(conn, stream, 'g')).toBe(0); // the batch committed; only its reply was lost
  });

  it('a lost dead-letter reply faults the worker and is never repeated', async () => {
    const { stream, dead } = uniqueKeys();
    const lossy = losingCompletionReplies();
    const w = worker({ client: lossy.client, stream, group: 'g', deadLetterStream: dead, handler: () => 'dead-letter' });
    await w.start();
    await add(conn, stream, { k: 'v' });
    await expect(w.done).rejects.toMatchObject({ name: 'RespireTransportError' });
    expect(lossy.calls()).toBe(1);
    expect((await range(conn, dead)).length).toBe(1); // both mutations committed; the reply was lost
    expect(await pendingCount(conn, stream, 'g')).toBe(0);
  });

  it('a read failure (XREADGROUP denied) faults the worker', async () => {
    const user = await createAclUser([server.url], `r-${Date.now()}`, ['~*', '+@all', '-xreadgroup']);
    const limited = await standalone(user.urlFor(server.url));
    try {
      const { stream } = uniqueKeys();
      const w = worker({ client: limited.client, stream, group: 'g', handler: () => 'ack' });
      await w.start().catch(() => {});
      await expect(w.done).rejects.toMatchObject({ name: 'RespirePermissionError' });
    } finally {
      await limited.close();
    }
  });

  it('READONLY (reading from a replica, e.g. a demoted master) faults the worker; nothing is taken', async () => {
    const { stream } = uniqueKeys();
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    await add(conn, stream, { k: 'v' });
    const replica = await startRedisServer({ args: ['--replicaof', '127.0.0.1', String(server.port)] });
    const rconn = await standalone(replica.url);
    try {
      await eventually(async () => Number(await rconn.raw(stream, ['XLEN', stream])) === 1, 10_000);
      const w = worker({ client: rconn.client, stream, group: 'g', createGroup: false, handler: () => 'ack' });
      await w.start();
      await expect(w.done).rejects.toMatchObject({ name: 'RespireServerError', message: expect.stringMatching(/READONLY/) });
      expect(await pendingCount(conn, stream, 'g')).toBe(0);
    } finally {
      await rconn.close();
      await replica.close();
    }
  });

  it('never deletes a consumer that owns pending entries (no XGROUP DELCONSUMER)', async () => {
    const { stream } = uniqueKeys();
    const w = worker({ stream, group: 'g', consumerName: 'keep', handler: () => 'nack' });
    await w.start();
    await add(conn, stream, { k: 'v' });
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 1);
    await w.stop();
    const consumers = (await conn.raw(stream, ['XINFO', 'CONSUMERS', stream, 'g'])) as unknown[];
    expect(JSON.stringify(consumers)).toContain('keep-0');
    expect(await pendingEntries(conn, stream, 'g')).toMatchObject([{ consumer: 'keep-0', count: 1 }]);
  });

  it('deleteAcknowledgedEntries: XACKDEL ACKED on Redis 8.2+ (kept while another group still needs it); older servers XACK and keep the body', async () => {
    const { stream } = uniqueKeys();
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'other', '0', 'MKSTREAM']);
    const w = worker({ stream, group: 'g', deleteAcknowledgedEntries: true, handler: () => 'ack' });
    await w.start();
    await add(conn, stream, { k: 'v' });
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 1 || (await range(conn, stream)).length === 1);
    // The acknowledgement and the deletion are one script: once the entry is no longer pending, its body is gone or kept for good.
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0);
    expect((await range(conn, stream)).length).toBe(1); // 'other' has not read it: kept on every version
    // Once every group has read and acknowledged it, XACKDEL ACKED deletes the body on 8.2+.
    await conn.raw(stream, ['XGROUP', 'DESTROY', stream, 'other']);
    const { stream: s2 } = uniqueKeys();
    const w2 = worker({ stream: s2, group: 'g', deleteAcknowledgedEntries: true, handler: () => 'ack' });
    await w2.start();
    const added = await add(conn, s2, { k: 'v' });
    // Read (delivered to the group) and no longer pending: acknowledged, and deleted in the same script where XACKDEL exists.
    await eventually(async () => (await pendingCount(conn, s2, 'g')) === 0 && JSON.stringify(await conn.raw(s2, ['XINFO', 'GROUPS', s2])).includes(added));
    expect((await range(conn, s2)).length).toBe((await atLeast(conn, 8, 2)) ? 0 : 1);
  });

  it('each reader runs at most one recovery page of batchSize entries per recoveryPollIntervalMs', async () => {
    const { stream } = uniqueKeys();
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
    for (let i = 0; i < 6; i++) await add(conn, stream, { i: String(i) });
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'gone-0', 'COUNT', '6', 'STREAMS', stream, '>']);
    const seen: number[] = [];
    const started = Date.now();
    const w = worker({
      stream,
      group: 'g',
      batchSize: 2,
      minimumIdleTimeMs: 1,
      recoveryPollIntervalMs: 600,
      handler: () => (seen.push(Date.now() - started), 'ack'),
    });
    await w.start();
    await eventually(() => seen.length === 6, 5000);
    // Pages at ~0, ~600, ~1200 ms: two entries each.
    expect(seen.filter((t) => t < 400).length).toBe(2);
    expect(seen.filter((t) => t < 1000).length).toBe(4);
    expect(seen[5]).toBeGreaterThanOrEqual(1100);
  });
});

describe('failure kinds on the harness Cluster', () => {
  let cluster: Connection;
  beforeAll(async () => void (cluster = await targets[2]!.connect()));
  afterAll(async () => cluster.close());

  it('a reader whose connection drops while parked reconnects and keeps reading (Cluster node)', async () => {
    const { stream } = uniqueKeys();
    const seen: string[] = [];
    const w = worker({
      client: cluster.client,
      stream,
      group: 'g',
      readWaitMs: 500,
      recoveryPollIntervalMs: 60_000,
      handler: (e) => (seen.push(e.getString('k')!), 'ack'),
    });
    await w.start();
    const parked = async () =>
      String(await cluster.raw(stream, ['CLIENT', 'LIST']))
        .split('\n')
        .filter((line) => line.includes('cmd=xreadgroup'))
        .map((line) => /id=(\d+)/.exec(line)![1]!);
    await eventually(async () => (await parked()).length > 0);
    // Every reader parked on that node is dropped (any other reader reconnects the same way).
    for (const id of await parked()) await cluster.raw(stream, ['CLIENT', 'KILL', 'ID', id]);
    await add(cluster, stream, { k: 'after' });
    await eventually(() => seen.includes('after'), 500 + 2000);
    expect(w.state).toBe('running');
  });
});
