// The `respire partitions` command, run by cli.test.ts with its built binary (one build per run).
import type { RedisClientLike } from '@respire/core-scripts';
import type { Connection as HarnessConnection } from '@respire/harness';
import { PartitionedQueue, utf8Codec } from '@respire/queue';
import { createCluster } from 'redis';
import { expect, inject, it } from 'vitest';
import { sleep, uniqueQueue } from './support.js';

type Run = (args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;

/** The partitioned-queue command's tests, inside the CLI suite that built the binary. */
export function partitionCommandTests(respire: Run, connection: () => HarnessConnection<RedisClientLike>): void {
  it('lists partitioned queues and shows one with its partitions and dead letters; a mistyped name is not found, with the nearest', async () => {
    const name = uniqueQueue('clipq');
    const queue = new PartitionedQueue(connection().client, name, { codec: utf8Codec, partitions: 4, deliveryLimit: 1, keyPrefix: 'cli:' });
    await queue.sendMany(['a', 'b', 'c', 'd', 'e', 'f'].map((payload) => ({ payload })));
    const lapsed = await queue.receive(1, { max: 2 });
    await sleep(20);
    await queue.receive(60_000, { max: 4 });

    const list = await respire(['partitions', '--key-prefix', 'cli:', '--json']);
    expect(list.code).toBe(0);
    const listed = JSON.parse(list.stdout).partitionedQueues.filter((q: { name: string }) => q.name === name);
    expect(listed).toEqual([expect.objectContaining({ name, keyPrefix: 'cli:', partitions: 4, discovered: true })]);
    // Two dead-lettered of six; the other four leased or still ready (a receive samples the partitions).
    const { totals } = listed[0];
    expect(totals).toMatchObject({ length: 4, due: 0, deadLetters: 2 });
    expect(totals.ready + totals.inFlight).toBe(4);
    const human = await respire(['partitions']);
    expect(human.stdout).toMatch(/QUEUE +KEY PREFIX +PARTITIONS +MESSAGES +READY +IN FLIGHT +DUE +DEAD LETTERS/);
    expect(human.stdout).toMatch(new RegExp(`${name} +cli: +4 +4 +${totals.ready} +${totals.inFlight} +0 +2`));

    const show = await respire(['partitions', name, '--key-prefix', 'cli:', '--json']);
    expect(show.code).toBe(0);
    const status = JSON.parse(show.stdout);
    expect(status.partitionList.map((p: { queue: string }) => p.queue)).toEqual(queue.partitionNames);
    expect(status.masters).toBeNull();
    const table = await respire(['partitions', name, '--key-prefix', 'cli:']);
    expect(table.stdout).toContain(`partitioned queue ${name}: 4 partitions, 4 messages, ${totals.ready} ready, ${totals.inFlight} in flight, 2 dead letters`);
    expect(table.stdout).toMatch(new RegExp(`3 +${queue.partitionNames[3]!.replace(/\./g, '\\.')} +\\d+ +- +`));

    const dead = await respire(['partitions', name, '--key-prefix', 'cli:', '--dead-letters', '--count', '1', '--json']);
    expect(dead.code).toBe(0);
    const page = JSON.parse(dead.stdout).deadLetters;
    expect(page.items).toHaveLength(1);
    const rest = JSON.parse(
      (await respire(['partitions', name, '--key-prefix', 'cli:', '--dead-letters', '--cursor', page.next, '--json'])).stdout,
    ).deadLetters;
    const rows = [...page.items, ...rest.items].map((r: { partition: number; sourceId: string }) => [r.partition, r.sourceId]).sort();
    expect(rows).toEqual(lapsed.map((m) => [m.partition, m.id]).sort());

    const typo = await respire(['partitions', `${name}x`, '--key-prefix', 'cli:', '--json']);
    expect(typo.code).toBe(1);
    expect(JSON.parse(typo.stdout).error).toMatchObject({ code: 'NOT_FOUND', notFound: { known: [name] } });
    const usage = await respire(['partitions', '--dead-letters']);
    expect(usage.code).toBe(2);
  });

  it('shows a grown queue with every partition it has had, numbered as the queue numbers them, current or draining', async () => {
    const name = uniqueQueue('clipg');
    await new PartitionedQueue(connection().client, name, { codec: utf8Codec, partitions: 2 }).send('before');
    expect(await PartitionedQueue.grow(connection().client, name, 4)).toMatchObject({ grown: true });
    const queue = new PartitionedQueue(connection().client, name, { codec: utf8Codec, partitions: 4 });
    await queue.send('after');
    const all = queue.partitionNames.length;
    expect(all).toBeGreaterThan(4);
    const show = await respire(['partitions', name, '--json']);
    expect(show.code).toBe(0);
    const status = JSON.parse(show.stdout);
    expect(status).toMatchObject({ partitions: 4, allPartitions: all, grouped: false, history: [{ count: 2, sinceMs: 0 }, { count: 4 }] });
    expect(status.partitionList.map((p: { index: number; queue: string }) => [p.index, p.queue])).toEqual(queue.partitionNames.map((q, n) => [n, q]));
    const current = new Set(queue.currentPartitions);
    expect(status.partitionList.map((p: { current: boolean }) => p.current)).toEqual(queue.partitionNames.map((_, n) => current.has(n)));
    const table = await respire(['partitions', name]);
    expect(table.stdout).toContain(`partitioned queue ${name}: 4 partitions (grown 2 → 4; ${all} in all, ${all - 4} draining), 2 messages`);
    expect(table.stdout).toMatch(/PARTITION +QUEUE +SLOT +MASTER +STATE +MESSAGES/);
    for (const [n, q] of queue.partitionNames.entries()) {
      expect(table.stdout).toMatch(new RegExp(`\\n${n} +${q.replace(/\./g, '\\.')} +\\d+ +- +${current.has(n) ? 'current' : 'draining'} +`));
    }
    const list = await respire(['partitions']);
    expect(list.stdout).toMatch(new RegExp(`${name} +4 \\(\\+${all - 4} draining\\) +2 +`));
  });

  it('--cluster: the partitions of each master', async () => {
    const client = createCluster({ rootNodes: inject('clusterUrls').map((url) => ({ url })) });
    client.on('error', () => {});
    await client.connect();
    try {
      const name = uniqueQueue('clipq');
      const queue = new PartitionedQueue(client, name, { codec: utf8Codec, partitions: 6 });
      await queue.sendMany(Array.from({ length: 12 }, (_, i) => ({ payload: `m${i}` })));
      const run = await respire(['--cluster', '--url', inject('clusterUrls')[0]!, 'partitions', name, '--json']);
      expect(run.code).toBe(0);
      const status = JSON.parse(run.stdout);
      // Six partitions over the harness's 3 masters: two each (stripes of the slot range).
      expect(status.masters.map((m: { partitions: number[]; length: number }) => [m.partitions.length, m.length])).toEqual([
        [2, 4],
        [2, 4],
        [2, 4],
      ]);
      const human = await respire(['--cluster', '--url', inject('clusterUrls')[0]!, 'partitions', name]);
      expect(human.stdout).toMatch(/per master:\nMASTER +PARTITIONS +MESSAGES/);
    } finally {
      client.destroy();
    }
  });
}
