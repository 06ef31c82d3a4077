// What an on-call engineer relies on, in Chromium: totals over every page, pages that reload as themselves, "not found", long and look-alike names, a 200,000-record job, messages, history.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { axeViolations, browserPages, shot } from './browser-page.js';
import { fillQueues, fillWorkerDeadLetters, privateRedis } from './fixtures.js';
import { addWorkerDeadLetter, deadLetterQueueMessages, q, readAsConsumer, startWorld, xadd, xlen, type World } from './support.js';

const { open } = browserPages();

const h1 = (page: Page) => page.locator('main h1').innerText();

describe('totals over many pages', { timeout: 120_000 }, () => {
  let redis: Awaited<ReturnType<typeof privateRedis>>;
  let world: World;
  beforeAll(async () => {
    redis = await privateRedis();
    world = await startWorld({ label: 'totals', url: redis.url, admin: { discoverQueues: { scanCount: 1000, maxPages: 1000 } } });
    await fillQueues(redis.raw, 'tenant', 5000);
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    await redis?.close();
  });

  it('finding: 5,000 queues with one dead letter each showed "50 dead letters" (the rows of one page); the cards add up every queue, on every page, and say so', async () => {
    const { page } = await open();
    await page.goto(`${world.url}/`);
    const card = (label: string) => page.locator('.card', { hasText: label }).locator('.card-value').innerText();
    await expect(card('dead letters')).resolves.toBe('5,000');
    await expect(card('queue messages ready')).resolves.toBe('5,000');
    await expect(page.locator('.totals-scope').innerText()).resolves.toContain('Totals across all 5,001 queues and 1 stream');
    await expect(page.locator('table.overview-queues tbody tr').count()).resolves.toBe(50);
    await shot(page, 'overview-totals');
    await page.getByRole('navigation', { name: 'Queues pages' }).getByRole('link', { name: 'Last' }).click();
    await page.waitForURL(/qpage=100/);
    await expect(card('dead letters')).resolves.toBe('5,000');
    await expect(page.locator('table.overview-queues tbody tr').count()).resolves.toBe(1);
    await page.getByRole('navigation', { name: 'Queues pages' }).getByRole('link', { name: 'Previous' }).click();
    await page.waitForURL(/qpage=99/);
    await page.getByLabel('Find a queue or stream by name').fill('tenant-4321');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(card('dead letters')).resolves.toBe('1');
    await expect(page.locator('.totals-scope').innerText()).resolves.toContain('matching “tenant-4321”');
  });
});

describe('pages of a live world', { timeout: 120_000 }, () => {
  let world: World;
  let record: string;
  let entry: string;
  let leased: string;
  let jobId: string;
  beforeAll(async () => {
    world = await startWorld({ label: 'reload', dashboard: { pollIntervalMs: 2000 }, admin: { jobs: { keyPrefix: `jobs-${Date.now()}:` } } });
    entry = await xadd(world, world.stream.key, ['order-id', '7', 'total', '12.50']);
    await readAsConsumer(world, 'orders-host-1-0', 1);
    record = await addWorkerDeadLetter(world, entry, ['order-id', '7', 'total', '12.50'], { reason: 'processing-failed', exceptionType: 'TimeoutError' });
    await deadLetterQueueMessages(world, ['{"orderId":7}']);
    const queue = new ReliableQueue(world.client as never, world.queue.name, { codec: utf8Codec, deliveryLimit: 5 });
    await queue.send('{"orderId":9,"note":"leased"}');
    leased = (await queue.receive(10 * 60_000, { max: 1 }))[0]!.id;
    await queue.sendWithResult('{"orderId":8,"note":"ready"}', { deduplicationId: 'order-8' });
    await queue.send('{"orderId":10,"note":"ready"}');
    for (let i = 0; i < 3; i++) {
      await world.admin.recordHistory();
      await new Promise((resolve) => setTimeout(resolve, 30));
      await queue.send(`{"orderId":${20 + i}}`);
    }
    const principal = { name: 'alice', role: 'operator' } as const;
    jobId = (await (await world.admin.startJob(principal, world.stream.id, { action: 'retry', recordIds: ['1-1'] })).finished).id;
  });
  afterAll(() => world.close());

  it("finding: Refresh and auto-refresh on a dead letter and on confirmation pages answered 400 (the link dropped the page's own parameters); every page reloads as itself", async () => {
    const { page } = await open();
    const id = world.stream.id;
    const qid = world.queue.id;
    const group = world.stream.group;
    const paths = [
      '/',
      `/queue${q({ id: qid })}`,
      `/stream${q({ id })}`,
      `/group${q({ id, group })}`,
      `/group${q({ id, group, consumer: 'orders-host-1-0', body: entry })}`,
      `/dead-letters${q({ id, reason: 'processing-failed' })}`,
      `/dead-letter${q({ id, record })}`,
      `/messages${q({ id: qid })}`,
      `/messages${q({ id: qid, view: 'in-flight' })}`,
      `/message${q({ id: qid, entry: leased })}`,
      `/find${q({ id: qid, q: 'order-8' })}`,
      `/history${q({ id: qid, range: '6h' })}`,
      `/jobs`,
      `/job${q({ job: jobId })}`,
      `/confirm/delete${q({ id, record })}`,
      `/confirm/job${q({ id, action: 'retry', reason: 'processing-failed' })}`,
      `/confirm/ack${q({ id, group, entry, deliveryCount: 1, consumer: 'orders-host-1-0' })}`,
      `/confirm/remove-idle-consumers${q({ id, group, minIdleMinutes: 5 })}`,
    ];
    for (const path of paths) {
      const first = await page.goto(`${world.url}${path}`);
      expect(first!.status(), path).toBe(200);
      const title = await h1(page);
      const [reloaded] = await Promise.all([page.waitForNavigation(), page.locator('#refresh-now').click()]);
      expect(reloaded!.status(), `${path} refreshed`).toBe(200);
      await expect(h1(page), path).resolves.toBe(title);
      const auto = page.getByRole('link', { name: 'Auto-refresh: off' });
      if ((await auto.count()) > 0) {
        await auto.click();
        await page.waitForURL(/refresh=on/);
        await page.waitForFunction(() => /^Refreshed at|failed/.test(document.querySelector('.poll-state')?.textContent ?? ''), undefined, { timeout: 10_000 });
        await expect(page.locator('.poll-state').innerText(), `${path} auto-refresh`).resolves.toMatch(/^Refreshed at/);
        await expect(h1(page), path).resolves.toBe(title);
      }
    }
  });

  it('finding: a mistyped group, queue or stream showed an empty page; it answers 404 with the nearest names that exist, as links', async () => {
    const { page } = await open();
    const typo = await page.goto(`${world.url}/group${q({ id: world.stream.id, group: 'fulfilment' })}`);
    expect(typo!.status()).toBe(404);
    await expect(page.locator('section.message').innerText()).resolves.toMatch(
      /No consumer group 'fulfilment' on this stream\.\s+Nearest that exist:\s+fulfillment/,
    );
    await shot(page, 'not-found-group');
    await page.locator('ul.hints a').first().click();
    await expect(h1(page)).resolves.toBe(`Group ${world.stream.group}`);
    const queue = await page.goto(`${world.url}/queue${q({ id: `{respire-queue:${world.queue.name.slice(0, -1)}}:stream` })}`);
    expect(queue!.status()).toBe(404);
    await expect(page.locator('ul.hints a').first().innerText()).resolves.toBe(world.queue.name);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('messages: ready and leased pages; a payload copied and downloaded; a leased message released, then deleted after a confirmation', async () => {
    const { page } = await open(undefined, { permissions: ['clipboard-read', 'clipboard-write'] });
    await page.goto(`${world.url}/messages${q({ id: world.queue.id })}`);
    await expect(page.locator('main table tbody tr').count()).resolves.toBeGreaterThanOrEqual(2);
    await shot(page, 'messages-ready');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: /Leased and delayed/ }).click();
    await expect(page.locator('main table tbody tr').first().innerText()).resolves.toContain('leased');
    await page.getByRole('link', { name: leased }).click();
    await expect(page.locator('dl.facts').innerText()).resolves.toContain('Leased: a consumer holds it under a receipt');
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(JSON.parse(copied)).toEqual({ orderId: 9, note: 'leased' });
    // Chromium's download manager sends no extraHTTPHeaders (the test's bearer token), so the link's
    // answer is fetched with the page's own request context; a browser signed in by cookie downloads it.
    const link = page.getByRole('link', { name: /^Download/ }).first();
    await expect(link.getAttribute('download')).resolves.toBe('');
    const answer = await page.request.get(new URL((await link.getAttribute('href'))!, page.url()).href);
    expect(answer.headers()['content-disposition']).toMatch(/^attachment; filename="message-\d+-\d+\.bin"$/);
    expect(answer.headers()['content-type']).toBe('application/octet-stream');
    expect(await answer.text()).toBe('{"orderId":9,"note":"leased"}');
    await shot(page, 'message');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Release now' }).click();
    await expect(page.getByRole('status').innerText()).resolves.toBe(`Released message ${leased}: due now, the next receive redelivers it.`);
    await expect(page.locator('dl.facts').innerText()).resolves.toContain('Delayed');
    await page.getByRole('link', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete message' }).click();
    await expect(page.getByRole('status').innerText()).resolves.toBe(`Deleted message ${leased}: acknowledged for good.`);
    expect(world.audits.map((a) => a.action)).toEqual(expect.arrayContaining(['release-message', 'delete-message']));
  });

  it('find: a deduplication ID names its message; an entry ID shows where it stands in each group', async () => {
    const { page } = await open();
    await page.goto(`${world.url}/queue${q({ id: world.queue.id })}`);
    await page.getByLabel('Find').fill('order-8');
    await page.getByRole('button', { name: 'Find' }).click();
    await expect(page.locator('main').innerText()).resolves.toMatch(/order-8 names entry \d+-\d+/);
    await expect(page.locator('main').innerText()).resolves.toContain('Ready: not yet delivered');
    await shot(page, 'find');
    await page.goto(`${world.url}/stream${q({ id: world.stream.id })}`);
    await page.getByLabel('Find').fill(entry);
    await page.getByRole('button', { name: 'Find' }).click();
    await expect(page.locator('main').innerText()).resolves.toMatch(/Group fulfillment: pending to orders-host-1-0/);
    await expect(page.locator('main').innerText()).resolves.toContain('Dead letters of this source entry');
  });

  it("history: charts of the queue's rates and backlogs from the samples kept in Redis, with their numbers", async () => {
    const { page } = await open();
    await page.goto(`${world.url}/history${q({ id: world.queue.id })}`);
    await expect(page.locator('figure.chart').count()).resolves.toBe(4);
    await expect(page.locator('figure.chart svg polyline.series').count()).resolves.toBeGreaterThan(0);
    await expect(page.locator('figure.chart').first().locator('.legend').innerText()).resolves.toMatch(/sent\s+delivered\s+acknowledged\s+dead-lettered/);
    await page.locator('figure.chart').nth(1).locator('summary').click();
    await expect(page.locator('figure.chart').nth(1).locator('tbody tr').count()).resolves.toBe(3);
    await shot(page, 'history');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('live consumers: which are active now and what each holds; the time of the last successful read says when the server cannot tell', async () => {
    const { page } = await open();
    // A worker reads an entry now: it is active, and holds one more.
    await xadd(world, world.stream.key, ['order-id', '11']);
    await world.raw(world.stream.key, ['XREADGROUP', 'GROUP', world.stream.group, 'orders-host-1-0', 'COUNT', '1', 'STREAMS', world.stream.key, '>']);
    const holds = (await world.admin.consumers(world.stream.id, world.stream.group)).items.find((c) => c.name === 'orders-host-1-0')!.pending;
    await page.goto(`${world.url}/group${q({ id: world.stream.id, group: world.stream.group })}`);
    const row = page.locator('table.consumers tbody tr', { hasText: 'orders-host-1-0' });
    await expect(row.locator('td').first().innerText()).resolves.toBe('active');
    await expect(row.locator('td').nth(1).innerText()).resolves.toBe(String(holds));
    const inactive = (await row.locator('td').nth(3).innerText()).trim();
    if (inactive === 'unknown') await expect(page.locator('main').innerText()).resolves.toContain('Redis 7.0 has no inactive time');
    else expect(inactive).toMatch(/ago$/);
  });

  it('finding: a released pending entry showed an idle time of "24 d 20 h"; it reads "released, claimable now"', async () => {
    const { page } = await open();
    const id = await xadd(world, world.stream.key, ['order-id', '12']);
    await world.raw(world.stream.key, ['XREADGROUP', 'GROUP', world.stream.group, 'orders-host-2-0', 'COUNT', '10', 'STREAMS', world.stream.key, '>']);
    await page.goto(`${world.url}/group${q({ id: world.stream.id, group: world.stream.group, consumer: 'orders-host-2-0', last: '1' })}`);
    const row = page.locator('table.pending tbody tr', { hasText: id });
    await row.getByRole('button', { name: `Release entry ${id} for redelivery` }).click();
    await expect(page.getByRole('status').innerText()).resolves.toContain(`Released entry ${id}`);
    const released = page.locator('table.pending tbody tr', { hasText: id });
    await expect(released.locator('td.released').innerText()).resolves.toBe('released, claimable now');
    await expect(released.getByRole('button', { name: /^Release entry/ }).count()).resolves.toBe(0);
    await shot(page, 'pending-released');
  });

  it('delayed sends and headers: the list and the message page show the due time and a headers table; hostile headers (markup, ANSI escapes, a long value, bytes) stay text', async () => {
    const queue = new ReliableQueue(world.client as never, world.queue.name, { codec: utf8Codec });
    const plain = await queue.send('{"orderId":31,"note":"delayed"}', {
      delayMs: 15 * 60_000,
      headers: {
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        tenant: 'acme-eu',
        'content-type': 'application/json',
        signature: Buffer.from('9f86d081884c7d659a2feaa0c55ad015', 'hex'),
      },
    });
    const long = `${'lorem-ipsum-'.repeat(400)}<end>`;
    const hostile = await queue.send('{"orderId":32}', {
      delayMs: 5 * 60_000,
      headers: {
        '<img src=x onerror=alert(1)>': '<script>alert(2)</script>',
        ansi: '\u001b[31mred\u001b]0;pwned\u0007 \u202eevil',
        long,
        raw: Buffer.from([0xff, 0x00, 0x3c, 0x73, 0x3e]),
      },
    });
    const { page, dialogs } = await open();
    await page.goto(`${world.url}/messages${q({ id: world.queue.id })}`);
    const row = page.locator('main table tbody tr', { hasText: hostile });
    await expect(row.locator('td').nth(1).innerText()).resolves.toMatch(/^delayed until \d{4}-\d\d-\d\d [\d:.]+ UTC \(in 4 min [0-5]\d s\)$/);
    await expect(row.locator('td').nth(2).innerText()).resolves.toBe('<img src=x onerror=alert(1)>, ansi, long, raw');
    await shot(page, 'messages-delayed');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('link', { name: plain }).click();
    await expect(page.locator('dl.facts').innerText()).resolves.toMatch(
      /Delayed send: not yet delivered, not receivable before its due time\n[\s\S]*Delayed until\n.* \(in 1[45] min \d\d s; sent with a delay\)\nHeaders\n4 \(below\)/,
    );
    const headerRows = page.locator('table.headers tbody tr');
    await expect(headerRows.locator('th').allInnerTexts()).resolves.toEqual(['traceparent', 'tenant', 'content-type', 'signature']);
    await expect(headerRows.nth(3).locator('td').innerText()).resolves.toContain('9f 86 d0 81 88 4c 7d 65 9a 2f ea a0 c5 5a d0 15');
    await shot(page, 'message-headers');
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${world.url}/message${q({ id: world.queue.id, entry: hostile })}`);
    const cells = await page
      .locator('table.headers tbody tr')
      .evaluateAll((rows) => rows.map((r) => [r.querySelector('th')!.textContent, r.querySelector('.tag')!.textContent, r.querySelector('pre')!.textContent]));
    expect(cells).toEqual([
      ['<img src=x onerror=alert(1)>', 'string', '<script>alert(2)</script>'],
      ['ansi', 'string', '\\u001B[31mred\\u001B]0;pwned\\u0007 \\u202Eevil'],
      ['long', 'string', long],
      ['raw', 'bytes, hex (not valid UTF-8)', 'ff 00 3c 73 3e'],
    ]);
    // Nothing the headers hold became markup: no image, no script ran, and the long value wraps inside the page.
    await expect(page.locator('main img, main script').count()).resolves.toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(dialogs).toEqual([]);
    await shot(page, 'message-hostile-headers');
    expect(await axeViolations(page)).toEqual([]);
  });
});

describe('names', { timeout: 60_000 }, () => {
  it("finding: pages answered 400 above 2,048 characters; names up to the admin's limit open, cut with the whole name on demand, and no table scrolls sideways", async () => {
    const long = (n: number, seed: string) => Array.from({ length: n }, (_, i) => seed[i % seed.length]).join('');
    const queueName = `q-${long(65_400, 'abcdefghij')}`;
    const stream = `{long}:${long(65_000, 'klmnopqrst')}`;
    const group = `g-${long(1020, 'uvwxyz')}`;
    const consumer = `c-${long(65_530, '0123456789')}`;
    const world = await startWorld({ label: 'long', admin: { queues: [{ name: queueName }], streams: [{ stream, deadLetterStream: `{long}:dead` }] } });
    try {
      await new ReliableQueue(world.client as never, queueName, { codec: utf8Codec }).send('x');
      const entry = await xadd(world, stream, ['k', 'v']);
      await readAsConsumer(world, consumer, 1, stream, group);
      const { page } = await open();
      await page.goto(`${world.url}/`);
      const width = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      expect(width[0]).toBeLessThanOrEqual(width[1]!);
      for (const table of ['table.overview-queues', 'table.overview-streams']) {
        for (const h of await page.locator(`${table} tbody tr`).evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().height)))
          expect(h).toBeLessThan(200);
      }
      await shot(page, 'long-names-overview');
      const queueLink = page.locator('table.overview-queues a.name', { hasText: 'q-abcdefghij' });
      await Promise.all([page.waitForURL(/idh=/), queueLink.click()]);
      await expect(h1(page)).resolves.toMatch(/^Queue q-abcdefghij/);
      await page.locator('details.full-name summary').first().click();
      await expect(page.locator('details.full-name .full').first().innerText()).resolves.toHaveLength(queueName.length);
      const box = await page.locator('details.full-name .full').first().boundingBox();
      expect(box!.height).toBeLessThan(400);
      await shot(page, 'long-names-queue');
      await page.goto(`${world.url}/`);
      await page.locator('table.overview-streams a.name', { hasText: 'g-uvwxyz' }).click();
      await expect(h1(page)).resolves.toMatch(/^Group g-uvwxyz/);
      await page.locator('table.consumers a.name').first().click();
      await expect(page.locator('#pending-heading').innerText()).resolves.toContain('of consumer c-0123');
      await page.getByRole('link', { name: `Ack entry ${entry}…` }).click();
      await expect(h1(page)).resolves.toBe('Acknowledge this pending entry?');
      await page.getByRole('button', { name: 'Acknowledge entry' }).click();
      await expect(page.getByRole('status').innerText()).resolves.toBe(`Acknowledged entry ${entry}.`);
      expect(Number(((await world.raw(stream, ['XPENDING', stream, group])) as unknown[])[0])).toBe(0);
    } finally {
      await world.close();
    }
  });

  it('finding: look-alike names (an invisible character, a letter of another script, a fullwidth letter, a backslash sequence that spells a character) looked the same; every one reads differently', async () => {
    const names = ['payments', 'p\u0430yments', 'pay\u200Bments', 'pay\\u200Bments', '\uFF50ayments', 'payment\u0455'];
    const tag = `look-${Date.now()}`;
    const world = await startWorld({ label: 'look', extraStreams: names.map((n, i) => ({ stream: `{${tag}}:${i}`, label: n })) });
    try {
      const { page } = await open();
      await page.goto(`${world.url}/`);
      const shown = await page
        .locator('table.overview-streams tbody th a.name')
        .evaluateAll((links) => links.map((a) => ({ html: a.innerHTML, text: (a as HTMLElement).innerText })).slice(1));
      expect(shown).toHaveLength(names.length);
      expect(new Set(shown.map((x) => x.html)).size).toBe(names.length);
      expect(new Set(shown.map((x) => x.text)).size).toBe(names.length);
      const byName = (i: number) => shown[i]!.html;
      expect(byName(0)).toBe('payments');
      expect(byName(1)).toContain('<mark class="lookalike" title="U+0430, Cyrillic in a Latin name">а</mark>');
      expect(byName(2)).toContain('<span class="esc"');
      expect(byName(3)).toBe('pay\\u200Bments');
      expect(byName(4)).toContain('<mark class="lookalike" title="U+FF50, a compatibility form of &quot;p&quot;">ｐ</mark>');
      expect(byName(5)).toContain('U+0455, Cyrillic in a Latin name');
      await page.locator('main').screenshot({ path: `${(await import('./browser.js')).SCREENSHOT_DIR}/lookalikes.png` });
    } finally {
      await world.close();
    }
  });
});

describe('a bulk job of 200,000 dead letters', { timeout: 240_000 }, () => {
  let redis: Awaited<ReturnType<typeof privateRedis>>;
  let world: World;
  beforeAll(async () => {
    redis = await privateRedis();
    // Rate-limited, so that the progress can be watched and cancelled.
    world = await startWorld({ label: 'job', url: redis.url, dashboard: { pollIntervalMs: 2000 }, admin: { jobs: { ratePerSecond: 20_000, pageSize: 500 } } });
    await fillWorkerDeadLetters(redis.raw, world.stream.dead, 200_000);
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    await redis?.close();
  });

  it('retries them in the background with progress on its page; any operator cancels it; the records it did not reach stay', async () => {
    const { page } = await open();
    await page.goto(`${world.url}/dead-letters${q({ id: world.stream.id })}`);
    await page.getByRole('link', { name: 'Retry all…' }).click();
    await expect(h1(page)).resolves.toBe('Retry dead letters?');
    await page.getByRole('button', { name: 'Retry every dead letter (200,000 now)' }).click();
    await page.waitForURL(/\/job\?job=/);
    const progress = () => page.locator('progress').evaluate((p) => Number((p as HTMLProgressElement).value));
    // The page refreshes itself while the job runs.
    await page.waitForFunction(() => Number((document.querySelector('progress') as HTMLProgressElement | null)?.value ?? 0) > 0.05, undefined, {
      timeout: 30_000,
    });
    const seen = await progress();
    await page.waitForFunction((before) => Number((document.querySelector('progress') as HTMLProgressElement).value) > before, seen, { timeout: 30_000 });
    await shot(page, 'job-running');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await page.waitForFunction(() => document.querySelector('.job-state')?.textContent === 'cancelled', undefined, { timeout: 30_000 });
    const text = await page.locator('section.job').innerText();
    const done = Number(/Retried\s+([\d,]+)/.exec(text)![1]!.replace(/,/g, ''));
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(200_000);
    await expect(page.locator('section.job [role="status"]').innerText()).resolves.toMatch(
      /^Cancelled: retried [\d,]+ dead letters first; the records it did not reach are still there\./,
    );
    expect(await xlen(world, world.stream.dead)).toBe(200_000 - done);
    expect(await xlen(world, world.stream.key)).toBe(done);
    await shot(page, 'job-cancelled');
    expect(world.audits.map((a) => a.action)).toEqual(expect.arrayContaining(['job-start', 'job-cancel', 'job-finish']));
    await page.getByRole('link', { name: 'Jobs' }).first().click();
    await expect(page.locator('main table tbody tr').first().innerText()).resolves.toContain('cancelled');
  });
});
