// Pages at scale on a private server: 200,000 dead letters, a 200,000-entry PEL and 5,000 queues; every page bounded, timed, and telling the whole truth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillPending, fillQueues, fillWorkerDeadLetters, privateRedis } from './fixtures.js';
import { get, q, startWorld, type World } from './support.js';

const BIG = 200_000;
const QUEUES = 5000;
/** Page times measured here, printed at the end (the README's figures come from this output). */
const timings: [string, number][] = [];
/** Bulk job rates measured here, records per second. */
const rates: [string, number][] = [];

async function timed(world: World, label: string, path: string, check: (body: string) => void = () => {}): Promise<string> {
  // The median of three loads: the first of each kind warms the code paths.
  const runs: number[] = [];
  let body = '';
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const page = await get(world, path);
    runs.push(performance.now() - started);
    expect(page.status, `${label}: ${page.body.slice(0, 300)}`).toBe(200);
    body = page.body;
  }
  check(body);
  timings.push([label, runs.sort((a, b) => a - b)[1]!]);
  return body;
}

describe('at scale (a private server)', { timeout: 240_000 }, () => {
  let redis: Awaited<ReturnType<typeof privateRedis>>;
  let world: World;
  beforeAll(async () => {
    redis = await privateRedis();
    const started = performance.now();
    world = await startWorld({ label: 'scale', url: redis.url, admin: { discoverQueues: { scanCount: 1000, maxPages: 1000 } } });
    await fillWorkerDeadLetters(redis.raw, world.stream.dead, BIG);
    await fillPending(redis.raw, world.stream.key, world.stream.group, BIG);
    await fillQueues(redis.raw, 'many', QUEUES);
    timings.push(['fixtures (200,000 dead letters, a 200,000-entry PEL, 5,000 queues)', performance.now() - started]);
  }, 240_000);
  afterAll(async () => {
    console.log(`page times (median of 3, ms):\n${timings.map(([l, ms]) => `  ${l}: ${ms.toFixed(0)}`).join('\n')}`);
    console.log(`bulk jobs (records per second, no rate limit, pages of 500):\n${rates.map(([l, r]) => `  ${l}: ${r.toFixed(0)}`).join('\n')}`);
    await world?.close();
    await redis?.close();
  });

  it('200,000 dead letters: first, next, last and previous pages and a search by reason, each a bounded read', async () => {
    const id = world.stream.id;
    const first = await timed(world, 'dead letters, first page of 200,000', `/dead-letters${q({ id })}`, (b) =>
      expect(b).toContain('<strong>200,000</strong> dead letters'),
    );
    const next = /<a href="([^"]+)" rel="next">/.exec(first)![1]!.replace(/&amp;/g, '&').replace(world.base, '');
    await timed(world, 'dead letters, next page', next);
    const last = await timed(world, 'dead letters, last page (the oldest)', `/dead-letters${q({ id, last: '1' })}`, (b) => expect(b).toContain('<code>'));
    const previous = /<a href="([^"]+)" rel="prev">/.exec(last)![1]!.replace(/&amp;/g, '&').replace(world.base, '');
    await timed(world, 'dead letters, the page before the last', previous);
    await timed(
      world,
      'dead letters, search by reason and group (10,000 records read at most)',
      `/dead-letters${q({ id, reason: 'explicit', group: 'shipping' })}`,
      (b) => expect(b).toMatch(/searched [\d,]+ records for this page/),
    );
    await timed(world, 'dead letters, find by source ID (the 5,000th record)', `/find${q({ id, q: '5000-0' })}`, (b) =>
      expect(b).toContain('Dead letters of this source entry'),
    );
  });

  it('a 200,000-entry PEL: the group page with its total, the last page and the one before it (found by a bounded search)', async () => {
    const base = { id: world.stream.id, group: world.stream.group };
    await timed(world, 'group, first page of a 200,000-entry PEL', `/group${q(base)}`, (b) => expect(b).toContain('Pending entries (200,000 in the group)'));
    const last = await timed(world, 'group, last page of the PEL', `/group${q({ ...base, last: '1' })}`);
    const previous = /<a href="([^"]+)" rel="prev">/.exec(last)![1]!.replace(/&amp;/g, '&').replace(world.base, '');
    await timed(world, 'group, the page before the last', previous);
    await timed(world, "group, one consumer's entries, idle at least 0 minutes", `/group${q({ ...base, consumer: 'host-2-0' })}`);
  });

  it("5,000 queues: the overview's cards add up all of them, on every page; the last page and a name search", async () => {
    const overview = await timed(world, 'overview of 5,000 queues (discovered)', '/');
    const card = (html: string, label: string) => new RegExp(`<span class="card-value">([\\d,]+)</span> <span class="card-label">${label}`).exec(html)?.[1];
    // Each queue has one dead letter; the world's stream has 200,000.
    expect(card(overview, 'dead letters')).toBe((QUEUES + BIG).toLocaleString('en-US'));
    expect(card(overview, 'queue messages ready')).toBe(QUEUES.toLocaleString('en-US'));
    expect(overview).toContain(`Totals across all ${(QUEUES + 1).toLocaleString('en-US')} queues and 1 stream`);
    expect([...overview.matchAll(/<th scope="row"><a class="name" href="[^"]*\/queue\?/g)]).toHaveLength(50);
    const lastPage = await timed(world, 'overview, last page of queues', '/?qpage=100');
    expect(card(lastPage, 'dead letters')).toBe(card(overview, 'dead letters'));
    const search = await timed(world, 'overview, name search', `/${q({ q: 'many-4999' })}`);
    expect(search).toContain('Totals across all 1 queue and 0 streams matching “many-4999”');
    expect(card(search, 'dead letters')).toBe('1');
  });

  // Last: these empty the dead-letter stream the tests above read.
  it('bulk jobs over 200,000 dead letters: a retry of every record, then a delete of every record, each to the end', async () => {
    const actor = { name: 'alice', role: 'operator' } as const;
    const id = world.stream.id;
    const run = async (label: string, action: 'retry' | 'delete') => {
      const started = performance.now();
      const { finished } = await world.admin.startJob(actor, id, { action });
      const job = await finished;
      const seconds = (performance.now() - started) / 1000;
      expect(job).toMatchObject({ state: 'done', done: BIG, failed: 0, missing: 0 });
      rates.push([label, BIG / seconds]);
    };
    const sourceBefore = Number(await redis.raw(['XLEN', world.stream.key]));
    await run('retry of 200,000 worker dead letters (each XADD to its stream, XDEL of the record, one script per page)', 'retry');
    expect(Number(await redis.raw(['XLEN', world.stream.key]))).toBe(sourceBefore + BIG);
    expect(Number(await redis.raw(['XLEN', world.stream.dead]))).toBe(0);
    await fillWorkerDeadLetters(redis.raw, world.stream.dead, BIG);
    await run('delete of 200,000 dead letters (XDEL per page)', 'delete');
    expect(Number(await redis.raw(['XLEN', world.stream.dead]))).toBe(0);
  });
});
