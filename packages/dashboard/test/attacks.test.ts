import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkerDeadLetter,
  bearer,
  csrfFor,
  get,
  post,
  q,
  range,
  rawHttp,
  readAsConsumer,
  serveDashboard,
  startWorld,
  STUB_STREAM,
  stubAdmin,
  TOKENS,
  xadd,
  type World,
} from './support.js';

/**
 * A penetration test of the dashboard's routes: what must hold (path and method tricks, CSRF
 * variants, the asset route) and what was found and fixed (each `it` names the finding).
 */
let world: World;
let record: string;
beforeAll(async () => {
  world = await startWorld({ label: 'atk' });
  record = await addWorkerDeadLetter(world, '1-1', ['order-id', '1']);
});
afterAll(() => world.close());

const deadIds = async () => (await range(world, world.stream.dead)).map(([id]) => id);
const raw = (method: string, path: string, headers: Record<string, string> = {}, body = '') =>
  rawHttp(
    world.origin,
    `${method} ${path} HTTP/1.1\r\nHost: ${new URL(world.origin).host}\r\nConnection: close\r\n` +
      Object.entries({ ...headers, ...(body ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) }).map(([k, v]) => `${k}: ${v}\r\n`).join('') +
      `\r\n${body}`,
  );

describe('path tricks under the base path (hold)', () => {
  const variants = [
    '/actions/delete',
    '//actions/delete',
    '/actions//delete',
    '/actions/delete/',
    '/actions/delete.',
    '/Actions/delete',
    '/ACTIONS/DELETE',
    '/actions%2Fdelete',
    '/actions%2fdelete',
    '/%61ctions/delete',
    '/x/../actions/delete',
    '/x/%2e%2e/actions/delete',
    '/x/%2E%2E/actions/delete',
    '/./actions/delete',
    '/actions/./delete',
    '/actions/delete;x',
    '/actions/delete%00',
    '/actions/delete%20',
    '/actions\\delete',
  ];

  it('lets no variant of an action path reach the action without an operator, a same-origin request and a valid token', async () => {
    const viewerToken = await csrfFor(world, TOKENS.viewer);
    for (const variant of variants) {
      const path = `${world.base}${variant}`;
      const form = `id=${encodeURIComponent(world.stream.id)}&record=${record}`;
      const headers = { 'Content-Type': 'application/x-www-form-urlencoded', Origin: world.origin, 'Sec-Fetch-Site': 'same-origin' };
      const anonymous = await raw('POST', path, headers, form);
      expect([400, 401, 404], `${variant} anonymous`).toContain(anonymous.status);
      const viewer = await raw('POST', path, { ...headers, ...bearer(TOKENS.viewer) }, `${form}&_csrf=${encodeURIComponent(viewerToken)}`);
      expect([400, 403, 404], `${variant} viewer`).toContain(viewer.status);
      const noToken = await raw('POST', path, { ...headers, ...bearer(TOKENS.operator) }, form);
      expect([400, 403, 404], `${variant} operator without a token`).toContain(noToken.status);
      expect(await deadIds(), variant).toEqual([record]);
    }
    expect(world.audits).toEqual([]);
  });

  it('answers 405 to every method but POST on an action, and knows no method override (header or parameter)', async () => {
    const token = await csrfFor(world);
    const form = `id=${encodeURIComponent(world.stream.id)}&record=${record}&_csrf=${encodeURIComponent(token)}`;
    const headers = { 'Content-Type': 'application/x-www-form-urlencoded', Origin: world.origin, 'Sec-Fetch-Site': 'same-origin', ...bearer(TOKENS.operator) };
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'PURGE', 'PROPFIND']) {
      const response = await raw(method, `${world.base}/actions/delete?_method=POST`, { ...headers, 'X-HTTP-Method-Override': 'POST', 'X-Method-Override': 'POST' }, form);
      expect(response.status, method).toBe(405);
      expect(response.head.toLowerCase(), method).toContain('allow: post');
    }
    const viewer = await raw('POST', `${world.base}/actions/delete`, { ...headers, ...bearer(TOKENS.viewer), 'X-HTTP-Method-Override': 'GET' }, form);
    expect(viewer.status).toBe(403);
    expect(await deadIds()).toEqual([record]);
  });

  it('serves only its three assets: no traversal out of the folder, no file of the package', async () => {
    for (const path of ['/assets/..%2f..%2fpackage.json', '/assets/..%2F..%2Fsrc%2Fcli.ts', '/assets/%2e%2e/%2e%2e/package.json', '/assets/..%5c..%5cpackage.json', '/assets/.%2e/package.json', '/assets/dashboard.css%00.js', '/assets/Dashboard.css']) {
      const response = await raw('GET', `${world.base}${path}`);
      expect([401, 404], path).toContain(response.status);
      expect(response.body, path).not.toContain('"name"');
      expect(response.body, path).not.toContain('import ');
    }
  });

  it('finding: the asset route looked names up on a plain object, so /assets/constructor, __proto__ and toString answered 500', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const response = await get(world, `/assets/${name}`, null);
      expect(response.status, name).toBe(404);
    }
  });
});

describe('CSRF variants (hold)', () => {
  it('refuses a form with a valid token but neither Origin nor Sec-Fetch-Site, with Origin null, and from a sibling subdomain', async () => {
    const token = await csrfFor(world);
    const form = { id: world.stream.id, record, _csrf: token };
    for (const headers of [
      { origin: '', 'sec-fetch-site': '' },
      { origin: 'null', 'sec-fetch-site': '' },
      { origin: 'https://evil.dash.example', 'sec-fetch-site': 'same-site' },
      { origin: world.origin.replace('127.0.0.1', 'localhost'), 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'none' },
    ]) {
      const response = await post(world, '/actions/delete', form, { headers });
      expect(response.status, JSON.stringify(headers)).toBe(403);
    }
    expect(await deadIds()).toEqual([record]);
  });

  it('reads no token from a JSON or text/plain body, and refuses a cross-site text/plain form', async () => {
    const token = await csrfFor(world);
    const send = (contentType: string, body: string, site: string) =>
      fetch(`${world.url}/actions/delete`, { method: 'POST', redirect: 'manual', headers: { ...bearer(TOKENS.operator), 'content-type': contentType, origin: site === 'same-origin' ? world.origin : 'https://evil.example', 'sec-fetch-site': site }, body });
    const json = await send('application/json', JSON.stringify({ id: world.stream.id, record, _csrf: token }), 'same-origin');
    expect(json.status).toBe(403);
    const text = await send('text/plain', `id=${world.stream.id}&record=${record}&_csrf=${token}`, 'cross-site');
    expect(text.status).toBe(403);
    const textSame = await send('text/plain;charset=utf-8', `id=${world.stream.id}&record=${record}&_csrf=${token}`, 'same-origin');
    expect(textSame.status).toBe(403);
    expect(await deadIds()).toEqual([record]);
  });

  it('never puts the token in a URL (no GET form or link carries it), so no Referer or log can leak it', async () => {
    const paths = ['/', `/stream${q({ id: world.stream.id })}`, `/dead-letters${q({ id: world.stream.id })}`, `/dead-letter${q({ id: world.stream.id, record })}`, `/confirm/delete${q({ id: world.stream.id, record })}`];
    for (const path of paths) {
      const page = await get(world, path);
      expect(page.status, path).toBe(200);
      expect(page.body, path).not.toMatch(/href="[^"]*_csrf/);
      for (const form of page.body.match(/<form[\s\S]*?<\/form>/g) ?? []) {
        if (form.includes('_csrf')) expect(form, path).toMatch(/^<form method="post"/);
      }
    }
  });
});

describe('bounded input (holds)', () => {
  it('answers 400 to a huge count or a malformed cursor, and clamps a huge overview page number', async () => {
    expect((await get(world, `/dead-letters${q({ id: world.stream.id, count: 1_000_000 })}`)).status).toBe(400);
    expect((await get(world, `/dead-letters${q({ id: world.stream.id, count: '1e4' })}`)).status).toBe(400);
    expect((await get(world, `/dead-letters${q({ id: world.stream.id, cursor: '9'.repeat(5000) })}`)).status).toBe(400);
    expect((await get(world, `/dead-letters${q({ id: world.stream.id, cursor: '1-0 + COUNT 99999999' })}`)).status).toBe(400);
    expect((await get(world, `/deliveries${q({ id: world.queue.id, cursor: '-1' })}`)).status).toBe(400);
    expect((await get(world, `/${q({ qpage: '99999999999999999999', spage: '-5' })}`)).status).toBe(200);
  });
});
