// Every admin script call sends KEYS and ARGV in its header's order.
import { standalone } from '@respire/harness';
import type { RedisClientLike } from '@respire/core-scripts';
import { scripts } from '@respire/core-scripts/internal';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RespireAdmin } from '../src/index.js';
import type { Redis } from '../src/redis.js';
import { addQueueRecord, addWorkerRecord, operator, pendingPair, uniqueKeys, uniqueQueue, type Connection } from './support.js';

/**
 * Every admin script goes through core-scripts' typed wrapper: the commands sent carry KEYS and
 * ARGV in the order of the script's header (lua/admin-*.lua), recorded on the wire of a real Redis.
 */
describe('admin scripts: KEYS and ARGV in header order (real Redis)', () => {
  let conn: Connection;
  const sent: string[][] = [];
  let client: unknown;

  beforeAll(async () => {
    conn = await standalone<RedisClientLike>(inject('redisUrl'));
    const real = conn.client as unknown as { sendCommand(args: unknown[], options?: object): Promise<unknown> };
    client = { isOpen: true, sendCommand: (args: unknown[], options?: object) => (sent.push(args.map(String)), real.sendCommand(args, options)) };
  });
  afterAll(async () => conn.close());

  /** The script calls sent since the last call: [script name, KEYS, ARGV]. */
  function calls(): [string, string[], string[]][] {
    const bySha = new Map(scripts.allScripts.map((s) => [s.sha1, s]));
    const out: [string, string[], string[]][] = [];
    for (const args of sent.splice(0)) {
      if (args[0] !== 'EVALSHA') continue;
      const script = bySha.get(args[1]!);
      const n = Number(args[2]);
      out.push([script?.name ?? `unknown ${args[1]}`, args.slice(3, 3 + n), args.slice(3 + n)]);
    }
    return out;
  }

  it('retry: a queue record (dead-letter stream, ready stream; record IDs) and a worker record in the same slot', async () => {
    const name = uniqueQueue('order');
    const qdead = `{respire-queue:${name}}:dead-letter`;
    const qid = `{respire-queue:${name}}:stream`;
    const { stream, dead } = uniqueKeys('order');
    const admin = new RespireAdmin(client, { queues: [{ name }], streams: [{ stream, deadLetterStream: dead }] });
    const q1 = await addQueueRecord(conn, qdead, 'a');
    const q2 = await addQueueRecord(conn, qdead, 'b');
    const w1 = await addWorkerRecord(conn, dead, '1-1', ['k', 'v']);
    sent.length = 0;
    expect(await admin.retryAllDeadLetters(operator, qid)).toMatchObject({ done: 2 });
    expect(await admin.retryDeadLetter(operator, stream, w1)).toMatchObject({ status: 'retried' });
    expect(calls()).toEqual([
      ['admin-retry-queue-dead-letters', [qdead, qid], [q1, q2]],
      ['admin-retry-worker-dead-letters', [dead, stream], [w1]],
    ]);
  });

  it('retry across slots: the source stream; the producer, then per record its ID, n and n field/value pairs', async () => {
    const { stream } = uniqueKeys('order-src');
    const { dead } = uniqueKeys('order-dead');
    const admin = new RespireAdmin(client, { streams: [{ stream, deadLetterStream: dead }] });
    await conn.raw(stream, ['XADD', stream, '*', 'seed', '1']);
    const r1 = await addWorkerRecord(conn, dead, '1-1', ['k', 'v', 'k2', 'v2']);
    const r2 = await addWorkerRecord(conn, dead, '1-2', ['x', '']);
    sent.length = 0;
    expect(await admin.retryAllDeadLetters(operator, stream)).toMatchObject({ done: 2 });
    expect(calls()).toEqual([['admin-append-retried', [stream], [`respire-admin:${dead}`, r1, '2', 'k', 'v', 'k2', 'v2', r2, '1', 'x', '']]]);
  });

  it('release, ack and idle-consumer removal: the stream; group, entry ID, consumer, delivery count, then the idle time / delete flag / threshold', async () => {
    const { stream } = uniqueKeys('order-pel');
    const admin = new RespireAdmin(client, { streams: [{ stream }] });
    const [a, b] = await pendingPair(conn, stream, 'c');
    sent.length = 0;
    expect(await admin.releasePending(operator, stream, 'g', a, { deliveryCount: 1, consumer: 'c' })).toEqual({ status: 'released' });
    expect(await admin.ackPending(operator, stream, 'g', b, { deliveryCount: 1, consumer: 'c' }, { deleteEntry: true })).toEqual({
      status: 'acknowledged',
      entryDeleted: true,
    });
    expect(await admin.ackPending(operator, stream, 'g', a, { deliveryCount: 1, consumer: 'c' })).toEqual({ status: 'acknowledged' });
    expect(await admin.removeIdleConsumers(operator, stream, 'g', 60_000)).toEqual({ removed: [], keptWithPending: [] });
    expect(calls()).toEqual([
      ['admin-release-pending', [stream], ['g', a, 'c', '1', '2147483647']],
      ['admin-ack-pending', [stream], ['g', b, 'c', '1', '1']],
      ['admin-ack-pending', [stream], ['g', a, 'c', '1', '0']],
      ['admin-remove-idle-consumers', [stream], ['g', '60000']],
    ]);
  });
});

describe('queue message scripts: KEYS and ARGV in header order (real Redis)', () => {
  it('release and delete of a leased queue message: the stream and deadlines; (group,) entry ID, delivery count, deadline', async () => {
    const conn = await standalone<RedisClientLike>(inject('redisUrl'));
    try {
      const sent: string[][] = [];
      const real = conn.client as unknown as { sendCommand(args: unknown[], options?: object): Promise<unknown> };
      const client = { isOpen: true, sendCommand: (args: unknown[], options?: object) => (sent.push(args.map(String)), real.sendCommand(args, options)) };
      const name = uniqueQueue('order-msg');
      const id = `{respire-queue:${name}}:stream`;
      const deadlines = `{respire-queue:${name}}:deadlines`;
      const admin = new RespireAdmin(client, { queues: [{ name }] });
      const { ReliableQueue, utf8Codec } = await import('@respire/queue');
      const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec });
      await queue.send('a');
      await queue.send('b');
      const [a, b] = await queue.receive(60_000, { max: 2 });
      const until = async (entry: string) => (await admin.queueMessage(id, entry))!.untilMs!;
      const [ua, ub] = [await until(a!.id), await until(b!.id)];
      sent.length = 0;
      expect(await admin.releaseQueueMessage(operator, id, a!.id, { deliveryCount: 1, untilMs: ua })).toEqual({ status: 'released' });
      expect(await admin.deleteQueueMessage(operator, id, b!.id, { deliveryCount: 1, untilMs: ub })).toEqual({ status: 'deleted' });
      const bySha = new Map(scripts.allScripts.map((x) => [x.sha1, x.name]));
      const evals = sent.filter((args) => args[0] === 'EVALSHA').map((args) => [bySha.get(args[1]!) ?? 'unknown', ...args.slice(3)]);
      expect(evals).toEqual([
        ['admin-release-queue-message', id, deadlines, a!.id, '1', String(ua)],
        ['admin-delete-queue-message', id, deadlines, 'respire', b!.id, '1', String(ub)],
      ]);
    } finally {
      await conn.close();
    }
  });
});

/** Type-level checks (run by `pnpm typecheck`, never called): the wrappers take the header's names. */
const misnamed = (redis: Redis) => {
  // @ts-expect-error -- `entryId` is not in admin-release-pending's header (it is `id`)
  void redis.script('releasePending', { stream: 's', group: 'g', entryId: '1-0', consumer: 'c', deliveryCount: 1, idleMs: 1 }, 'test');
  // @ts-expect-error -- `deleteEntry` is missing
  void redis.script('ackPending', { stream: 's', group: 'g', id: '1-0', consumer: 'c', deliveryCount: 1 }, 'test');
  // @ts-expect-error -- not an admin script
  void redis.script('queueAck', { stream: 's', deadlines: 'd', group: 'g', receipts: [] }, 'test');
};
void misnamed;
