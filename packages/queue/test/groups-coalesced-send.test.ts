// A grouped queue's sends of one event-loop turn go out as one script call (README "Message groups"): own results, issue order, a failed call fails each.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandCalls, startRedisServer, type RedisServerHandle } from '@respire/harness';
import { ReliableQueue, RespireKeyTypeError, utf8Codec, type ReceivedMessage } from '@respire/queue';
import { groupedKeys, groupedSnapshot } from './groups-support.js';
import { describeOnTargets, queueFixture, targets } from './support.js';

/** Every message of `queue`, one receive at a time (each acked), in delivery order, per group. */
async function drain(queue: ReliableQueue<string>): Promise<Map<string, string[]>> {
  const byGroup = new Map<string, string[]>();
  for (;;) {
    const batch: ReceivedMessage<string>[] = await queue.receive(30_000, { max: 100 });
    if (batch.length === 0) return byGroup;
    for (const m of batch) byGroup.set(m.groupId!, [...(byGroup.get(m.groupId!) ?? []), m.payload]);
    expect(await queue.ackMany(batch)).toEqual(batch.map(() => true));
  }
}

describeOnTargets('ReliableQueue with groups: sends of one turn', targets, (_target, connection) => {
  const queueOf = queueFixture(connection);

  it('gives each concurrent send its own entry ID, in issue order, and keeps each group in issue order (over several calls)', async () => {
    const queue = queueOf<string>({ groups: {} });
    // 260 sends: more than one call takes (100), so the calls' order counts too.
    const sends = Array.from({ length: 260 }, (_, i) => queue.sendWithResult(`m${i}`, { groupId: `g${i % 4}` }));
    const results = await Promise.all(sends);
    expect(new Set(results.map((r) => r.id)).size).toBe(260);
    expect(results.every((r) => !r.duplicate)).toBe(true);
    // Stream IDs grow in append order: the sends were appended in issue order.
    const ids = await connection().raw(groupedKeys(queue.name).stream, ['XRANGE', groupedKeys(queue.name).stream, '-', '+']);
    expect((ids as [string, unknown][]).map((entry) => String(entry[0]))).toEqual(results.map((r) => r.id));
    const byGroup = await drain(queue);
    for (let g = 0; g < 4; g++) {
      expect(byGroup.get(`g${g}`)).toEqual(Array.from({ length: 65 }, (_, k) => `m${g + 4 * k}`));
    }
  });

  it('keeps issue order across sends not yet sent and a sendMany issued after them', async () => {
    const queue = queueOf<string>({ groups: {} });
    const calls = [queue.send('a1', { groupId: 'a' }), queue.send('a2', { groupId: 'a' })];
    calls.push(
      queue
        .sendMany([
          { payload: 'a3', groupId: 'a' },
          { payload: 'a4', groupId: 'a' },
        ])
        .then((r) => r.map((x) => x.id).join()),
    );
    calls.push(queue.send('a5', { groupId: 'a' }));
    await Promise.all(calls);
    expect((await drain(queue)).get('a')).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('deduplicates within one turn as one send after another would: the repeat returns the first ID', async () => {
    const queue = queueOf<string>({ groups: {} });
    const [first, repeat, other] = await Promise.all([
      queue.sendWithResult('x1', { groupId: 'a', deduplicationId: 'x' }),
      queue.sendWithResult('x2', { groupId: 'b', deduplicationId: 'x' }),
      queue.sendWithResult('y', { groupId: 'a' }),
    ]);
    expect(first!.duplicate).toBe(false);
    expect(repeat).toEqual({ id: first!.id, duplicate: true });
    expect(other!.duplicate).toBe(false);
    const byGroup = await drain(queue);
    expect(byGroup.get('a')).toEqual(['x1', 'y']);
    expect(byGroup.has('b')).toBe(false);
  });

  it('fails every send of a failed call with its error (RespireKeyTypeError), and nothing changes', async () => {
    const queue = queueOf<string>({ groups: {} });
    const keys = groupedKeys(queue.name);
    await queue.send('a1', { groupId: 'a' });
    await connection().raw(keys.ready, ['DEL', keys.ready]);
    await connection().raw(keys.ready, ['SET', keys.ready, 'x']);
    const before = await groupedSnapshot(connection(), queue.name);
    const outcomes = await Promise.allSettled(['b', 'c', 'a'].map((group) => queue.send(`${group}2`, { groupId: group })));
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(RespireKeyTypeError);
    }
    expect(await groupedSnapshot(connection(), queue.name)).toBe(before);
  });
});

/** A private server: INFO commandstats shows only this block's commands. */
describe('ReliableQueue with groups: sends of one turn on a private server', () => {
  let server: RedisServerHandle;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await startRedisServer();
    client = createClient({ url: server.url });
    await client.connect();
  });
  afterAll(async () => {
    client?.destroy();
    await server?.close();
  });

  it('runs one script for the sends of one turn (up to 100), and one per turn for sends one after another', async () => {
    const queue = new ReliableQueue(client, 'coalesced', { codec: utf8Codec, groups: {} });
    await queue.send('warm', { groupId: 'w' }); // loads the script (a first EVALSHA may answer NOSCRIPT)
    const scripts = async () => (await commandCalls(client, 'evalsha')) + (await commandCalls(client, 'eval'));
    const before = await scripts();
    await Promise.all(Array.from({ length: 100 }, (_, i) => queue.send(`m${i}`, { groupId: `g${i % 10}` })));
    expect((await scripts()) - before).toBe(1);
    expect(await commandCalls(client, 'xadd')).toBe(101);
    for (let i = 0; i < 3; i++) await queue.send(`s${i}`, { groupId: 'g0' });
    expect((await scripts()) - before).toBe(4);
    // 250 in one turn: calls of at most 100 (about half a millisecond of server time each).
    await Promise.all(Array.from({ length: 250 }, (_, i) => queue.send(`n${i}`, { groupId: `g${i % 10}` })));
    expect((await scripts()) - before).toBe(7);
  });
});
