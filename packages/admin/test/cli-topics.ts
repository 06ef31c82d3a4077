// The `respire` CLI's topic commands, run by cli.test.ts with its built binary (one build per run).
import type { RedisClientLike } from '@respire/core-scripts';
import type { Connection as HarnessConnection } from '@respire/harness';
import { ReliableTopic, utf8Codec } from '@respire/queue';
import { expect, it } from 'vitest';
import { range, sleep, uniqueQueue } from './support.js';

type Run = (args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;

/** The topic commands' tests, inside the CLI suite that built the binary: `respire` runs it, `connection()` is the harness's Redis. */
export function topicCommandTests(respire: Run, connection: () => HarnessConnection<RedisClientLike>): void {
  it('list and show: subscriptions with lag, pending, oldest age, dead letters; a mistyped topic is not found with the nearest', async () => {
    const name = uniqueQueue('clitopic');
    const conn = connection();
    const topic = new ReliableTopic(conn.client, name, { codec: utf8Codec, keyPrefix: 'cli:' });
    const billing = topic.subscription('billing', { start: 'earliest' });
    const audit = topic.subscription('audit', { start: 'earliest', deliveryLimit: 1 });
    await Promise.all([billing.create(), audit.create()]);
    await topic.publishMany(['a', 'b', 'c']);
    await billing.receive(60_000, { max: 1 });
    await audit.receive(1, { max: 1 });
    await sleep(20);
    await audit.ackMany(await audit.receive(60_000, { max: 2 }));

    const list = await respire(['topics', 'list', '--key-prefix', 'cli:', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).topics.filter((t: { name: string }) => t.name === name)).toEqual([
      expect.objectContaining({ name, keyPrefix: 'cli:', publications: 3, subscriptions: 2, discovered: true }),
    ]);
    const human = await respire(['topics', 'list']);
    expect(human.stdout).toMatch(new RegExp(`${name} +cli: +3 +2`));

    const show = await respire(['topics', 'show', '--topic', name, '--key-prefix', 'cli:', '--json']);
    expect(show.code).toBe(0);
    const subs = JSON.parse(show.stdout).subscriptionList;
    expect(subs.map((s: { name: string; lag: number; pending: number; deadLetters: number }) => [s.name, s.lag, s.pending, s.deadLetters])).toEqual([
      ['audit', 0, 0, 1],
      ['billing', 2, 1, 0],
    ]);
    const table = await respire(['topics', 'show', '--topic', name, '--key-prefix', 'cli:']);
    expect(table.stdout).toMatch(/SUBSCRIPTION +POSITION +LAG +PENDING +RETRIED +OLDEST UNACKED +DEAD LETTERS +TRIMMED/);
    expect(table.stdout).toMatch(/billing +\S+ +2 +1 +0 +\d/);

    const typo = await respire(['topics', 'show', '--topic', `${name}x`, '--key-prefix', 'cli:', '--json']);
    expect(typo.code).toBe(1);
    expect(JSON.parse(typo.stdout).error).toMatchObject({ code: 'NOT_FOUND', notFound: { known: [name] } });
  });

  it('seek asks for confirmation, moves the subscription when confirmed (audited), and dead letters are listed and deleted', async () => {
    const name = uniqueQueue('clitopic');
    const conn = connection();
    const topic = new ReliableTopic(conn.client, name, { codec: utf8Codec });
    const sub = topic.subscription('s', { start: 'earliest', deliveryLimit: 1 });
    await sub.create();
    const ids = await topic.publishMany(['a', 'b', 'c']);
    await sub.receive(1, { max: 1 });
    await sleep(20);
    const leased = await sub.receive(60_000, { max: 2 });
    expect(leased.map((m) => m.payload)).toEqual(['b', 'c']);
    const address = ['--topic', name, '--subscription', 's'];

    const refused = await respire(['topics', 'seek', ...address, 'earliest']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/stdin is not a terminal: pass --yes/);
    expect(await sub.ack(leased[0]!)).toBe(true);

    const usage = await respire(['topics', 'seek', ...address, 'earliest', '--time', '1h', '--yes']);
    expect(usage.code).toBe(2);
    const moved = await respire(['topics', 'seek', ...address, ids[0]!, '--yes', '--actor', 'carol', '--json']);
    expect(moved.code).toBe(0);
    expect(JSON.parse(moved.stdout)).toEqual({ status: 'moved', position: ids[0], discarded: 1 });
    expect(await sub.ack(leased[1]!)).toBe(false);
    expect((await sub.receive(60_000, { max: 10 })).map((m) => [m.payload, m.deliveryCount])).toEqual([
      ['b', 1],
      ['c', 1],
    ]);
    const auditRecords = (await range(conn, 'respire:audit')).filter(([, f]) => f.includes('seek') && f.includes('carol'));
    expect(auditRecords.length).toBeGreaterThanOrEqual(1);

    const nobody = await respire(['topics', 'seek', '--topic', name, '--subscription', 'nobody', 'latest', '--yes', '--json']);
    expect(nobody.code).toBe(1);
    expect(JSON.parse(nobody.stdout).error.code).toBe('NOT_FOUND');

    const dead = await respire(['topics', 'dead-letters', ...address, '--json']);
    expect(dead.code).toBe(0);
    const items = JSON.parse(dead.stdout).items as { id: string; sourceId: string }[];
    expect(items.map((r) => r.sourceId)).toEqual([ids[0]]);
    // Retry: confirmed, for this subscription only; a repeat finds the record gone.
    const retryRefused = await respire(['topics', 'retry-dead-letters', ...address, items[0]!.id]);
    expect(retryRefused.code).toBe(2);
    const retried = await respire(['topics', 'retry-dead-letters', ...address, items[0]!.id, '--yes']);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain(`${items[0]!.id}: retried (publication ${ids[0]})`);
    const retriedAgain = await respire(['topics', 'retry-dead-letters', ...address, items[0]!.id, '--yes', '--json']);
    expect(retriedAgain.code).toBe(1);
    expect(JSON.parse(retriedAgain.stdout)).toEqual({ results: [{ id: items[0]!.id, status: 'missing' }] });
    expect(await respire(['topics', 'retry-dead-letters', ...address, '--yes'])).toMatchObject({ code: 2 });
    // Delivered again (count 1), then dead-lettered again at the limit (1) for the delete below.
    const [redelivered] = await sub.receive(1, { max: 1 });
    expect([redelivered!.id, redelivered!.payload, redelivered!.deliveryCount]).toEqual([ids[0], 'a', 1]);
    await sleep(20);
    await sub.receive(60_000, { max: 1 });
    const all = await respire(['topics', 'retry-dead-letters', ...address, '--all', '--yes', '--json']);
    expect(JSON.parse(all.stdout)).toEqual({ done: 1, failed: 0, aborted: false });
    await sub.receive(1, { max: 1 });
    await sleep(20);
    await sub.receive(60_000, { max: 1 });
    items.splice(0, 1, ...(JSON.parse((await respire(['topics', 'dead-letters', ...address, '--json'])).stdout).items as { id: string; sourceId: string }[]));
    expect(items.map((r) => r.sourceId)).toEqual([ids[0]]);
    const notConfirmed = await respire(['topics', 'delete-dead-letters', ...address, items[0]!.id]);
    expect(notConfirmed.code).toBe(2);
    const deleted = await respire(['topics', 'delete-dead-letters', ...address, items[0]!.id, '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain(`${items[0]!.id}: deleted`);
    const again = await respire(['topics', 'delete-dead-letters', ...address, items[0]!.id, '--yes']);
    expect(again.code).toBe(1);
    // --all: every record present, after a confirmation; neither IDs and --all nor none of them.
    await topic.publishMany(['d', 'e']);
    await sub.receive(1, { max: 10 });
    await sleep(20);
    await sub.receive(60_000, { max: 10 });
    const before = JSON.parse((await respire(['topics', 'dead-letters', ...address, '--json'])).stdout).items as unknown[];
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect((await respire(['topics', 'delete-dead-letters', ...address, '--all'])).code).toBe(2);
    expect((await respire(['topics', 'delete-dead-letters', ...address, '--yes'])).code).toBe(2);
    expect((await respire(['topics', 'delete-dead-letters', ...address, items[0]!.id, '--all', '--yes'])).code).toBe(2);
    const deletedAll = await respire(['topics', 'delete-dead-letters', ...address, '--all', '--yes', '--json']);
    expect(deletedAll.code).toBe(0);
    expect(JSON.parse(deletedAll.stdout)).toEqual({ done: before.length, failed: 0, aborted: false });
    expect(JSON.parse((await respire(['topics', 'dead-letters', ...address, '--json'])).stdout).items).toEqual([]);
  });
}
