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

describe("all of a subscription's dead letters from the dashboard", () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'tdlbulk', admin: { discoverTopics: true } });
  });
  afterAll(() => world.close());

  it('an operator retries all after a confirmation stating the count, for that subscription only; the Retried count shows until completed; audited', async () => {
    const { id, ids, audit, billing, records } = await deadLettered(world);
    const at = { id, subscription: 'audit' };
    const listing = await get(world, `/subscription-dead-letters${q(at)}`);
    expect(listing.body).toContain('<strong>2</strong> dead letters');
    const confirmHref = `/confirm/subscription-bulk${q({ ...at, action: 'retry' })}`;
    expect(listing.body).toContain(confirmHref.replaceAll('&', '&amp;'));
    expect(listing.body).toContain(`/confirm/subscription-bulk${q({ ...at, action: 'delete' }).replaceAll('&', '&amp;')}`);

    const confirm = await get(world, confirmHref);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain('has 2 dead letters now');
    expect(confirm.body).toContain('Retry 2 dead letters');
    expect(confirm.body).toContain(`action="${world.base}/actions/subscription-retry-all"`);
    expect(confirm.body).toContain('name="limit" value="2"');
    // Nothing changed by the confirmation page.
    expect((await world.admin.subscriptionDeadLetters(id, 'audit')).items).toHaveLength(2);

    const retried = await post(world, '/actions/subscription-retry-all', { _csrf: csrfOf(confirm.body), ...at, limit: '2' });
    expect(retried.status).toBe(303);
    const after = await get(world, `${world.origin}${retried.headers.get('location')!}`);
    expect(after.body).toContain('Retried 2 dead letters for this subscription only.');
    expect(after.body).toContain('No dead letters.');
    expect(after.body).not.toContain('subscription-bulk');
    // The topic page counts them as retried (not pending) until the subscription completes them.
    const topicPage = await get(world, `/topic${q({ id })}`);
    expect(topicPage.body).toContain('>Retried</th>');
    expect((await world.admin.topic(id)).subscriptionList.find((x) => x.name === 'audit')).toMatchObject({ pending: 0, retried: 2, deadLetters: 0 });
    const again = await audit.receive(60_000, { max: 10 });
    expect(again.map((m) => [m.id, m.deliveryCount]).sort()).toEqual(ids.map((x) => [x, 1]).sort());
    expect(await audit.ackMany(again)).toEqual([true, true]);
    expect((await world.admin.topic(id)).subscriptionList.find((x) => x.name === 'audit')).toMatchObject({ pending: 0, retried: 0 });
    expect((await billing.receive(60_000, { max: 10 })).map((m) => m.id)).toEqual(ids);
    expect(records).toHaveLength(2);

    expect(world.audits.filter((r) => r.resource === id).map((r) => [r.action, r.actor, r.result, r.target.subscription, r.target.done])).toEqual([
      ['retry-all', 'alice', 'ok', 'audit', 2],
    ]);
  });

  it('the limit confirmed bounds it (oldest first); a foreign record is left and counted; Delete all removes the rest', async () => {
    const { id, ids, audit, records } = await deadLettered(world);
    const at = { id, subscription: 'audit' };
    const csrf = csrfOf((await get(world, `/subscription-dead-letters${q(at)}`)).body);
    const one = await post(world, '/actions/subscription-retry-all', { _csrf: csrf, ...at, limit: '1' });
    expect(one.status).toBe(303);
    expect((await get(world, `${world.origin}${one.headers.get('location')!}`)).body).toContain('Retried 1 dead letter for this subscription only.');
    expect((await world.admin.subscriptionDeadLetters(id, 'audit')).items.map((r) => r.id)).toEqual([records[1]]);
    expect((await audit.receive(60_000, { max: 10 })).map((m) => m.id)).toEqual([ids[0]]);

    const dead = (await world.admin.topic(id)).subscriptionList.find((x) => x.name === 'audit')!.deadLetterStream;
    await world.raw(dead, ['XADD', dead, '*', 'x', 'y']);
    const mixed = await post(world, '/actions/subscription-retry-all', { _csrf: csrf, ...at, limit: '2' });
    const mixedPage = await get(world, `${world.origin}${mixed.headers.get('location')!}`);
    expect(mixedPage.body).toContain('Retried 1 dead letter for this subscription only; left 1 that Respire did not write.');
    expect((await world.admin.subscriptionDeadLetters(id, 'audit')).items).toHaveLength(1);

    const confirm = await get(world, `/confirm/subscription-bulk${q({ ...at, action: 'delete' })}`);
    expect(confirm.body).toContain('has 1 dead letter now');
    expect(confirm.body).toContain('Delete 1 dead letter');
    const deleted = await post(world, '/actions/subscription-delete-all', { _csrf: csrfOf(confirm.body), ...at, limit: '1' });
    expect(deleted.status).toBe(303);
    expect((await get(world, `${world.origin}${deleted.headers.get('location')!}`)).body).toContain('Deleted 1 dead letter.');
    expect((await world.admin.subscriptionDeadLetters(id, 'audit')).items).toEqual([]);
    expect(world.audits.filter((r) => r.resource === id).map((r) => [r.action, r.actor, r.target.done, r.target.failed, r.target.limit])).toEqual([
      ['retry-all', 'alice', 1, 0, 1],
      ['retry-all', 'alice', 1, 1, 2],
      ['delete-all', 'alice', 1, 0, 1],
    ]);
  });

  it('a viewer sees no bulk buttons and is refused (403); without a CSRF token nothing changes; bad requests are 400 or 404', async () => {
    const { id } = await deadLettered(world);
    const at = { id, subscription: 'audit' };
    const viewerPage = await get(world, `/subscription-dead-letters${q(at)}`, TOKENS.viewer);
    expect(viewerPage.status).toBe(200);
    expect(viewerPage.body).toContain('<strong>2</strong> dead letters');
    expect(viewerPage.body).not.toContain('subscription-bulk');
    expect((await get(world, `/confirm/subscription-bulk${q({ ...at, action: 'retry' })}`, TOKENS.viewer)).status).toBe(403);
    for (const action of ['retry', 'delete']) {
      expect((await post(world, `/actions/subscription-${action}-all`, { ...at, limit: '2' }, { token: TOKENS.viewer })).status).toBe(403);
      expect((await post(world, `/actions/subscription-${action}-all`, { ...at, limit: '2' })).status).toBe(403);
      expect((await get(world, `/actions/subscription-${action}-all${q({ ...at, limit: '2' })}`)).status).toBe(405);
    }
    const csrf = csrfOf((await get(world, `/subscription-dead-letters${q(at)}`)).body);
    for (const limit of ['0', '10001', 'x', '']) {
      expect((await post(world, '/actions/subscription-delete-all', { _csrf: csrf, ...at, limit })).status).toBe(400);
    }
    expect((await post(world, '/actions/subscription-delete-all', { _csrf: csrf, id, subscription: 'nobody', limit: '2' })).status).toBe(404);
    expect((await get(world, `/confirm/subscription-bulk${q({ ...at, action: 'purge' })}`)).status).toBe(400);
    expect((await get(world, `/confirm/subscription-bulk${q({ id, subscription: 'nobody', action: 'retry' })}`)).status).toBe(404);
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

  it('Retry all… goes through a confirmation stating the count; the result is a notice; accessible', async () => {
    const { id, ids, audit } = await deadLettered(world);
    const { page } = await open();
    await page.goto(`${world.url}/subscription-dead-letters${q({ id, subscription: 'audit' })}`);
    await page.getByRole('link', { name: 'Retry all…' }).click();
    await page.waitForURL(/\/confirm\/subscription-bulk\?/);
    await expect(page.locator('section.confirm').innerText()).resolves.toContain('has 2 dead letters now');
    await shot(page, 'subscription-dead-letters-retry-all-confirm');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Retry 2 dead letters' }).click();
    await page.waitForURL(/n=subscription-retry-all/);
    await expect(page.locator('main').innerText()).resolves.toContain('Retried 2 dead letters for this subscription only.');
    await expect(page.locator('main').innerText()).resolves.toContain('No dead letters.');
    await shot(page, 'subscription-dead-letters-retried-all');
    expect(await axeViolations(page)).toEqual([]);
    expect((await audit.receive(60_000, { max: 10 })).map((m) => m.id).sort()).toEqual([...ids].sort());
  });
});
