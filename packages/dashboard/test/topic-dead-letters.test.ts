// A subscription's dead letters from the dashboard: Retry (to that subscription only) and Delete… with a confirmation, behind the state-change gate; and in Chromium.
import type { Page } from 'playwright-core';
import { ReliableTopic, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, browserPages, shot } from './browser-page.js';
import { csrfOf, get, post, q, sleep, startWorld, TOKENS, uniqueTag, type World } from './support.js';

/** A topic with `audit` (delivery limit 1: 'a' and 'b' dead-lettered) and `billing` (nothing received yet). */
async function deadLettered(world: World) {
  const name = uniqueTag('orders');
  const topic = new ReliableTopic(world.client as never, name, { codec: utf8Codec });
  const audit = topic.subscription('audit', { start: 'earliest', deliveryLimit: 1 });
  const billing = topic.subscription('billing', { start: 'earliest' });
  await Promise.all([audit.create(), billing.create()]);
  const ids = await topic.publishMany(['a', 'b']);
  expect(await audit.receive(1, { max: 10 })).toHaveLength(2);
  await sleep(20);
  expect(await audit.receive(60_000, { max: 10 })).toEqual([]);
  const records = (await world.admin.subscriptionDeadLetters(topic.streamKey, 'audit', { order: 'oldest' })).items.map((r) => r.id);
  expect(records).toHaveLength(2);
  return { name, id: topic.streamKey, ids, audit, billing, records };
}

describe("a subscription's dead letters from the dashboard", () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'tdl', admin: { discoverTopics: true } });
  });
  afterAll(() => world.close());

  it('an operator retries one for that subscription only, and deletes one after a confirmation; audited with the principal', async () => {
    const { id, ids, audit, billing, records } = await deadLettered(world);
    const at = { id, subscription: 'audit' };
    const listing = await get(world, `/subscription-dead-letters${q(at)}`);
    expect(listing.body).toContain(`action="${world.base}/actions/subscription-retry"`);
    expect(listing.body).toContain(`/confirm/subscription-delete${q({ ...at, record: records[1]! }).replaceAll('&', '&amp;')}`);

    const retried = await post(world, '/actions/subscription-retry', { _csrf: csrfOf(listing.body), ...at, record: records[0]! });
    expect(retried.status).toBe(303);
    const after = await get(world, `${world.origin}${retried.headers.get('location')!}`);
    expect(after.body).toContain(`Retried dead letter ${records[0]}: publication ${ids[0]} is due again for this subscription only.`);
    expect((await audit.receive(60_000, { max: 10 })).map((m) => [m.id, m.payload, m.deliveryCount])).toEqual([[ids[0], 'a', 1]]);
    // `billing` gets each publication once, as before.
    expect((await billing.receive(60_000, { max: 10 })).map((m) => m.id)).toEqual(ids);
    const again = await post(world, '/actions/subscription-retry', { _csrf: csrfOf(listing.body), ...at, record: records[0]! });
    expect(again.status).toBe(409);
    expect(again.body).toContain('it was retried or deleted already');

    const confirm = await get(world, `/confirm/subscription-delete${q({ ...at, record: records[1]! })}`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain(`Dead letter <code>${records[1]}</code> of subscription`);
    const deleted = await post(world, '/actions/subscription-delete', { _csrf: csrfOf(confirm.body), ...at, record: records[1]! });
    expect(deleted.status).toBe(303);
    expect((await get(world, `${world.origin}${deleted.headers.get('location')!}`)).body).toContain(`Deleted dead letter ${records[1]}.`);
    expect((await world.admin.subscriptionDeadLetters(id, 'audit')).items).toEqual([]);
    expect((await post(world, '/actions/subscription-delete', { _csrf: csrfOf(confirm.body), ...at, record: records[1]! })).status).toBe(409);

    expect(world.audits.filter((r) => r.resource === id).map((r) => [r.action, r.actor, r.result, r.target.subscription, r.target.recordId])).toEqual([
      ['retry', 'alice', 'ok', 'audit', records[0]],
      ['retry', 'alice', 'missing', 'audit', records[0]],
      ['delete', 'alice', 'ok', 'audit', records[1]],
      ['delete', 'alice', 'missing', 'audit', records[1]],
    ]);
  });

  it('a viewer sees no controls and is refused (403); without a CSRF token nothing changes; bad requests are 400 or 404', async () => {
    const { id, records } = await deadLettered(world);
    const at = { id, subscription: 'audit' };
    const viewerPage = await get(world, `/subscription-dead-letters${q(at)}`, TOKENS.viewer);
    expect(viewerPage.status).toBe(200);
    expect(viewerPage.body).not.toContain('subscription-retry');
    expect(viewerPage.body).not.toContain('subscription-delete');
    expect((await get(world, `/confirm/subscription-delete${q({ ...at, record: records[0]! })}`, TOKENS.viewer)).status).toBe(403);
    expect((await post(world, '/actions/subscription-retry', { ...at, record: records[0]! }, { token: TOKENS.viewer })).status).toBe(403);
    // An operator's POST without the token, or with a GET: refused before the admin runs.
    expect((await post(world, '/actions/subscription-retry', { ...at, record: records[0]! })).status).toBe(403);
    expect((await post(world, '/actions/subscription-delete', { ...at, record: records[0]! })).status).toBe(403);
    expect((await get(world, `/actions/subscription-retry${q({ ...at, record: records[0]! })}`)).status).toBe(405);
    const csrf = csrfOf((await get(world, `/subscription-dead-letters${q(at)}`)).body);
    expect((await post(world, '/actions/subscription-retry', { _csrf: csrf, ...at, record: 'nope' })).status).toBe(400);
    expect((await post(world, '/actions/subscription-retry', { _csrf: csrf, id, subscription: 'nobody', record: records[0]! })).status).toBe(404);
    expect((await get(world, `/confirm/subscription-delete${q({ ...at, record: 'nope' })}`)).status).toBe(400);
    expect((await world.admin.subscriptionDeadLetters(id, 'audit')).items).toHaveLength(2);
    expect(world.audits.filter((r) => r.resource === id && r.result === 'ok')).toEqual([]);
  });
});

describe("a subscription's dead letters in Chromium", { timeout: 120_000 }, () => {
  const { open } = browserPages();
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'tdlbrowser', admin: { discoverTopics: true } });
  });
  afterAll(() => world?.close());

  it('from the topic page to the dead letters: Retry, then Delete… with a confirmation; accessible', async () => {
    const { id, ids, records, audit } = await deadLettered(world);
    const { page } = await open();
    await page.goto(`${world.url}/topic${q({ id })}`);
    await (page as Page).locator('table.subscriptions tbody tr', { hasText: 'audit' }).getByRole('link', { name: '2' }).click();
    await page.waitForURL(/\/subscription-dead-letters\?/);
    const rows = page.locator('table.subscription-dead-letters tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    await shot(page, 'subscription-dead-letters');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Retry dead letter ${records[0]}` }).click();
    await page.waitForURL(/n=subscription-retried/);
    await expect(page.locator('main').innerText()).resolves.toContain(`publication ${ids[0]} is due again for this subscription only`);
    await expect(rows.count()).resolves.toBe(1);
    await shot(page, 'subscription-dead-letter-retried');
    expect((await audit.receive(60_000, { max: 10 })).map((m) => m.id)).toEqual([ids[0]]);

    await page.getByRole('link', { name: `Delete dead letter ${records[1]}` }).click();
    await page.waitForURL(/\/confirm\/subscription-delete\?/);
    await expect(page.locator('section.confirm').innerText()).resolves.toContain('the other subscriptions are not affected');
    await shot(page, 'subscription-dead-letter-delete-confirm');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Delete dead letter' }).click();
    await page.waitForURL(/n=deleted/);
    await expect(page.locator('main').innerText()).resolves.toContain(`Deleted dead letter ${records[1]}.`);
    await expect(page.locator('main').innerText()).resolves.toContain('No dead letters.');
  });
});
