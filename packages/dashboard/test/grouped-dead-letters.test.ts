// A grouped queue's dead letters from the dashboard: listed with their groups on the queue's page, Retry, Delete…, Retry all… and Delete all… with confirmation and CSRF, audited; and in Chromium.
import type { Page } from 'playwright-core';
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, browserPages, shot } from './browser-page.js';
import { csrfOf, get, post, q, startWorld, TOKENS, uniqueTag, type World } from './support.js';

/** A hostile group ID: markup and a control character are user data. */
const EVIL = '<img src=x onerror=alert(1)>\u0007';

/** A grouped queue (delivery limit 1) whose messages `one` (group EVIL) and `two` (group b) were dead-lettered, oldest first; `b` has a1 waiting. */
async function deadLettered(world: World) {
  const name = uniqueTag('gdl');
  const queue = new ReliableQueue<string>(world.client as never, name, { codec: utf8Codec, groups: {}, deliveryLimit: 1 });
  await queue.send('one', { groupId: EVIL });
  await queue.send('two', { groupId: 'b' });
  for (const m of await queue.receive(60_000, { max: 10 })) await queue.nack(m);
  expect(await queue.receive(60_000, { max: 10 })).toEqual([]);
  await queue.send('b-next', { groupId: 'b' });
  const id = `{respire-queue:${name}}:groups:stream`;
  const records = (await world.admin.groupedDeadLetters(id, { order: 'oldest' })).items.map((r) => r.id);
  expect(records).toHaveLength(2);
  return { name, id, queue, records };
}

describe("a grouped queue's dead letters from the dashboard", () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'gdl', admin: { discoverGroupedQueues: true } });
  });
  afterAll(() => world.close());

  it("lists them on the queue's page with group, deliveries and payload, group IDs escaped; a viewer sees no controls", async () => {
    const { id, records } = await deadLettered(world);
    const page = await get(world, `/grouped-queue${q({ id })}`);
    expect(page.status).toBe(200);
    const table = /<table class="grouped-dead-letters">[\s\S]*?<\/table>/.exec(page.body)![0];
    expect(table).not.toContain('<img src=x');
    expect(table).not.toContain('\u0007');
    expect(table).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // Newest first: two (group b), then one.
    expect(table.indexOf(records[1]!)).toBeLessThan(table.indexOf(records[0]!));
    expect([...table.matchAll(/<td class="num">(\d+)/g)].map((m) => m[1])).toEqual(['1', '1']);
    expect(table).toMatch(/<td class="preview"><code>two<\/code>/);
    expect(page.body).toContain(`action="${world.base}/actions/grouped-retry"`);
    expect(page.body).toContain(`/confirm/grouped-delete${q({ id, record: records[0]! }).replaceAll('&', '&amp;')}`);
    expect(page.body).toContain(`/confirm/grouped-bulk${q({ id, action: 'retry' }).replaceAll('&', '&amp;')}`);
    const viewer = await get(world, `/grouped-queue${q({ id })}`, TOKENS.viewer);
    expect(viewer.body).toContain('class="grouped-dead-letters"');
    expect(viewer.body).not.toContain('grouped-retry');
    expect(viewer.body).not.toContain('grouped-delete');
    expect(viewer.body).not.toContain('grouped-bulk');
    const all = await get(world, `/grouped-dead-letters${q({ id, count: '1' })}`, TOKENS.viewer);
    expect(all.status).toBe(200);
    expect(all.body).toContain(records[1]);
    expect(all.body).not.toContain(`<code>${records[0]}</code>`);
  });

  it('an operator retries one to the end of its group, and deletes one after a confirmation; audited with the principal', async () => {
    const { id, queue, records } = await deadLettered(world);
    const listing = await get(world, `/grouped-queue${q({ id })}`);
    const retried = await post(world, '/actions/grouped-retry', { _csrf: csrfOf(listing.body), id, record: records[1]! });
    expect(retried.status).toBe(303);
    const after = await get(world, `${world.origin}${retried.headers.get('location')!}`);
    expect(after.body).toMatch(new RegExp(`Retried dead letter ${records[1]}: appended again as entry \\d+-\\d+\\.`));
    // Behind b-next, which was in group b already.
    const got: string[] = [];
    for (;;) {
      const [m] = await queue.receive(60_000);
      if (!m) break;
      got.push(`${m.groupId}:${m.payload}:${m.deliveryCount}`);
      await queue.ack(m);
    }
    expect(got).toEqual(['b:b-next:1', 'b:two:1']);
    const again = await post(world, '/actions/grouped-retry', { _csrf: csrfOf(listing.body), id, record: records[1]! });
    expect(again.status).toBe(409);
    expect(again.body).toContain('it was retried or deleted already');

    const confirm = await get(world, `/confirm/grouped-delete${q({ id, record: records[0]! })}`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain(`Dead letter <code>${records[0]}</code> of grouped queue`);
    expect((await world.admin.groupedDeadLetters(id)).items).toHaveLength(1);
    const deleted = await post(world, '/actions/grouped-delete', { _csrf: csrfOf(confirm.body), id, record: records[0]! });
    expect(deleted.status).toBe(303);
    expect((await get(world, `${world.origin}${deleted.headers.get('location')!}`)).body).toContain(`Deleted dead letter ${records[0]}.`);
    expect((await world.admin.groupedDeadLetters(id)).items).toEqual([]);
    expect((await post(world, '/actions/grouped-delete', { _csrf: csrfOf(confirm.body), id, record: records[0]! })).status).toBe(409);

    expect(world.audits.filter((r) => r.resource === id).map((r) => [r.action, r.actor, r.result, r.target.recordId])).toEqual([
      ['retry', 'alice', 'ok', records[1]],
      ['retry', 'alice', 'missing', records[1]],
      ['delete', 'alice', 'ok', records[0]],
      ['delete', 'alice', 'missing', records[0]],
    ]);
  });

  it('retry all and delete all after a confirmation stating the count; audited', async () => {
    const { id, queue, records } = await deadLettered(world);
    const confirm = await get(world, `/confirm/grouped-bulk${q({ id, action: 'retry' })}`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain('has 2 dead letters now');
    expect(confirm.body).toContain(`action="${world.base}/actions/grouped-retry-all"`);
    expect(confirm.body).toContain('name="limit" value="2"');
    expect((await world.admin.groupedDeadLetters(id)).items).toHaveLength(2);
    const retried = await post(world, '/actions/grouped-retry-all', { _csrf: csrfOf(confirm.body), id, limit: '1' });
    expect(retried.status).toBe(303);
    expect((await get(world, `${world.origin}${retried.headers.get('location')!}`)).body).toContain('Retried 1 dead letter to the end of their groups.');
    expect((await world.admin.groupedDeadLetters(id)).items.map((r) => r.id)).toEqual([records[1]]);
    const delivered = await queue.receive(60_000, { max: 10 });
    expect(delivered.map((m) => [m.payload, m.groupId])).toEqual([
      ['b-next', 'b'],
      ['one', EVIL],
    ]);

    const deleteConfirm = await get(world, `/confirm/grouped-bulk${q({ id, action: 'delete' })}`);
    expect(deleteConfirm.body).toContain('Delete 1 dead letter');
    const deleted = await post(world, '/actions/grouped-delete-all', { _csrf: csrfOf(deleteConfirm.body), id, limit: '1' });
    expect((await get(world, `${world.origin}${deleted.headers.get('location')!}`)).body).toContain('Deleted 1 dead letter.');
    expect((await world.admin.groupedDeadLetters(id)).items).toEqual([]);
    expect(world.audits.filter((r) => r.resource === id).map((r) => [r.action, r.result, r.target.done])).toEqual([
      ['retry-all', 'ok', 1],
      ['delete-all', 'ok', 1],
    ]);
  });

  it('a viewer is refused (403); without a CSRF token nothing changes; bad requests are 400 or 404', async () => {
    const { id, records } = await deadLettered(world);
    expect((await get(world, `/confirm/grouped-delete${q({ id, record: records[0]! })}`, TOKENS.viewer)).status).toBe(403);
    expect((await get(world, `/confirm/grouped-bulk${q({ id, action: 'retry' })}`, TOKENS.viewer)).status).toBe(403);
    expect((await post(world, '/actions/grouped-retry', { id, record: records[0]! }, { token: TOKENS.viewer })).status).toBe(403);
    expect((await post(world, '/actions/grouped-retry', { id, record: records[0]! })).status).toBe(403);
    expect((await post(world, '/actions/grouped-delete', { id, record: records[0]! })).status).toBe(403);
    expect((await post(world, '/actions/grouped-retry-all', { id, limit: '2' })).status).toBe(403);
    expect((await post(world, '/actions/grouped-delete-all', { id, limit: '2' })).status).toBe(403);
    expect((await get(world, `/actions/grouped-retry${q({ id, record: records[0]! })}`)).status).toBe(405);
    const csrf = csrfOf((await get(world, `/grouped-queue${q({ id })}`)).body);
    expect((await post(world, '/actions/grouped-retry', { _csrf: csrf, id, record: 'nope' })).status).toBe(400);
    expect((await post(world, '/actions/grouped-retry', { _csrf: csrf, id: id.replace('}:groups', 'x}:groups'), record: records[0]! })).status).toBe(404);
    for (const limit of ['0', '10001', 'x', '']) expect((await post(world, '/actions/grouped-delete-all', { _csrf: csrf, id, limit })).status).toBe(400);
    expect((await get(world, `/confirm/grouped-bulk${q({ id, action: 'purge' })}`)).status).toBe(400);
    expect((await world.admin.groupedDeadLetters(id)).items).toHaveLength(2);
    expect(world.audits.filter((r) => r.resource === id && r.result === 'ok')).toEqual([]);
  });
});

describe("a grouped queue's dead letters in Chromium", { timeout: 120_000 }, () => {
  const { open } = browserPages();
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'gdlbrowser', admin: { discoverGroupedQueues: true } });
  });
  afterAll(() => world?.close());

  it("from the grouped queue's page: Retry, Delete… with a confirmation, Retry all… with a confirmation; accessible", async () => {
    const { id, queue, records } = await deadLettered(world);
    const [next] = await queue.receive(60_000);
    expect(next!.payload).toBe('b-next');
    await queue.ack(next!);
    await queue.send('c1', { groupId: 'c' });
    const [c1] = await queue.receive(60_000);
    await queue.nack(c1!);
    expect(await queue.receive(60_000)).toEqual([]);
    const { page } = await open();
    await page.goto(`${world.url}/grouped-queue${q({ id })}`);
    const rows = (page as Page).locator('table.grouped-dead-letters tbody tr');
    await expect(rows.count()).resolves.toBe(3);
    await shot(page, 'grouped-dead-letters');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Retry dead letter ${records[1]}` }).click();
    await page.waitForURL(/n=retried/);
    await expect(page.locator('main').innerText()).resolves.toContain(`Retried dead letter ${records[1]}: appended again as entry`);
    await expect(rows.count()).resolves.toBe(2);

    await page.getByRole('link', { name: `Delete dead letter ${records[0]}` }).click();
    await page.waitForURL(/\/confirm\/grouped-delete\?/);
    await expect(page.locator('section.confirm').innerText()).resolves.toContain('Its payload is gone for good');
    await shot(page, 'grouped-dead-letter-delete-confirm');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Delete dead letter' }).click();
    await page.waitForURL(/n=deleted/);
    await expect(page.locator('main').innerText()).resolves.toContain(`Deleted dead letter ${records[0]}.`);
    await expect(rows.count()).resolves.toBe(1);

    await page.getByRole('link', { name: 'Retry all…' }).click();
    await page.waitForURL(/\/confirm\/grouped-bulk\?/);
    await expect(page.locator('section.confirm').innerText()).resolves.toContain('has 1 dead letter now');
    await shot(page, 'grouped-dead-letters-retry-all-confirm');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Retry 1 dead letter' }).click();
    await page.waitForURL(/n=grouped-retry-all/);
    await expect(page.locator('main').innerText()).resolves.toContain('Retried 1 dead letter to the end of their groups.');
    await expect(page.locator('main').innerText()).resolves.toContain('No dead letters.');
    await shot(page, 'grouped-dead-letters-retried-all');
    expect(await axeViolations(page)).toEqual([]);
    const again = await queue.receive(60_000, { max: 10 });
    expect(again.map((m) => m.payload).sort()).toEqual(['c1', 'two']);
  });
});
