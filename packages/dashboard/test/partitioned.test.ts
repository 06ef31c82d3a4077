// A partitioned queue's pages: its partitions and masters, its dead letters as one list with retry and delete, authorization, and one look in Chromium.
import { PartitionedQueue, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStandaloneDashboard } from '../src/index.js';
import { axeViolations, browserPages, shot } from './browser-page.js';
import { bearer, csrfOf, get, post, q, serveDashboard, sleep, startWorld, stubAdmin, TOKENS, uniqueTag, type World } from './support.js';

/** A partitioned queue with 3 partitions, 6 messages, and one dead letter in each of two partitions (delivery limit 1). */
async function partitionedOf(world: World) {
  const name = uniqueTag('orders');
  const queue = new PartitionedQueue(world.client as never, name, { codec: utf8Codec, partitions: 3, deliveryLimit: 1 });
  await queue.sendMany(['a', 'b', 'c', 'd', 'e', 'f'].map((payload) => ({ payload })));
  const lapsed = await queue.receive(1, { max: 2 });
  await sleep(20);
  // Round 1 asks every partition (3 <= max): each moves its lapsed lease to its dead letters.
  await queue.receive(60_000, { max: 3 });
  return { name, queue, lapsed, id: queue.metadataKey };
}

/** The dead-letter rows of a page: partition, record ID. */
function deadRows(body: string): [string, string][] {
  const table = /<table[^>]*class="dead-letters"[\s\S]*?<\/table>/.exec(body)?.[0] ?? '';
  return [...table.matchAll(/<tr><td class="num">(\d+)<\/td><td><code>([^<]*)<\/code>/g)].map((m) => [m[1]!, m[2]!]);
}

for (const cluster of [false, true]) {
  describe(`partitioned queue pages${cluster ? ' on the Cluster' : ''}`, () => {
    let world: World;
    beforeAll(async () => {
      world = await startWorld({ label: cluster ? 'pqc' : 'pq', cluster, admin: { discoverPartitionedQueues: true } });
    });
    afterAll(() => world.close());

    it('lists partitioned queues, linked from the header; a queue shows its partitions (and masters on a Cluster) and its dead letters as one list', async () => {
      const { name, queue, lapsed, id } = await partitionedOf(world);
      expect((await get(world, '/')).body).toContain(`href="${world.base}/partitioned-queues"`);
      const list = await get(world, '/partitioned-queues', TOKENS.viewer);
      expect(list.status).toBe(200);
      expect(list.body).toContain(`href="${world.base}/partitioned-queue${q({ id })}"`);
      const tr = new RegExp(`${name}</a>[\\s\\S]*?</tr>`).exec(list.body)?.[0] ?? '';
      // Partitions, messages, ready, in flight, due, dead letters.
      const cells = [...tr.matchAll(/<td class="num[^"]*">([^<]*)/g)].map((m) => m[1]!);
      expect([cells[0], cells[1], cells[4], cells[5]]).toEqual(['3', '4', '0', '2']);
      expect(Number(cells[2]) + Number(cells[3])).toBe(4);

      const page = await get(world, `/partitioned-queue${q({ id })}`, TOKENS.viewer);
      expect(page.status).toBe(200);
      expect(page.body).toContain('3 partitions recorded');
      for (const partition of queue.partitionNames) expect(page.body).toContain(partition);
      expect(page.body.includes('class="masters"')).toBe(cluster);
      if (cluster) expect((/<table[^>]*class="masters"[\s\S]*?<\/table>/.exec(page.body)?.[0] ?? '').match(/<tr><th scope="row">/g)).toHaveLength(3);
      expect(
        deadRows(page.body)
          .map(([p]) => Number(p))
          .sort(),
      ).toEqual(lapsed.map((m) => m.partition).sort());
      // A viewer sees no actions.
      expect(page.body).not.toContain('/actions/partition-retry');
      expect((await get(world, `/partitioned-queue${q({ id: id.replace('}:', 'x}:') })}`)).status).toBe(404);
    });

    it('a grown queue shows every partition it has had, numbered as the queue numbers them, current or draining', async () => {
      const name = uniqueTag('grown');
      await new PartitionedQueue(world.client as never, name, { codec: utf8Codec, partitions: 2 }).send('before');
      await PartitionedQueue.grow(world.client as never, name, 4);
      const queue = new PartitionedQueue(world.client as never, name, { codec: utf8Codec, partitions: 4 });
      await queue.send('after');
      const all = queue.partitionNames.length;
      expect(all).toBeGreaterThan(4);
      const current = new Set(queue.currentPartitions);
      const list = await get(world, '/partitioned-queues', TOKENS.viewer);
      const tr = new RegExp(`${name}</a>[\\s\\S]*?</tr>`).exec(list.body)?.[0] ?? '';
      expect(tr).toContain(`+${all - 4} draining`);
      const page = await get(world, `/partitioned-queue${q({ id: queue.metadataKey })}`, TOKENS.viewer);
      expect(page.status).toBe(200);
      expect(page.body).toContain(`(grown 2 → 4: ${all} partitions in all, ${all - 4} of earlier counts still drained by receives)`);
      const table = /<table[^>]*class="partitions"[\s\S]*?<\/table>/.exec(page.body)?.[0] ?? '';
      const rows = [
        ...table.matchAll(
          /<tr><td class="num">(\d+)<\/td><th scope="row"><span class="name">([^<]*)<\/span><\/th><td class="num">\d+<\/td><td>[\s\S]*?<\/td><td>(current|<span class="muted">draining)/g,
        ),
      ].map((m) => [Number(m[1]), m[2], m[3] === 'current']);
      expect(rows).toEqual(queue.partitionNames.map((partition, n) => [n, partition, current.has(n)]));
    });

    it('an operator retries one dead letter to its partition and deletes another after a confirmation, audited; a viewer gets 403', async () => {
      const { queue, id } = await partitionedOf(world);
      const page = await get(world, `/partitioned-queue${q({ id, count: '1' })}`);
      expect(deadRows(page.body)).toHaveLength(1);
      expect(page.body).toContain('rel="next"');
      const all = deadRows((await get(world, `/partitioned-queue${q({ id })}`)).body);
      const [[retryPartition, retryRecord], [deletePartition, deleteRecord]] = all as [[string, string], [string, string]];
      const csrf = csrfOf(page.body);
      expect(
        (await post(world, '/actions/partition-retry', { _csrf: csrf, id, partition: retryPartition, record: retryRecord }, { token: TOKENS.viewer })).status,
      ).toBe(403);
      expect((await get(world, `/confirm/partition-delete${q({ id, partition: deletePartition, record: deleteRecord })}`, TOKENS.viewer)).status).toBe(403);

      const before = await queue.receive(60_000, { max: 10 });
      const retried = await post(world, '/actions/partition-retry', { _csrf: csrf, id, partition: retryPartition, record: retryRecord });
      expect(retried.status).toBe(303);
      const after = await get(world, `${world.origin}${retried.headers.get('location')!}`);
      expect(after.body).toContain(`Retried dead letter ${retryRecord}`);
      const back = await queue.receive(60_000, { max: 10 });
      expect(back.map((m) => m.partition)).toEqual([Number(retryPartition)]);
      await queue.ackMany([...before, ...back]);

      const confirm = await get(world, `/confirm/partition-delete${q({ id, partition: deletePartition, record: deleteRecord })}`);
      expect(confirm.status).toBe(200);
      expect(confirm.body).toContain(`of partition ${deletePartition}`);
      const deleted = await post(world, '/actions/partition-delete', { _csrf: csrfOf(confirm.body), id, partition: deletePartition, record: deleteRecord });
      expect(deleted.status).toBe(303);
      expect(deadRows((await get(world, `/partitioned-queue${q({ id })}`)).body)).toEqual([]);
      const again = await post(world, '/actions/partition-delete', { _csrf: csrfOf(confirm.body), id, partition: deletePartition, record: deleteRecord });
      expect(again.status).toBe(409);
      expect((await post(world, '/actions/partition-delete', { _csrf: csrf, id, partition: '3', record: deleteRecord })).status).toBe(400);
      expect(world.audits.filter((r) => r.resource === id).map((r) => [r.actor, r.action, r.result, String(r.target.partition)])).toEqual([
        ['alice', 'retry', 'ok', retryPartition],
        ['alice', 'delete', 'ok', deletePartition],
        ['alice', 'delete', 'missing', deletePartition],
      ]);
    });
  });
}

describe('partitioned queue pages when Redis cannot answer', () => {
  it('a read that failed in transport, or with a retryable reply, is a 503 "Try again"; another server reply a 500', async () => {
    const failure = (name: string, code: string, retryable: boolean) => Object.assign(new Error('down'), { name, code, retryable, outcomeUnknown: true });
    const served = await serveDashboard({
      admin: stubAdmin({
        partitionedQueues: () => {
          throw failure('RespireTransportError', 'TRANSPORT_FAILED', false);
        },
        partitionedQueue: (id: string) => {
          throw id === 'a' ? failure('RespireServerError', 'SERVER_ERROR', true) : failure('RespireServerError', 'SERVER_ERROR', false);
        },
      }),
      onError: () => {},
    });
    try {
      const statuses: number[] = [];
      for (const path of ['/partitioned-queues', '/partitioned-queue?id=a', '/partitioned-queue?id=b']) {
        statuses.push((await fetch(`${served.url}${path}`, { headers: bearer(TOKENS.viewer) })).status);
      }
      expect(statuses).toEqual([503, 503, 500]);
    } finally {
      await served.close();
    }
  });
});

describe('a partitioned queue the server refuses to read', () => {
  it('is named on the list with its error code, and the others are still listed', async () => {
    const resource = (name: string) => ({
      kind: 'partitioned-queue',
      id: `{respire-partitioned:${name}}:partitions`,
      name,
      keyPrefix: '',
      metadataKey: '',
      discovered: true,
    });
    const served = await serveDashboard({
      admin: stubAdmin({
        partitionedQueues: () => ({
          partitionedQueues: [
            {
              ...resource('fine'),
              partitions: 2,
              history: [{ count: 2, sinceMs: 0 }],
              grouped: false,
              allPartitions: 2,
              unreadable: null,
              totals: { length: 5, ready: 5, inFlight: 0, due: 0, deadLetters: 0 },
            },
          ],
          discoveryTruncated: false,
          unavailable: [{ resource: resource('broken'), code: 'WRONG_TYPE', message: 'a key of another type' }],
        }),
      }),
    });
    try {
      const page = await fetch(`${served.url}/partitioned-queues`, { headers: bearer(TOKENS.viewer) });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toMatch(/Could not read partitioned queue [\s\S]*?broken[\s\S]*?\(WRONG_TYPE\): a key of another type/);
      expect(html).toContain('>fine</a>');
    } finally {
      await served.close();
    }
  });
});

describe('partitioned queues with a guard', () => {
  let world: World;
  beforeAll(async () => void (world = await startWorld({ label: 'pqguard', admin: { discoverPartitionedQueues: true }, dashboard: { guard: () => true } })));
  afterAll(() => world?.close());

  it('stay hidden (fail closed): listed nowhere, 404', async () => {
    const { name, id } = await partitionedOf(world);
    expect((await get(world, '/partitioned-queues')).body).not.toContain(name);
    expect((await get(world, `/partitioned-queue${q({ id })}`)).status).toBe(404);
  });
});

describe('respire-dashboard (standalone) partitioned queues', () => {
  let world: World;
  beforeAll(async () => void (world = await startWorld({ label: 'pqsolo' })));
  afterAll(() => world?.close());

  it('shows configured partitioned queues, and discovered ones with discoverPartitionedQueues', async () => {
    const { name } = await partitionedOf(world);
    const token = 'operator-token-0123456789abcdef';
    for (const [options, shown] of [
      [{ partitionedQueues: [{ name }] }, true],
      [{ discoverPartitionedQueues: true }, true],
      [{}, false],
    ] as const) {
      const server = await startStandaloneDashboard({
        url: inject('redisUrl'),
        port: 0,
        users: [{ name: 'op', role: 'operator', token }],
        audit: () => {},
        ...options,
      });
      try {
        const origin = new URL(server.url).origin;
        const signedIn = await fetch(`${server.url}login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin, 'sec-fetch-site': 'same-origin' },
          body: new URLSearchParams({ name: 'op', token, next: '/' }),
        });
        const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
        const page = await fetch(`${server.url}partitioned-queues`, { headers: { cookie } });
        expect(page.status).toBe(200);
        expect((await page.text()).includes(name), JSON.stringify(options)).toBe(shown);
      } finally {
        await server.close();
      }
    }
  });
});

describe('partitioned queue page in Chromium', { timeout: 120_000 }, () => {
  const { open } = browserPages();
  let world: World;
  beforeAll(async () => void (world = await startWorld({ label: 'pqbrowser', cluster: true, admin: { discoverPartitionedQueues: true } })));
  afterAll(() => world?.close());

  it('from the header to the list to a queue: partitions, masters and dead letters, accessible; retry from the page', async () => {
    const { name } = await partitionedOf(world);
    const { page } = await open();
    await page.goto(`${world.url}/`);
    await page.getByRole('link', { name: 'Partitioned queues', exact: true }).click();
    await page.waitForURL(/\/partitioned-queues$/);
    await page.getByRole('link', { name }).click();
    await page.waitForURL(/\/partitioned-queue\?id=/);
    await expect(page.locator('table.partitions tbody tr').count()).resolves.toBe(3);
    await expect(page.locator('table.masters tbody tr').count()).resolves.toBe(3);
    await expect(page.locator('table.dead-letters tbody tr').count()).resolves.toBe(2);
    await shot(page, 'partitioned-queue');
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('table.dead-letters button', { hasText: 'Retry' }).first().click();
    await page.waitForURL(/\/partitioned-queue\?id=/);
    await expect(page.locator('main').innerText()).resolves.toMatch(/Retried dead letter \d+-\d+/);
    await expect(page.locator('table.dead-letters tbody tr').count()).resolves.toBe(1);
  });
});
