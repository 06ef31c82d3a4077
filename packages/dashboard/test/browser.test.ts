// The dashboard in headless Chromium against the real admin API on real Redis.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { StreamWorker, StreamWorkerResult, type StreamEntry } from '@respire/worker';
import { startStandaloneDashboard, type StandaloneDashboard } from '../src/index.js';
import { axeViolations, browserPages, shot } from './browser-page.js';
import {
  addWorkerDeadLetter,
  BROKEN_LABEL,
  deadLetterQueueMessages,
  eventually,
  q,
  queueOf,
  range,
  readAsConsumer,
  startBrokenWorld,
  startWorld,
  TOKENS,
  xadd,
  xlen,
  type BrokenWorld,
  type World,
} from './support.js';

/** The dashboard in headless Chromium (Debian's package), against the real admin API on real Redis. */
const { browser, open, track } = browserPages();

/** Orders with a realistic mix: pending entries on two consumers, dead letters of each reason. */
async function seedOrders(world: World): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 1; i <= 12; i++)
    ids.push(await xadd(world, world.stream.key, ['order-id', String(1000 + i), 'customer', `customer-${i % 5}`, 'total', (i * 12.5).toFixed(2)]));
  await readAsConsumer(world, 'orders-host-1-0', 4);
  await readAsConsumer(world, 'orders-host-2-0', 3);
  await addWorkerDeadLetter(world, ids[0]!, ['order-id', '1001', 'customer', 'customer-1', 'total', '12.50'], {
    reason: 'processing-failed',
    exceptionType: 'PaymentGatewayTimeout',
    attempt: 3,
  });
  await addWorkerDeadLetter(world, ids[1]!, ['order-id', '1002', 'customer', 'customer-2', 'total', '25.00'], {
    reason: 'explicit',
    exceptionType: '',
    attempt: 1,
  });
  await addWorkerDeadLetter(world, ids[2]!, ['order-id', '1003', 'customer', 'customer-3', 'total', '37.50'], {
    reason: 'delivery-limit',
    exceptionType: '',
    attempt: 3,
  });
  await deadLetterQueueMessages(world, [
    '{"orderId":1001,"customer":"customer-1","event":"shipped"}',
    'order 1002 shipped',
    Buffer.from([0x00, 0xff, 0x10, 0x80]),
  ]);
  const queue = queueOf(world, 5);
  for (let i = 0; i < 3; i++) await queue.send(`{"orderId":${2000 + i},"event":"shipped"}`);
  await queue.receive(10 * 60_000, { max: 3 }); // leased for ten minutes
  return ids;
}

describe('operator pages', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ label: 'ui', dashboard: { pollIntervalMs: 2000 } });
    await seedOrders(world);
  });
  afterAll(() => world.close());

  it('shows the overview with data, the CSP header, and passes axe (no serious or critical violations)', async () => {
    const { page, dialogs } = await open();
    const response = await page.goto(`${world.url}/`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect(page.locator('h1').textContent()).resolves.toBe('Overview');
    await expect(page.getByRole('link', { name: world.queue.name }).count()).resolves.toBe(1);
    await expect(page.getByRole('link', { name: world.stream.group }).count()).resolves.toBe(1);
    await expect(page.locator('.card.danger .card-value').textContent()).resolves.toBe('6');
    await shot(page, 'overview');
    expect(await axeViolations(page)).toEqual([]);
    expect(dialogs).toEqual([]);
  });

  it('shows the consumer group, dead letters, a dead letter and a confirmation step, each passing axe', async () => {
    const { page } = await open();
    const visits: [string, string][] = [
      ['group', `/group${q({ id: world.stream.id, group: world.stream.group })}`],
      ['dead-letters-stream', `/dead-letters${q({ id: world.stream.id })}`],
      ['dead-letters-queue', `/dead-letters${q({ id: world.queue.id })}`],
      ['leased-messages', `/deliveries${q({ id: world.queue.id })}`],
    ];
    for (const [name, path] of visits) {
      expect((await page.goto(`${world.url}${path}`))!.status(), path).toBe(200);
      await shot(page, name);
      expect(await axeViolations(page), name).toEqual([]);
    }
    await page.goto(`${world.url}/dead-letters${q({ id: world.stream.id })}`);
    await page
      .getByRole('link', { name: /^View dead letter/ })
      .first()
      .click();
    await expect(page.locator('h1').textContent()).resolves.toMatch(/^Dead letter \d+-\d+$/);
    await expect(page.locator('dl.facts').textContent()).resolves.toContain('Reason');
    await shot(page, 'dead-letter');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Delete…' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Delete this dead letter?');
    await shot(page, 'confirm-delete');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('deletes a dead letter through the confirmation step', async () => {
    const { page } = await open();
    const before = await range(world, world.stream.dead);
    await page.goto(`${world.url}/dead-letters${q({ id: world.stream.id, order: 'oldest' })}`);
    await page.getByRole('link', { name: `Delete dead letter ${before[0]![0]}` }).click();
    await page.getByRole('button', { name: 'Delete dead letter' }).click();
    await page.waitForURL(/n=deleted/);
    await expect(page.getByRole('status').textContent()).resolves.toBe(`Deleted dead letter ${before[0]![0]}.`);
    expect((await range(world, world.stream.dead)).map(([id]) => id)).toEqual(before.slice(1).map(([id]) => id));
    expect(world.audits).toContainEqual(expect.objectContaining({ action: 'delete', actor: 'alice', role: 'operator', result: 'ok' }));
  });

  it('reaches the Retry button with the keyboard alone', async () => {
    const { page } = await open();
    await page.goto(`${world.url}/dead-letters${q({ id: world.queue.id, order: 'oldest' })}`);
    const first = (await range(world, world.queue.deadKey))[0]![0];
    let label = '';
    for (let i = 0; i < 60 && label !== `Retry dead letter ${first}`; i++) {
      await page.keyboard.press('Tab');
      label = await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
    }
    expect(label).toBe(`Retry dead letter ${first}`);
    await page.keyboard.press('Enter');
    await page.waitForURL(/n=retried/);
    expect((await range(world, world.queue.deadKey)).map(([id]) => id)).not.toContain(first);
  });

  it('refreshes on its own when auto-refresh is on (capped interval), without reloading the page', async () => {
    const { page } = await open();
    await page.goto(`${world.url}/dead-letters${q({ id: world.stream.id })}`);
    await page.getByRole('link', { name: 'Auto-refresh: off' }).click();
    await page.waitForURL(/refresh=on/);
    await expect(page.locator('body').getAttribute('data-poll-ms')).resolves.toBe('2000');
    const marker = await page.evaluate(() => ((window as unknown as { marker: number }).marker = Math.random()));
    const count = Number(await page.locator('.toolbar strong').textContent());
    await addWorkerDeadLetter(world, '9-9', ['order-id', 'late']);
    await page.waitForFunction((expected) => document.querySelector('.toolbar strong')?.textContent === String(expected), count + 1, { timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { marker: number }).marker)).toBe(marker);
    await expect(page.locator('.poll-state').textContent()).resolves.toMatch(/^Refreshed at/);
  });
});

describe('resources whose status could not be read', () => {
  let world: BrokenWorld;
  beforeAll(async () => {
    world = await startBrokenWorld('down');
    await seedOrders(world);
  });
  afterAll(() => world.close());

  it('lists them on the overview as text, with code and message, above the resources that could be read; the guard hides them too', async () => {
    const { page, dialogs } = await open();
    expect((await page.goto(`${world.url}/`))!.status()).toBe(200);
    const section = page.locator('section', { has: page.locator('#unavailable-heading') });
    await expect(section.locator('h2').textContent()).resolves.toBe('Unavailable');
    await expect(section.locator('[role="status"]').textContent()).resolves.toMatch(
      /The server refused the status of 2 resources; the others are shown\s+below\./,
    );
    const rows = await section.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent?.trim() ?? '')));
    expect(rows.map((cells) => cells.slice(0, 3))).toEqual([
      [`${BROKEN_LABEL} ${world.broken}`, 'worker stream', 'WRONG_TYPE'],
      [`payroll ${world.hidden}`, 'worker stream', 'WRONG_TYPE'],
    ]);
    for (const cells of rows) expect(cells[3]).toMatch(/WRONGTYPE|another type|wrong kind/);
    // The label is text: no element came from it, no dialog fired.
    expect(await page.locator('main img').count()).toBe(0);
    // The readable resources are still there, below.
    await expect(page.getByRole('link', { name: world.stream.group }).count()).resolves.toBe(1);
    await expect(page.getByRole('link', { name: world.queue.name }).count()).resolves.toBe(1);
    const [unavailableTop, streamsTop] = await Promise.all(
      ['#unavailable-heading', '#streams-heading'].map(async (h) => (await page.locator(h).boundingBox())!.y),
    );
    expect(unavailableTop!).toBeLessThan(streamsTop!);
    await shot(page, 'overview-unavailable');
    expect(await axeViolations(page)).toEqual([]);
    expect(dialogs).toEqual([]);

    const limited = await open(TOKENS.limited);
    await limited.page.goto(`${world.url}/`);
    await expect(limited.page.locator('#unavailable-heading + [role="status"]').textContent()).resolves.toMatch(/refused the status of 1 resource;/);
    await expect(limited.page.locator('main').textContent()).resolves.not.toContain('payroll');
  });
});

describe('retry end to end', () => {
  it('puts a dead letter back on its stream, where a running StreamWorker processes it again', async () => {
    const world = await startWorld({ label: 'e2e' });
    let healed = false;
    const handled: { order: string; delivery: number; healed: boolean }[] = [];
    const worker = new StreamWorker({
      client: world.client as never,
      stream: world.stream.key,
      group: world.stream.group,
      deadLetterStream: world.stream.dead,
      readWaitMs: 100,
      minimumIdleTimeMs: 1000,
      recoveryPollIntervalMs: 100,
      handler: (entry: StreamEntry) => {
        handled.push({ order: entry.getString('order-id') ?? '', delivery: entry.deliveryCount, healed });
        return healed ? StreamWorkerResult.Ack : StreamWorkerResult.DeadLetter;
      },
    });
    await worker.start();
    try {
      await xadd(world, world.stream.key, ['order-id', '4242', 'status', 'paid']);
      const record = await eventually(async () => {
        const records = await range(world, world.stream.dead);
        return records.length === 1 ? records[0] : undefined;
      });
      healed = true; // the fix is deployed

      const { page, dialogs } = await open();
      await page.goto(`${world.url}/dead-letters${q({ id: world.stream.id })}`);
      await page.getByRole('button', { name: `Retry dead letter ${record![0]}` }).click();
      await page.waitForURL(/n=retried/);
      await expect(page.getByRole('status').textContent()).resolves.toMatch(
        new RegExp(`^Retried dead letter ${record![0]}: appended again as entry \\d+-\\d+\\.$`),
      );
      await shot(page, 'retried');
      await eventually(() => handled.some((h) => h.order === '4242' && h.healed));
      expect(handled.map((h) => [h.order, h.healed])).toEqual([
        ['4242', false],
        ['4242', true],
      ]);
      expect(await xlen(world, world.stream.dead)).toBe(0);
      await eventually(async () => Number(((await world.raw(world.stream.key, ['XPENDING', world.stream.key, world.stream.group])) as unknown[])[0]) === 0);
      expect(world.audits).toContainEqual(expect.objectContaining({ action: 'retry', actor: 'alice', role: 'operator', result: 'ok' }));
      expect(dialogs).toEqual([]);
    } finally {
      await worker.stop(5000);
      await world.close();
    }
  });
});

describe('authorization in the browser', () => {
  let world: World;
  let attacker: Server;
  let attackerOrigin: string;
  beforeAll(async () => {
    world = await startWorld({ label: 'authz' });
    await seedOrders(world);
    // Another origin (another port) whose page posts a form to the dashboard as soon as it loads.
    attacker = createServer((req, res) => {
      const record = new URL(req.url ?? '/', 'http://x').searchParams.get('record') ?? '';
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><html><body><form id="f" method="post" action="${world.url}/actions/delete">` +
          `<input name="id" value="${world.stream.id.replace(/"/g, '&quot;')}"><input name="record" value="${record}">` +
          `<input name="_csrf" value="1.forged"></form><script>document.getElementById('f').submit()</script></body></html>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerOrigin = `http://localhost:${(attacker.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    attacker.closeAllConnections();
    await new Promise<void>((resolve) => attacker.close(() => resolve()));
    await world.close();
  });

  it("shows a viewer no retry or delete controls, and answers 403 to the viewer's direct POST", async () => {
    const { page } = await open(TOKENS.viewer);
    await page.goto(`${world.url}/dead-letters${q({ id: world.stream.id })}`);
    await expect(page.locator('.role').textContent()).resolves.toBe('viewer');
    await expect(page.getByRole('button', { name: /Retry/ }).count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: /Delete/ }).count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: /^View dead letter/ }).count()).resolves.toBe(3);
    await shot(page, 'viewer-dead-letters');
    const [record] = await range(world, world.stream.dead);
    // A hand-made same-origin POST with the viewer's own valid token: refused on the server.
    const status = await page.evaluate(
      async ({ url, id, record }) => {
        const token = document.querySelector('meta[name="csrf-token"]')!.getAttribute('content')!;
        const body = new URLSearchParams({ id, record, _csrf: token });
        const response = await fetch(`${url}/actions/retry`, { method: 'POST', body, redirect: 'manual' });
        return response.status;
      },
      { url: world.url, id: world.stream.id, record: record![0] },
    );
    expect(status).toBe(403);
    expect(await xlen(world, world.stream.dead)).toBe(3);
  });

  it("refuses a form that another site posts with the operator's credentials, and changes nothing", async () => {
    const { page } = await open();
    const before = await range(world, world.stream.dead);
    const refused = page.waitForResponse((response) => response.url().startsWith(`${world.url}/actions/delete`));
    await page.goto(`${attackerOrigin}/?record=${before[0]![0]}`);
    const response = await refused;
    expect(response.status()).toBe(403);
    await page.waitForLoadState();
    await expect(page.locator('h1').textContent()).resolves.toBe('Cross-site request refused');
    expect(await range(world, world.stream.dead)).toEqual(before);
    expect(world.audits.filter((a) => a.action === 'delete')).toEqual([]);
  });
});

describe('hostile corpus', () => {
  const svg = '"><svg onload=alert(1)>';
  let world: World;
  let hostile: { key: string; dead: string; group: string };
  beforeAll(async () => {
    const tag = `x${Date.now()}`;
    hostile = { key: `{${tag}}${svg}`, dead: `{${tag}}<script>alert(2)</script>`, group: `g${svg}` };
    world = await startWorld({ label: 'xss', extraStreams: [{ stream: hostile.key, deadLetterStream: hostile.dead }] });
    const id = await xadd(world, hostile.key, [svg, '<script>alert(3)</script>', 'img', '<img src=x onerror=alert(4)>']);
    await world.raw(hostile.key, ['XGROUP', 'CREATE', hostile.key, hostile.group, '0']);
    await world.raw(hostile.key, ['XREADGROUP', 'GROUP', hostile.group, `c${svg}`, 'COUNT', '1', 'STREAMS', hostile.key, '>']);
    await addWorkerDeadLetter(
      world,
      id,
      [svg, svg, 'script', '<script>alert(5)</script>'],
      { group: hostile.group, reason: `<b onmouseover=alert(6)>x</b>`, exceptionType: `</code><script>alert(7)</script>` },
      hostile.dead,
    );
    await addWorkerDeadLetter(world, id, ['big', Buffer.alloc(1024 * 1024, '<svg onload=alert(8)>')], { group: hostile.group }, hostile.dead);
    await addWorkerDeadLetter(
      world,
      id,
      ['bytes', Buffer.from([0xff, 0x3c, 0x73, 0x63, 0x72, 0x69, 0x70, 0x74, 0x3e, 0xc3, 0x28])],
      { group: hostile.group },
      hostile.dead,
    );
    await deadLetterQueueMessages(world, [svg, Buffer.from([0xc3, 0x28, 0xa0, 0xa1])]);
  });
  afterAll(() => world.close());

  it('renders hostile stream, group, consumer and field names, reasons, a 1 MiB payload and invalid UTF-8 inert', async () => {
    const { page, dialogs } = await open();
    const records = await world.admin.deadLetters(hostile.key, { count: 10, order: 'oldest' });
    const paths: [string, string][] = [
      ['hostile-overview', '/'],
      ['hostile-stream', `/stream${q({ id: hostile.key })}`],
      ['hostile-group', `/group${q({ id: hostile.key, group: hostile.group, body: (records.items[0] as { sourceId: string }).sourceId })}`],
      ['hostile-dead-letters', `/dead-letters${q({ id: hostile.key })}`],
      ['hostile-record', `/dead-letter${q({ id: hostile.key, record: records.items[0]!.id })}`],
      ['hostile-1mib', `/dead-letter${q({ id: hostile.key, record: records.items[1]!.id })}`],
      ['hostile-bytes', `/dead-letter${q({ id: hostile.key, record: records.items[2]!.id })}`],
      ['hostile-queue', `/dead-letters${q({ id: world.queue.id })}`],
      ['hostile-query', `/group${q({ id: hostile.key, group: hostile.group, consumer: `${svg}<script>alert(9)</script>` })}`],
    ];
    for (const [name, path] of paths) {
      const response = await page.goto(`${world.url}${path}`);
      expect(response!.status(), name).toBe(200);
      expect(response!.headers()['content-security-policy'], name).toMatch(/script-src 'self'(;|$)/);
      expect(response!.headers()['x-content-type-options'], name).toBe('nosniff');
      await page.mouse.move(400, 300);
      await page.mouse.move(600, 500);
      // Only our own script element; no element came from the data.
      expect(await page.locator('script').evaluateAll((els) => els.map((e) => e.getAttribute('src'))), name).toEqual(['/ops/respire/assets/dashboard.js']);
      expect(await page.locator('main svg, main img, main b, main iframe').count(), name).toBe(0);
      expect(await page.evaluate(() => [...document.querySelectorAll('*')].some((e) => [...e.attributes].some((a) => a.name.startsWith('on')))), name).toBe(
        false,
      );
      if (['hostile-overview', 'hostile-dead-letters', 'hostile-1mib'].includes(name)) await shot(page, name);
    }
    await page.goto(`${world.url}/dead-letters${q({ id: hostile.key })}`);
    await expect(page.locator('main').textContent()).resolves.toContain(svg);
    await page.goto(`${world.url}/dead-letter${q({ id: hostile.key, record: records.items[1]!.id })}`);
    await expect(page.locator('main').textContent()).resolves.toContain('Showing the first 64 KiB of 1.0 MiB');
    await page.goto(`${world.url}/dead-letter${q({ id: hostile.key, record: records.items[2]!.id })}`);
    await expect(page.locator('main').textContent()).resolves.toContain('ff 3c 73 63 72 69 70 74 3e c3 28');
    await sleep(300);
    expect(dialogs).toEqual([]);
  });
});

describe('names that change the direction of text', () => {
  it('keeps the confirmation sentence in reading order around a consumer named with a right-to-left override, and shows the override as an escape', async () => {
    const world = await startWorld({ label: 'bidi' });
    try {
      const consumer = 'c\u202Eexe.txt';
      const entry = await xadd(world, world.stream.key, ['order-id', '1']);
      await readAsConsumer(world, consumer, 1);
      const { page } = await open();
      await page.goto(`${world.url}/confirm/ack${q({ id: world.stream.id, group: world.stream.group, entry, deliveryCount: 1, consumer })}`);
      await shot(page, 'bidi-confirm-ack');
      // x of each character of "after 1 deliveries, leaves group", as laid out: left to right when nothing reversed it.
      const xs = await page.evaluate(() => {
        const paragraph = document.querySelector('section.confirm p')!;
        const walker = document.createTreeWalker(paragraph, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.textContent!.indexOf('after');
          if (at < 0) continue;
          const out: number[] = [];
          for (let i = at; i < at + 'after 1 deliveries, leaves group'.length && i < node.textContent!.length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const rect = range.getBoundingClientRect();
            if (rect.width > 0 && node.textContent![i] !== ' ') out.push(rect.left + rect.top * 10_000);
          }
          return out;
        }
        return [];
      });
      expect(xs.length).toBeGreaterThan(20);
      expect(xs).toEqual([...xs].sort((a, b) => a - b));
      // The override is drawn as its code point, an element of its own: never text that could pass for the name.
      await expect(page.locator('section.confirm .name').first().innerText()).resolves.toBe('cU+202Eexe.txt');
      await expect(page.locator('section.confirm .name .esc').first().innerText()).resolves.toBe('U+202E');
    } finally {
      await world.close();
    }
  });
});

describe('the standalone server in a browser', () => {
  const TOKEN = 'browser-operator-token-0123456789';
  let world: World;
  let server: StandaloneDashboard;
  let attacker: Server;
  let attackerOrigin: string;
  beforeAll(async () => {
    world = await startWorld({ label: 'solo-ui' });
    await addWorkerDeadLetter(world, '1-1', ['order-id', '1']);
    server = await startStandaloneDashboard({
      url: inject('redisUrl'),
      port: 0,
      users: [{ name: 'operator', role: 'operator', token: TOKEN }],
      streams: [{ stream: world.stream.key, deadLetterStream: world.stream.dead, label: 'orders' }],
      pollIntervalMs: 2000,
      audit: () => {},
    });
    attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>evil</title><h1>Phished</h1>');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerOrigin = `127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    attacker.closeAllConnections();
    await new Promise<void>((resolve) => attacker.close(() => resolve()));
    await server.close();
    await world.close();
  });

  async function signedIn(path: string): Promise<{ page: Page; context: BrowserContext }> {
    const context = track(await (await browser()).newContext({ viewport: { width: 1280, height: 860 } }));
    const page = await context.newPage();
    await page.goto(`${server.url.replace(/\/$/, '')}${path}`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('User').fill('operator');
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
    return { page, context };
  }

  it('signs in with the form (an HttpOnly cookie), and auto-refresh runs under its CSP', async () => {
    const { page } = await signedIn(`/dead-letters${q({ id: world.stream.id })}`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Dead letters');
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await page.getByRole('link', { name: 'Auto-refresh: off' }).click();
    await page.waitForURL(/refresh=on/);
    const count = Number(await page.locator('.toolbar strong').textContent());
    await addWorkerDeadLetter(world, '2-2', ['order-id', '2']);
    await page.waitForFunction((expected) => document.querySelector('.toolbar strong')?.textContent === String(expected), count + 1, { timeout: 10_000 });
    await shot(page, 'standalone-dead-letters');
  });

  it('finding: after signing out in another tab, auto-refresh put the sign-in form inside the page; now it stops and says so', async () => {
    const { page, context } = await signedIn(`/dead-letters${q({ id: world.stream.id, refresh: 'on' })}`);
    await page.waitForFunction(() => /^Refreshed at/.test(document.querySelector('.poll-state')?.textContent ?? ''), undefined, { timeout: 10_000 });
    const other = await context.newPage();
    await other.goto(server.url);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.waitForURL(/\/login$/);
    await page.waitForFunction(() => /signed out/i.test(document.querySelector('.poll-state')?.textContent ?? ''), undefined, { timeout: 10_000 });
    await expect(page.locator('main h1').textContent()).resolves.toBe('Dead letters');
    await expect(page.locator('main form.login').count()).resolves.toBe(0);
    await shot(page, 'standalone-signed-out');
  });

  it('finding: a sign-in link with next=/%09/<another site> sent the browser there after signing in; it stays on the dashboard', async () => {
    const context = track(await (await browser()).newContext());
    const page = await context.newPage();
    await page.goto(`${server.url}login?next=${encodeURIComponent(`/\t/${attackerOrigin}/`)}`);
    await page.getByLabel('User').fill('operator');
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).origin).toBe(new URL(server.url).origin);
    await expect(page.locator('h1').textContent()).resolves.toBe('Overview');
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
