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
}
