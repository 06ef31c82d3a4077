// The topics list and a topic's page: server-rendered against real Redis, authorization of topics, and one look in Chromium.
import type { Page } from 'playwright-core';
import { ReliableTopic, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStandaloneDashboard } from '../src/index.js';
import { axeViolations, browserPages, shot } from './browser-page.js';
import { csrfOf, get, post, q, sleep, startWorld, TOKENS, uniqueTag, type World } from './support.js';

/** A topic with `billing` (one of three leased), `audit` (one dead letter, the rest acknowledged) and `late` (created after). */
async function topicOf(world: World) {
  const name = uniqueTag('orders');
  const topic = new ReliableTopic(world.client as never, name, { codec: utf8Codec });
  const billing = topic.subscription('billing', { start: 'earliest' });
  const audit = topic.subscription('audit', { start: 'earliest', deliveryLimit: 1 });
  await Promise.all([billing.create(), audit.create()]);
  const ids = await topic.publishMany(['a', 'b', 'c']);
  await topic.subscription('late').create();
  const leased = await billing.receive(60_000, { max: 1 });
  await audit.receive(1, { max: 1 });
  await sleep(20);
  await audit.ackMany(await audit.receive(60_000, { max: 2 }));
  return { name, id: topic.streamKey, ids, billing, leased };
}

/** The cells of the subscription row named `name`, as text. */
function row(body: string, name: string): string[] {
  const tr = new RegExp(`<tr><th scope="row">(?:(?!</tr>)[\\s\\S])*?${name}(?:(?!</tr>)[\\s\\S])*?</tr>`).exec(body)?.[0] ?? '';
  return [...tr.matchAll(/<td[^>]*>(?:<code>|<a [^>]*>)?([^<]*)/g)].map((m) => m[1]!);
}

describe('topic pages', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'topics', admin: { discoverTopics: true } });
  });
  afterAll(() => world.close());

  it('lists topics with publications and subscriptions, linked to their pages', async () => {
    const { name, id } = await topicOf(world);
    const page = await get(world, '/topics', TOKENS.viewer);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`href="${world.base}/topic${q({ id })}"`);
    const tr = new RegExp(`${name}</a>[\\s\\S]*?</tr>`).exec(page.body)?.[0] ?? '';
    expect([...tr.matchAll(/<td class="num">([^<]*)/g)].map((m) => m[1])).toEqual(['3', '3']);
    // The nav links to it from every page.
    expect((await get(world, '/')).body).toContain(`href="${world.base}/topics"`);
  });

  it("shows each subscription's position, lag, pending, retried, oldest unacknowledged age, dead letters and trimmed count", async () => {
    const { id, ids } = await topicOf(world);
    const page = await get(world, `/topic${q({ id })}`, TOKENS.viewer);
    expect(page.status).toBe(200);
    expect(page.body).toContain('3 publications retained');
    // Position, lag, pending, retried, oldest, dead letters, trimmed.
    const billing = row(page.body, 'billing');
    expect([billing[0], billing[1], billing[2], billing[3], billing[5], billing[6]]).toEqual([ids[0], '2', '1', '0', '0', '0']);
    expect(billing[4]).toMatch(/^\d+(\.\d+)? ?(ms|s)$/);
    expect(row(page.body, 'audit')).toEqual([ids[2], '0', '0', '0', '—', '1', '0']);
    expect(row(page.body, 'late')).toEqual([ids[2], '0', '0', '0', '—', '0', '0']);
  });

  it("links a subscription's dead letters to a page of them: source publication, deliveries, payload", async () => {
    const { id, ids } = await topicOf(world);
    const topicPage = await get(world, `/topic${q({ id })}`, TOKENS.viewer);
    const link = `${world.base}/subscription-dead-letters${q({ id, subscription: 'audit' })}`;
    expect(topicPage.body).toContain(`href="${link.replace(/&/g, '&amp;')}"`);
    const page = await get(world, `/subscription-dead-letters${q({ id, subscription: 'audit' })}`, TOKENS.viewer);
    expect(page.status).toBe(200);
    const rows = [...page.body.matchAll(/<tr><th scope="row">[\s\S]*?<\/tr>/g)].map((m) => [...m[0].matchAll(/<td[^>]*>(?:<code>)?([^<]*)/g)].map((c) => c[1]));
    expect(rows).toEqual([[ids[0], '1', 'a']]);
    expect((await get(world, `/subscription-dead-letters${q({ id, subscription: 'billing' })}`)).body).toContain('No dead letters.');
    expect((await get(world, `/subscription-dead-letters${q({ id, subscription: 'nobody' })}`)).status).toBe(404);
  });

  it('answers 404 for an unknown topic, with the nearest topic as a link', async () => {
    const { id } = await topicOf(world);
    const typo = id.replace(':stream', 'x:stream').replace('}x:', 'x}:');
    const page = await get(world, `/topic${q({ id: typo })}`);
    expect(page.status).toBe(404);
    expect(page.body).toContain('No such topic.');
    expect(page.body).toContain(`/topic${q({ id }).replace(/&/g, '&amp;')}`);
    expect((await get(world, '/topic')).status).toBe(400);
  });
});

const withoutRefresh = (body: string) => body.replace(/<a [^>]*id="refresh-now"[^>]*>/, '');

describe('seek from the dashboard', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'tseek', admin: { discoverTopics: true } });
  });
  afterAll(() => world.close());

  it('an operator confirms, then seeks: leases discarded, redelivered from count 1, audited with the principal; a viewer gets no control and 403', async () => {
    const { id, ids, billing, leased } = await topicOf(world);
    const viewerPage = await get(world, `/topic${q({ id })}`, TOKENS.viewer);
    expect(viewerPage.body).not.toContain('/confirm/seek');
    expect((await get(world, `/confirm/seek${q({ id, subscription: 'billing', to: 'earliest' })}`, TOKENS.viewer)).status).toBe(403);

    const topicPage = await get(world, `/topic${q({ id })}`);
    expect(topicPage.body).toContain(`action="${world.base}/confirm/seek"`);
    const confirm = await get(world, `/confirm/seek${q({ id, subscription: 'billing', to: 'earliest' })}`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain(`is at <code>${ids[0]}</code>; it moves to the earliest retained publication`);
    expect(confirm.body).toContain('1 pending deliveries are discarded');
    for (const [subscription, to, status] of [
      ['billing', 'soon', 400],
      ['nobody', 'earliest', 404],
    ] as const) {
      expect((await get(world, `/confirm/seek${q({ id, subscription, to })}`)).status, `${subscription} ${to}`).toBe(status);
    }

    const done = await post(world, '/actions/seek', { _csrf: csrfOf(confirm.body), id, subscription: 'billing', to: 'earliest' });
    expect(done.status).toBe(303);
    const after = await get(world, `${world.origin}${done.headers.get('location')!}`);
    expect(after.body).toContain('Moved the subscription to the earliest retained publication; discarded 1 lease.');
    expect(await billing.ack(leased[0]!)).toBe(false);
    expect((await billing.receive(60_000, { max: 10 })).map((m) => [m.id, m.deliveryCount])).toEqual(ids.map((x) => [x, 1]));
    expect(world.audits.filter((r) => r.action === 'seek').map((r) => [r.actor, r.result, r.resource, r.target.subscription, r.target.to])).toEqual([
      ['alice', 'ok', id, 'billing', 'earliest'],
    ]);
    // Without a CSRF token nothing moves.
    expect((await post(world, '/actions/seek', { id, subscription: 'billing', to: 'latest' })).status).toBe(403);
    expect(world.audits.filter((r) => r.action === 'seek')).toHaveLength(1);
  });
});

describe('topic authorization', () => {
  let guarded: World;
  let topicGuarded: World;
  let topic: Awaited<ReturnType<typeof topicOf>>;
  beforeAll(async () => {
    guarded = await startWorld({ label: 'tguard', admin: { discoverTopics: true }, dashboard: { guard: () => true } });
    topicGuarded = await startWorld({
      label: 'ttguard',
      admin: { discoverTopics: true },
      dashboard: { guard: () => true, topicGuard: (principal, t) => principal.name !== 'lena' || !t.name.startsWith('orders') },
    });
    topic = await topicOf(guarded);
  });
  afterAll(async () => {
    await guarded?.close();
    await topicGuarded?.close();
  });

  it('with a guard and no topicGuard, topics stay hidden: listed nowhere, 404 alike', async () => {
    expect((await get(guarded, '/topics')).body).not.toContain(topic.name);
    expect((await get(guarded, '/topics')).body).toContain('No topics.');
    const page = await get(guarded, `/topic${q({ id: topic.id })}`);
    expect(page.status).toBe(404);
    // Named only in the page's own Refresh link (the URL asked for), never in a hint.
    expect(withoutRefresh(page.body)).not.toContain(topic.name);
  });

  it('topicGuard decides per principal; a hidden topic answers as an unknown one, never named in a hint', async () => {
    expect((await get(topicGuarded, '/topics')).body).toContain(topic.name);
    expect((await get(topicGuarded, `/topic${q({ id: topic.id })}`)).status).toBe(200);
    expect((await get(topicGuarded, '/topics', TOKENS.limited)).body).not.toContain(topic.name);
    const hidden = await get(topicGuarded, `/topic${q({ id: topic.id })}`, TOKENS.limited);
    expect(hidden.status).toBe(404);
    expect(withoutRefresh(hidden.body)).not.toContain(topic.name);
  });
});

describe('respire-dashboard (standalone) topics', () => {
  let world: World;
  beforeAll(async () => void (world = await startWorld({ label: 'tsolo' })));
  afterAll(() => world?.close());

  it('shows configured topics, and discovered ones with discoverTopics', async () => {
    const { name } = await topicOf(world);
    const token = 'operator-token-0123456789abcdef';
    for (const [options, shown] of [
      [{ topics: [{ name }] }, true],
      [{ discoverTopics: true }, true],
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
        const page = await fetch(`${server.url}topics`, { headers: { cookie } });
        expect(page.status).toBe(200);
        expect((await page.text()).includes(name), JSON.stringify(options)).toBe(shown);
      } finally {
        await server.close();
      }
    }
  });
});

describe('topic page in Chromium', { timeout: 120_000 }, () => {
  const { open } = browserPages();
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'tbrowser', admin: { discoverTopics: true } });
  });
  afterAll(() => world?.close());

  it('from the nav to the topics list to a topic: its subscriptions table, accessible; seek with a confirmation', async () => {
    const { name } = await topicOf(world);
    const { page } = await open();
    await page.goto(`${world.url}/`);
    await page.getByRole('link', { name: 'Topics', exact: true }).click();
    await page.waitForURL(/\/topics$/);
    await page.getByRole('link', { name }).click();
    await page.waitForURL(/\/topic\?id=/);
    await expect((page as Page).locator('main h1').innerText()).resolves.toContain(name);
    const rows = page.locator('table.subscriptions tbody tr');
    await expect(rows.count()).resolves.toBe(3);
    await expect(rows.filter({ hasText: 'billing' }).locator('td').nth(1).innerText()).resolves.toBe('2');
    await shot(page, 'topic');
    expect(await axeViolations(page)).toEqual([]);
    // Seek billing back to the start: a confirmation page, then the notice on the topic page.
    await page.getByLabel('Seek billing to').fill('earliest');
    await rows.filter({ hasText: 'billing' }).getByRole('button', { name: 'Seek…' }).click();
    await page.waitForURL(/\/confirm\/seek\?/);
    await expect(page.locator('section.confirm').innerText()).resolves.toContain('moves to the earliest retained publication');
    await shot(page, 'topic-seek-confirm');
    await page.getByRole('button', { name: 'Seek', exact: true }).click();
    await page.waitForURL(/\/topic\?id=/);
    await expect(page.locator('main').innerText()).resolves.toContain('Moved the subscription to the earliest retained publication; discarded 1 lease.');
    await expect(rows.filter({ hasText: 'billing' }).locator('td').nth(1).innerText()).resolves.toBe('3');
    await shot(page, 'topic-seeked');
  });
});
