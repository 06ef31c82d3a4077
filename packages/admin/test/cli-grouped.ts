// The `respire` CLI's grouped-queue commands, run by cli.test.ts with its built binary (one build per run).
import type { RedisClientLike } from '@respire/core-scripts';
import type { Connection as HarnessConnection } from '@respire/harness';
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { expect, it } from 'vitest';
import { uniqueQueue } from './support.js';

type Run = (args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;

/** The grouped-queue commands' tests, inside the CLI suite that built the binary. */
export function groupedCommandTests(respire: Run, connection: () => HarnessConnection<RedisClientLike>): void {
  it('groups list, show, ready and group: counts, largest backlogs, blocked heads; group IDs rendered inert; a mistyped queue is not found', async () => {
    const name = uniqueQueue('cligroups');
    const queue = new ReliableQueue(connection().client, name, { codec: utf8Codec, groups: {}, keyPrefix: 'cli:' });
    // A hostile group ID: an ANSI escape and a newline are user data, never terminal control.
    const evil = 'evil\u001b[31m\nred';
    await queue.sendMany([
      { payload: 'a1', groupId: evil },
      { payload: 'a2', groupId: evil },
      { payload: 'a3', groupId: evil },
      { payload: 'b1', groupId: 'b' },
      { payload: 'c1', groupId: 'c' },
      { payload: 'c2', groupId: 'c' },
    ]);
    const [head] = await queue.receive(60_000, { max: 1 });
    expect(head!.groupId).toBe(evil);

    const list = await respire(['groups', 'list', '--key-prefix', 'cli:', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).groupedQueues.filter((q: { name: string }) => q.name === name)).toEqual([
      expect.objectContaining({ name, keyPrefix: 'cli:', messages: 6, groups: 3, readyGroups: 2, inFlight: 1, discovered: true }),
    ]);
    expect((await respire(['groups', 'list'])).stdout).toMatch(new RegExp(`${name} +cli: +6 +3 +2 +1 +0`));

    const show = await respire(['groups', 'show', '--queue', name, '--key-prefix', 'cli:']);
    expect(show.code).toBe(0);
    expect(show.stdout).not.toContain('\u001b');
    expect(show.stdout).toContain('evil\\x1b[31m\\x0ared');
    expect(show.stdout).toMatch(/3 groups with messages \(2 ready, 1 blocked\)/);
    expect(show.stdout).toMatch(/evil\\x1b\[31m\\x0ared +3\nc +2\nb +1/);
    expect(show.stdout).toMatch(new RegExp(`evil\\\\x1b\\[31m\\\\x0ared +${head!.id} +1 +\\S+ +leased`));
    const json = JSON.parse((await respire(['groups', 'show', '--queue', name, '--key-prefix', 'cli:', '--json'])).stdout);
    expect(json.largestBacklogs.items[0]).toEqual({ groupId: evil, backlog: 3 });
    expect(json.inFlightPage.items).toEqual([expect.objectContaining({ groupId: evil, entryId: head!.id, deliveryCount: 1, leased: true, due: false })]);

    const ready = await respire(['groups', 'ready', '--queue', name, '--key-prefix', 'cli:', '--count', '1']);
    expect(ready.stdout).toMatch(/^GROUP +BACKLOG\nb +1\nnext page: --cursor \S+/);
    const cursor = /--cursor (\S+)/.exec(ready.stdout)![1]!;
    expect((await respire(['groups', 'ready', '--queue', name, '--key-prefix', 'cli:', '--count', '1', '--cursor', cursor])).stdout).toMatch(
      /^GROUP +BACKLOG\nc +2$/m,
    );

    const one = await respire(['groups', 'group', '--queue', name, '--key-prefix', 'cli:', evil]);
    expect(one.stdout).toContain(`group evil\\x1b[31m\\x0ared: blocked\nbacklog: 3\nhead: ${head!.id}\nin flight: 1`);

    const typo = await respire(['groups', 'show', '--queue', `${name}x`, '--key-prefix', 'cli:', '--json']);
    expect(typo.code).toBe(1);
    expect(JSON.parse(typo.stdout).error).toMatchObject({ code: 'NOT_FOUND', notFound: { known: [name] } });
  });

  it('groups dead-letters, retry-dead-letters and delete-dead-letters: records with their groups, retried into them, confirmation for deletes and --all', async () => {
    const name = uniqueQueue('cligdl');
    const conn = connection();
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, groups: {}, keyPrefix: 'cli:', deliveryLimit: 1 });
    const evil = 'g\u001b[31m';
    for (const [payload, groupId] of [
      ['one', evil],
      ['two', 'b'],
      ['three', 'c'],
      ['four', 'd'],
    ]) {
      await queue.send(payload!, { groupId: groupId! });
    }
    for (const m of await queue.receive(60_000, { max: 10 })) await queue.nack(m);
    expect(await queue.receive(60_000, { max: 10 })).toEqual([]);
    const address = ['--queue', name, '--key-prefix', 'cli:'];

    const list = await respire(['groups', 'dead-letters', ...address, '--oldest']);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain('\u001b');
    expect(list.stdout).toMatch(/^ID +GROUP +SOURCE ID +DELIVERIES +PAYLOAD\n\S+ +g\\x1b\[31m +\S+ +1 +.*one/);
    const json = JSON.parse((await respire(['groups', 'dead-letters', ...address, '--oldest', '--json'])).stdout);
    expect(json.items.map((r: { group: string; deliveryCount: number; payload: { text: string } }) => [r.group, r.deliveryCount, r.payload.text])).toEqual([
      [evil, 1, 'one'],
      ['b', 1, 'two'],
      ['c', 1, 'three'],
      ['d', 1, 'four'],
    ]);
    const ids: string[] = json.items.map((r: { id: string }) => r.id);
    const byGroup = JSON.parse((await respire(['groups', 'dead-letters', ...address, '--group', 'c', '--json'])).stdout);
    expect(byGroup.items.map((r: { id: string }) => r.id)).toEqual([ids[2]]);

    expect((await respire(['groups', 'retry-dead-letters', ...address])).code).toBe(2);
    const retried = await respire(['groups', 'retry-dead-letters', ...address, '--id', ids[0]!, '1-1']);
    expect(retried.code).toBe(1);
    expect(retried.stdout).toMatch(new RegExp(`^${ids[0]}: retried as \\d+-\\d+\n1-1: missing`));
    const [again] = await queue.receive(60_000);
    expect([again!.payload, again!.groupId, again!.deliveryCount]).toEqual(['one', evil, 1]);

    const refused = await respire(['groups', 'delete-dead-letters', ...address, '--id', ids[1]!]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/stdin is not a terminal: pass --yes/);
    const deleted = JSON.parse((await respire(['groups', 'delete-dead-letters', ...address, '--id', ids[1]!, '--yes', '--json'])).stdout);
    expect(deleted.results).toEqual([{ id: ids[1], status: 'deleted' }]);

    expect((await respire(['groups', 'retry-dead-letters', ...address, '--all'])).code).toBe(2);
    const all = await respire(['groups', 'retry-dead-letters', ...address, '--all', '--limit', '1', '--yes', '--json']);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual({ done: 1, failed: 0, aborted: false });
    const purged = await respire(['groups', 'delete-dead-letters', ...address, '--all', '--yes']);
    expect(purged.stdout).toBe('Deleted 1.\n');
    expect(JSON.parse((await respire(['groups', 'dead-letters', ...address, '--json'])).stdout).items).toEqual([]);
    expect((await queue.receive(60_000, { max: 10 })).map((m) => m.payload)).toEqual(['three']);

    const typo = await respire(['groups', 'dead-letters', '--queue', `${name}x`, '--key-prefix', 'cli:', '--json']);
    expect(typo.code).toBe(1);
    expect(JSON.parse(typo.stdout).error).toMatchObject({ code: 'NOT_FOUND' });
  });
}
