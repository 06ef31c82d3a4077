// A grouped queue's groups page: server-rendered against real Redis (counts, largest backlogs, blocked heads, escaping, authorization), and one look in Chromium.
import type { Page } from 'playwright-core';
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, browserPages, shot } from './browser-page.js';
import { get, q, startWorld, TOKENS, uniqueTag, type World } from './support.js';

/** A hostile group ID: markup and a control character are user data. */
const EVIL = '<img src=x onerror=alert(1)>\u0007';

/** Groups EVIL (3 messages, head leased), b (1, head NACKed) and c (2, ready). */
async function groupedOf(world: World) {
  const name = uniqueTag('tenants');
  const queue = new ReliableQueue(world.client as never, name, { codec: utf8Codec, groups: {} });
  await queue.sendMany([
    ...['a1', 'a2', 'a3'].map((payload) => ({ payload, groupId: EVIL })),
    { payload: 'b1', groupId: 'b' },
    ...['c1', 'c2'].map((payload) => ({ payload, groupId: 'c' })),
  ]);
  const [a, b] = await queue.receive(60_000, { max: 2 });
  await queue.nack(b!, 30_000);
  return { name, id: `{respire-queue:${name}}:groups:stream`, a: a!, b: b! };
}

describe('grouped queue pages', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'grouped', admin: { discoverGroupedQueues: true } });
  });
  afterAll(() => world.close());

  it('lists grouped queues with their counts, linked to their pages; the nav links to the list', async () => {
    const { name, id } = await groupedOf(world);
    const page = await get(world, '/grouped-queues', TOKENS.viewer);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`href="${world.base}/grouped-queue${q({ id })}"`);
    const tr = new RegExp(`${name}</a>[\\s\\S]*?</tr>`).exec(page.body)?.[0] ?? '';
    // Messages, groups, ready, in flight, dead letters.
    expect([...tr.matchAll(/<td class="num[^"]*">([^<]*)/g)].map((m) => m[1])).toEqual(['6', '3', '1', '2', '0']);
    expect((await get(world, '/')).body).toContain(`href="${world.base}/grouped-queues"`);
  });

  it('shows the number of groups, the largest backlogs and each blocked head, group IDs escaped', async () => {
    const { id, a, b } = await groupedOf(world);
    const page = await get(world, `/grouped-queue${q({ id })}`, TOKENS.viewer);
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/<dd class="group-count">3<\/dd>/);
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).not.toContain('\u0007');
    const backlogs = /<table class="backlogs">[\s\S]*?<\/table>/.exec(page.body)![0];
    expect([...backlogs.matchAll(/<td class="num">(\d+)/g)].map((m) => m[1])).toEqual(['3', '2', '1']);
    expect(backlogs).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const heads = /<table class="heads">[\s\S]*?<\/table>/.exec(page.body)![0];
    // a's lease ends in 60 s, b's NACK makes it due in 30 s: b first.
    expect(heads.indexOf(b.id)).toBeGreaterThan(0);
    expect(heads.indexOf(b.id)).toBeLessThan(heads.indexOf(a.id));
    expect(heads).toMatch(/NACKed, due in \d/);
    expect(heads).toMatch(/leased, \d/);
  });

  it('pages the blocked heads by cursor', async () => {
    const { id, a, b } = await groupedOf(world);
    const first = await get(world, `/grouped-queue${q({ id, count: '1' })}`, TOKENS.viewer);
    expect(first.body).toContain(b.id);
    expect(first.body).not.toContain(a.id);
    const next = /href="([^"]*cursor=[^"]*)"/.exec(first.body)![1]!.replaceAll('&amp;', '&');
    const second = await get(world, next.slice(world.base.length) + '&count=1', TOKENS.viewer);
    expect(second.status).toBe(200);
    expect(second.body).toContain(a.id);
    expect((await get(world, `/grouped-queue${q({ id, cursor: 'junk' })}`, TOKENS.viewer)).status).toBe(400);
    expect((await get(world, `/grouped-queue${q({ id, cursor: '12:not-a-member' })}`, TOKENS.viewer)).status).toBe(400);
  });

  it('answers 404 for an unknown grouped queue, with the nearest as a link', async () => {
    const { id } = await groupedOf(world);
    const page = await get(world, `/grouped-queue${q({ id: id.replace('}:groups', 'x}:groups') })}`, TOKENS.viewer);
    expect(page.status).toBe(404);
    expect(page.body).toContain(`href="${world.base}/grouped-queue${q({ id })}"`);
  });
});

describe('grouped queues with a guard', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'gguard', admin: { discoverGroupedQueues: true }, dashboard: { guard: () => true } });
  });
  afterAll(() => world.close());

  it('with a guard and no groupedQueueGuard, grouped queues stay hidden: listed nowhere, 404', async () => {
    const { name, id } = await groupedOf(world);
    expect((await get(world, '/grouped-queues', TOKENS.viewer)).body).not.toContain(name);
    expect((await get(world, `/grouped-queue${q({ id })}`, TOKENS.viewer)).status).toBe(404);
  });
});

/** The page without its refresh link, which repeats the requested URL (and so the id asked for). */
const withoutRefresh = (body: string) => body.replace(/<a [^>]*id="refresh-now"[^>]*>/, '');

describe('groupedQueueGuard', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({
      label: 'gqguard',
      admin: { discoverGroupedQueues: true },
      dashboard: { groupedQueueGuard: (principal) => principal.name !== 'lena' },
    });
  });
  afterAll(() => world.close());

  it('decides per principal; a hidden grouped queue answers as an unknown one, never named in a hint', async () => {
    const { name, id } = await groupedOf(world);
    expect((await get(world, '/grouped-queues')).body).toContain(name);
    expect((await get(world, `/grouped-queue${q({ id })}`)).status).toBe(200);
    expect((await get(world, '/grouped-queues', TOKENS.limited)).body).not.toContain(name);
    const hidden = await get(world, `/grouped-queue${q({ id })}`, TOKENS.limited);
    expect(hidden.status).toBe(404);
    expect(withoutRefresh(hidden.body)).not.toContain(name);
  });
});

describe('grouped queue page in Chromium', { timeout: 120_000 }, () => {
  const { open } = browserPages();
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'gbrowser', admin: { discoverGroupedQueues: true } });
  });
  afterAll(() => world?.close());

  it('from the nav to the list to a grouped queue: counts, largest backlogs and blocked heads, accessible', async () => {
    const { name } = await groupedOf(world);
    const { page } = await open();
    await page.goto(`${world.url}/`);
    await page.getByRole('link', { name: 'Grouped queues', exact: true }).click();
    await page.waitForURL(/\/grouped-queues$/);
    await page.getByRole('link', { name }).click();
    await page.waitForURL(/\/grouped-queue\?id=/);
    await expect((page as Page).locator('main h1').innerText()).resolves.toContain(name);
    await expect(page.locator('dd.group-count').innerText()).resolves.toBe('3');
    await expect(page.locator('table.backlogs tbody tr').count()).resolves.toBe(3);
    await expect(page.locator('table.heads tbody tr').count()).resolves.toBe(2);
    // The hostile group ID is text on the page, not an element.
    await expect(page.locator('main img').count()).resolves.toBe(0);
    await shot(page, 'grouped-queue');
    expect(await axeViolations(page)).toEqual([]);
  });
});
