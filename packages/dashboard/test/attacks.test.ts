// A penetration test of the dashboard's routes.
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
  await world.raw(world.stream.key, ['XGROUP', 'CREATE', world.stream.key, world.stream.group, '0', 'MKSTREAM']);
});
afterAll(() => world.close());

const deadIds = async () => (await range(world, world.stream.dead)).map(([id]) => id);
const raw = (method: string, path: string, headers: Record<string, string> = {}, body = '') =>
  rawHttp(
    world.origin,
    `${method} ${path} HTTP/1.1\r\nHost: ${new URL(world.origin).host}\r\nConnection: close\r\n` +
      Object.entries({ ...headers, ...(body ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('') +
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
      const response = await raw(
        method,
        `${world.base}/actions/delete?_method=POST`,
        { ...headers, 'X-HTTP-Method-Override': 'POST', 'X-Method-Override': 'POST' },
        form,
      );
      expect(response.status, method).toBe(405);
      expect(response.head.toLowerCase(), method).toContain('allow: post');
    }
    const viewer = await raw('POST', `${world.base}/actions/delete`, { ...headers, ...bearer(TOKENS.viewer), 'X-HTTP-Method-Override': 'GET' }, form);
    expect(viewer.status).toBe(403);
    expect(await deadIds()).toEqual([record]);
  });

  it('serves only its three assets: no traversal out of the folder, no file of the package', async () => {
    for (const path of [
      '/assets/..%2f..%2fpackage.json',
      '/assets/..%2F..%2Fsrc%2Fcli.ts',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/assets/..%5c..%5cpackage.json',
      '/assets/.%2e/package.json',
      '/assets/dashboard.css%00.js',
      '/assets/Dashboard.css',
    ]) {
      const response = await raw('GET', `${world.base}${path}`);
      expect([401, 404], path).toContain(response.status);
      expect(response.body, path).not.toContain('"name"');
      expect(response.body, path).not.toContain('import ');
    }
  });

  it('serves a script with no HTML sink (innerHTML, outerHTML, insertAdjacentHTML, document.write, eval, new Function)', async () => {
    const js = (await get(world, '/assets/dashboard.js', null)).body;
    expect(js).toContain('DOMParser');
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setTimeout\(['"]/);
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
      fetch(`${world.url}/actions/delete`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          ...bearer(TOKENS.operator),
          'content-type': contentType,
          origin: site === 'same-origin' ? world.origin : 'https://evil.example',
          'sec-fetch-site': site,
        },
        body,
      });
    const json = await send('application/json', JSON.stringify({ id: world.stream.id, record, _csrf: token }), 'same-origin');
    expect(json.status).toBe(403);
    const text = await send('text/plain', `id=${world.stream.id}&record=${record}&_csrf=${token}`, 'cross-site');
    expect(text.status).toBe(403);
    const textSame = await send('text/plain;charset=utf-8', `id=${world.stream.id}&record=${record}&_csrf=${token}`, 'same-origin');
    expect(textSame.status).toBe(403);
    expect(await deadIds()).toEqual([record]);
  });

  it('never puts the token in a URL (no GET form or link carries it), so no Referer or log can leak it', async () => {
    const paths = [
      '/',
      `/stream${q({ id: world.stream.id })}`,
      `/dead-letters${q({ id: world.stream.id })}`,
      `/dead-letter${q({ id: world.stream.id, record })}`,
      `/confirm/delete${q({ id: world.stream.id, record })}`,
    ];
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

describe('errors', () => {
  const secret = 'connect ECONNREFUSED redis://default:hunter2@10.1.2.3:6379 at /srv/app/node_modules/redis/dist/index.js:42';

  it('finding: a 500 page showed the error message (a Redis URL with its password, a host, a path); now a reference, the details go to onError', async () => {
    const logged: { error: unknown; reference: string | undefined }[] = [];
    const served = await serveDashboard({
      admin: stubAdmin({
        overview: () => {
          throw new Error(secret);
        },
      }),
      onError: (error, _request, info) => void logged.push({ error, reference: (info as { reference?: string } | undefined)?.reference }),
    });
    try {
      const page = await fetch(`${served.url}/`, { headers: bearer(TOKENS.operator) });
      expect(page.status).toBe(500);
      const html = await page.text();
      for (const part of ['hunter2', '10.1.2.3', 'ECONNREFUSED', '/srv/app', 'node_modules']) expect(html).not.toContain(part);
      expect(logged).toHaveLength(1);
      expect((logged[0]!.error as Error).message).toBe(secret);
      expect(logged[0]!.reference).toMatch(/^[0-9a-f]{8,}$/);
      expect(html).toContain(logged[0]!.reference);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    } finally {
      await served.close();
    }
  });

  it('a page whose read Redis could not answer (a failover: a transport failure, or a retryable reply) is a 503 "Try again" with a reference; other failures stay 500', async () => {
    const failure = (name: string, code: string, retryable: boolean) => Object.assign(new Error(secret), { name, code, retryable, outcomeUnknown: true });
    const logged: unknown[] = [];
    const served = await serveDashboard({
      admin: stubAdmin({
        overview: () => {
          throw failure('RespireTransportError', 'TRANSPORT_FAILED', false);
        },
        deadLetters: () => {
          throw failure('RespireServerError', 'SERVER_ERROR', true); // CLUSTERDOWN, say
        },
        streamStatus: () => {
          throw failure('RespireServerError', 'SERVER_ERROR', false); // a reply that will come again
        },
      }),
      onError: (error) => void logged.push(error),
    });
    try {
      const statuses: number[] = [];
      for (const path of ['/', '/dead-letters?id=orders', '/stream?id=orders']) {
        const page = await fetch(`${served.url}${path}`, { headers: bearer(TOKENS.viewer) });
        const html = await page.text();
        statuses.push(page.status);
        for (const part of ['hunter2', '10.1.2.3', 'ECONNREFUSED']) expect(html).not.toContain(part);
        if (page.status === 503) expect(html).toMatch(/Try again[\s\S]*reload it in a few seconds \(reference [0-9a-f]{12}\)/);
      }
      expect(statuses).toEqual([503, 503, 500]);
      expect(logged).toHaveLength(3); // every one still reaches the log
    } finally {
      await served.close();
    }
  });

  it("finding: an onError callback that throws left Hono's bare 500 (no CSP, no page); the 500 page still shows", async () => {
    const served = await serveDashboard({
      admin: stubAdmin({
        overview: () => {
          throw new Error(secret);
        },
      }),
      onError: () => {
        throw new Error('logger down');
      },
    });
    try {
      const page = await fetch(`${served.url}/`, { headers: bearer(TOKENS.operator) });
      expect(page.status).toBe(500);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(await page.text()).toContain('Something went wrong');
    } finally {
      await served.close();
    }
  });

  it("finding: a malformed multipart form answered 500 with the parser's message; now 400, nothing done", async () => {
    const token = await csrfFor(world);
    const response = await fetch(`${world.url}/actions/delete`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...bearer(TOKENS.operator), 'content-type': 'multipart/form-data; boundary=xyz', origin: world.origin, 'x-csrf-token': token },
      body: '--abc\r\nnot a part\r\n',
    });
    expect(response.status).toBe(400);
    expect(await deadIds()).toEqual([record]);
  });

  it('shows no stack trace or message when authorize throws, and none when the guard throws', async () => {
    const status = { resource: STUB_STREAM, length: 0, exists: true, groups: [], deadLetters: 0 };
    const admin = stubAdmin({ overview: () => ({ serverTimeMs: 0, queues: [], streams: [status], discoveryTruncated: false, unavailable: [] }) });
    const served = await serveDashboard({
      admin,
      guard: () => {
        throw new Error(secret);
      },
      onError: () => {},
    });
    try {
      for (const path of ['/', `/stream?id=${STUB_STREAM.id}`]) {
        const page = await fetch(`${served.url}${path}`, { headers: bearer(TOKENS.operator) });
        expect(page.status, path).toBe(500);
        expect(await page.text(), path).not.toContain('hunter2');
      }
      const refused = await fetch(`${served.url}/`, { headers: bearer(TOKENS.broken) });
      expect(refused.status).toBe(403);
      expect(await refused.text()).not.toMatch(/identity provider|at \w+ \(/);
    } finally {
      await served.close();
    }
  });
});

describe('unknown resources', () => {
  it('answers 404 only to what the admin API calls an unknown resource (isUnknownResource); another refusal of the resource id is a 400 naming the parameter', async () => {
    const refusal = (fields: object) =>
      Object.assign(new Error(`resource: ${'x'.repeat(20)} is a queue`), {
        name: 'RespireValidationError',
        code: 'INVALID_ARGUMENT',
        argument: 'resource',
        ...fields,
      });
    const served = await serveDashboard({
      admin: stubAdmin({
        resource: (id: string) => {
          if (id === 'not-a-stream') throw refusal({});
          if (id === 'look-alike') throw Object.assign(new Error('unknown'), { name: 'Error', unknownResource: id });
          if (id === STUB_STREAM.id) return STUB_STREAM;
          throw refusal({ unknownResource: id });
        },
      }),
      onError: () => {},
    });
    try {
      const status = async (id: string) => {
        const page = await fetch(`${served.url}/stream${q({ id })}`, { headers: bearer(TOKENS.operator) });
        return [page.status, /<h1>([\s\S]*?)<\/h1>/.exec(await page.text())?.[1]?.replace(/<[^>]*>/g, '')];
      };
      expect(await status('made-up')).toEqual([404, 'Not found']);
      expect(await status('not-a-stream')).toEqual([400, 'Bad request']);
      expect(await status('look-alike')).toEqual([500, 'Something went wrong']);
      expect(await status(STUB_STREAM.id)).toEqual([200, expect.any(String)]);
    } finally {
      await served.close();
    }
  });
});

describe('headers on every response', () => {
  const expectHeaders = (headers: Headers, what: string) => {
    expect(headers.get('content-security-policy'), what).toContain("frame-ancestors 'none'");
    expect(headers.get('x-content-type-options'), what).toBe('nosniff');
    expect(headers.get('referrer-policy'), what).toBe('no-referrer');
  };

  it('finding: a path outside the base path (another case, a longer prefix) answered a bare 404 without CSP or nosniff', async () => {
    for (const path of ['/OPS/respire/', '/ops/respirex/', '/ops/Respire/actions/delete', '/']) {
      const response = await raw('GET', path, bearer(TOKENS.operator));
      expect(response.status, path).toBe(404);
      const headers = new Headers(
        response.head
          .split('\r\n')
          .slice(1)
          .map((line): [string, string] => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
      );
      expectHeaders(headers, path);
    }
  });

  it('finding: under a base path the dashboard\'s 404 page was never used (Hono\'s plain "404 Not Found" instead)', async () => {
    const page = await get(world, '/no-such-page');
    expect(page.status).toBe(404);
    expect(page.body).toContain('There is no such page.');
    expect(page.body).toContain('<meta name="csrf-token"');
    expectHeaders(page.headers, '404');
    const anonymous = await get(world, '/no-such-page', null);
    expect(anonymous.status).toBe(401);
    expectHeaders(anonymous.headers, '401');
  });

  it('sends them on redirects, 405, 409 and 413 too, and no-store on everything but the assets', async () => {
    const token = await csrfFor(world);
    const responses: [string, Awaited<ReturnType<typeof get>>][] = [
      ['redirect', await post(world, '/actions/delete', { id: world.stream.id, record: await addWorkerDeadLetter(world, '1-2', ['x', '1']), _csrf: token })],
      ['405', await get(world, '/actions/delete')],
      ['409', await post(world, '/actions/delete', { id: world.stream.id, record: '1-999', _csrf: token })],
      ['413', await post(world, '/actions/delete', { id: world.stream.id, record, _csrf: token, pad: 'x'.repeat(1_100_000) })],
    ];
    expect(responses.map(([k, r]) => [k, r.status])).toEqual([
      ['redirect', 303],
      ['405', 405],
      ['409', 409],
      ['413', 413],
    ]);
    for (const [what, response] of responses) {
      expectHeaders(response.headers, what);
      expect(response.headers.get('cache-control'), what).toBe('no-store');
    }
  });
});

describe('links built from the request', () => {
  it('finding: at the root base path, the Refresh link of a page reached as //evil.example/ pointed to //evil.example/ (another site)', async () => {
    const served = await serveDashboard({ admin: stubAdmin(), basePath: '/' });
    try {
      const served404 = await rawHttp(
        served.origin,
        `GET //evil.example/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.operator}\r\nConnection: close\r\n\r\n`,
      );
      expect(served404.body).toContain('id="refresh-now"');
      for (const path of ['//evil.example/', '//evil.example/?refresh=on', '/\\evil.example/', '//evil.example/stream?id=orders']) {
        const response = await rawHttp(
          served.origin,
          `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.operator}\r\nConnection: close\r\n\r\n`,
        );
        expect(response.status, path).toBeLessThan(500);
        for (const [, href] of response.body.matchAll(/href="([^"]*)"/g)) {
          expect(href, `${path}: ${href}`).not.toMatch(/^(\/\/|\/\\|\\|[a-z]+:)/i);
        }
      }
    } finally {
      await served.close();
    }
  });
});

describe('authorization', () => {
  it('finding: an authorize that never settles held the request open forever; now 503 after authorizeTimeoutMs', async () => {
    const served = await serveDashboard({ admin: stubAdmin(), authorize: () => new Promise(() => {}), authorizeTimeoutMs: 300 });
    try {
      const started = Date.now();
      const response = await fetch(`${served.url}/`, { signal: AbortSignal.timeout(5000) });
      expect(response.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    } finally {
      await served.close();
    }
  });

  it('finding: a guard that never settles held the request open forever; now 503 too', async () => {
    const served = await serveDashboard({ admin: stubAdmin(), guard: () => new Promise(() => {}), authorizeTimeoutMs: 300 });
    try {
      const response = await fetch(`${served.url}/stream?id=${STUB_STREAM.id}`, { headers: bearer(TOKENS.operator), signal: AbortSignal.timeout(5000) });
      expect(response.status).toBe(503);
    } finally {
      await served.close();
    }
  });

  it('refuses odd principals: a role of "admin", a string, a number, an array, a name of the wrong type, a getter that throws', async () => {
    const odd: unknown[] = [
      { name: 'x', role: 'admin' },
      'operator',
      42,
      ['alice', 'operator'],
      { name: 7, role: 'operator' },
      { name: '', role: 'operator' },
      {
        get name(): string {
          throw new Error('boom');
        },
        role: 'operator',
      },
      true,
    ];
    for (const [i, value] of odd.entries()) {
      const served = await serveDashboard({ admin: stubAdmin(), authorize: () => value as never });
      try {
        const response = await fetch(`${served.url}/`);
        expect(response.status, `odd principal #${i}`).toBe(403);
      } finally {
        await served.close();
      }
    }
  });

  it('finding: a guard answering a truthy non-boolean ("false", "no", {}) showed the resource; only true shows it now', async () => {
    const status = { resource: STUB_STREAM, length: 0, exists: true, groups: [], deadLetters: 0 };
    const admin = stubAdmin({ overview: () => ({ serverTimeMs: 0, queues: [], streams: [status], discoveryTruncated: false, unavailable: [] }) });
    for (const answer of ['false', 'no', {}, 1, Promise.resolve('false')]) {
      const served = await serveDashboard({ admin, guard: () => answer as never });
      try {
        const page = await fetch(`${served.url}/stream?id=${STUB_STREAM.id}`, { headers: bearer(TOKENS.operator) });
        expect(page.status, String(answer)).toBe(404);
        const overview = await (await fetch(`${served.url}/`, { headers: bearer(TOKENS.operator) })).text();
        expect(overview, String(answer)).toContain('No worker streams configured.');
      } finally {
        await served.close();
      }
    }
  });
});

describe('a slow guard', () => {
  it('finding: the overview asked the guard about one resource after another, so its latency added up per resource; it asks about all at once', async () => {
    const streams = Array.from({ length: 20 }, (_, i) => ({
      resource: { ...STUB_STREAM, id: `s${i}`, stream: `s${i}`, label: `s${i}` },
      length: 0,
      exists: true,
      groups: [],
      deadLetters: 0,
    }));
    const admin = stubAdmin({ overview: () => ({ serverTimeMs: 0, queues: [], streams, discoveryTruncated: false, unavailable: [] }) });
    const served = await serveDashboard({ admin, guard: () => new Promise((resolve) => setTimeout(() => resolve(true), 300)) });
    try {
      const started = Date.now();
      const page = await fetch(`${served.url}/`, { headers: bearer(TOKENS.operator) });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('>s19</a>');
      // One after another would take 20 × 300 ms = 6 s.
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await served.close();
    }
  });
});

describe('per-resource guard: a hidden resource answers exactly as an unknown one', () => {
  let guarded: World;
  let hidden: { key: string; dead: string; record: string; entry: string };
  beforeAll(async () => {
    const tag = `hid-${Date.now()}`;
    const key = `{${tag}}:payroll`;
    const dead = `{${tag}}:payroll-dead`;
    guarded = await startWorld({
      label: 'guard',
      extraStreams: [{ stream: key, deadLetterStream: dead, label: 'payroll' }],
      dashboard: { guard: (principal, resource) => !(principal.name !== 'alice' && resource.kind === 'stream' && resource.stream === key) },
    });
    const entry = await xadd(guarded, key, ['salary', '1']);
    await readAsConsumer(guarded, 'c-1', 1, key, 'payroll-group');
    hidden = { key, dead, entry, record: await addWorkerDeadLetter(guarded, entry, ['salary', '1'], {}, dead) };
    await addWorkerDeadLetter(guarded, '1-1', ['n', '1']);
  });
  afterAll(() => guarded.close());

  it('gives lena (operator) and victor (viewer) the same status and message for the hidden stream as for a made-up one, on every page, confirmation and action', async () => {
    const unknown = `{nope-${Date.now()}}:payroll`;
    const routes = (id: string) => [
      `/stream${q({ id })}`,
      `/group${q({ id, group: 'payroll-group' })}`,
      `/group${q({ id, group: 'payroll-group', body: hidden.entry })}`,
      `/dead-letters${q({ id })}`,
      `/dead-letter${q({ id, record: hidden.record })}`,
      `/confirm/delete${q({ id, record: hidden.record })}`,
      `/confirm/job${q({ id, action: 'retry' })}`,
      `/confirm/ack${q({ id, group: 'payroll-group', entry: hidden.entry, deliveryCount: 1, consumer: 'c-1' })}`,
      `/confirm/remove-idle-consumers${q({ id, group: 'payroll-group', minIdleMinutes: 1 })}`,
    ];
    // The hints name the nearest visible resources to the id asked for (never a hidden one): left out of the comparison.
    const message = (html: string) =>
      [...html.matchAll(/<h1>[\s\S]*?<\/h1>|<section class="message[\s\S]*?<\/section>/g)]
        .map((m) => m[0])
        .join('')
        .replace(/<p>Nearest that exist:[\s\S]*?<\/ul>/, '');
    for (const token of [TOKENS.limited, TOKENS.viewer]) {
      const hiddenRoutes = routes(hidden.key);
      const unknownRoutes = routes(unknown);
      for (let i = 0; i < hiddenRoutes.length; i++) {
        const a = await get(guarded, hiddenRoutes[i]!, token);
        const b = await get(guarded, unknownRoutes[i]!, token);
        expect([a.status, message(a.body)], `${token} ${hiddenRoutes[i]}`).toEqual([b.status, message(b.body)]);
        expect([403, 404], hiddenRoutes[i]).toContain(a.status);
        expect(a.body).not.toContain('salary');
      }
      const csrf = await csrfFor(guarded, token);
      for (const [action, extra] of [
        ['retry', { record: hidden.record }],
        ['delete', { record: hidden.record }],
        ['job', { action: 'delete' }],
        ['ack', { group: 'payroll-group', entry: hidden.entry, deliveryCount: 1, consumer: 'c-1' }],
      ] as const) {
        const a = await post(guarded, `/actions/${action}`, { id: hidden.key, ...extra, _csrf: csrf }, { token });
        const b = await post(guarded, `/actions/${action}`, { id: unknown, ...extra, _csrf: csrf }, { token });
        expect([a.status, message(a.body)], `${token} ${action}`).toEqual([b.status, message(b.body)]);
      }
    }
    expect((await range(guarded, hidden.dead)).map(([id]) => id)).toEqual([hidden.record]);
  });

  it('counts only visible resources on the overview cards', async () => {
    const all = await get(guarded, '/');
    const limited = await get(guarded, '/', TOKENS.limited);
    const dead = (html: string) => Number(/<span class="card-value">(\d+)<\/span> <span class="card-label">dead letters/.exec(html)?.[1]);
    const pending = (html: string) => Number(/<span class="card-value">(\d+)<\/span> <span class="card-label">pending stream entries/.exec(html)?.[1]);
    expect([dead(all.body), pending(all.body)]).toEqual([2, 1]);
    expect([dead(limited.body), pending(limited.body)]).toEqual([1, 0]);
    expect(limited.body).not.toContain('payroll');
  });
});

describe('what a page says', () => {
  it('finding: a notice echoed any text from the URL (record=Your session expired, sign in at evil.example); it now names only well-formed IDs and counts', async () => {
    const bait = 'Your session expired: sign in again at https://evil.example';
    const paths = [
      `/dead-letters${q({ id: world.stream.id, n: 'retried', 'n.record': bait, 'n.newId': '1-1' })}`,
      `/dead-letters${q({ id: world.stream.id, n: 'retried', 'n.record': '1-1', 'n.newId': bait })}`,
      `/dead-letters${q({ id: world.stream.id, n: 'deleted', 'n.record': bait })}`,
      `/group${q({ id: world.stream.id, group: world.stream.group, n: 'released', 'n.entry': bait })}`,
      `/group${q({ id: world.stream.id, group: world.stream.group, n: 'acked', 'n.entry': bait })}`,
    ];
    for (const path of paths) {
      const page = await get(world, path);
      expect(page.status, path).toBe(200);
      const text = page.body.replace(/<[^>]*>/g, '');
      expect(text, path).not.toContain('evil.example');
      expect(text, path).not.toContain('session expired');
    }
    const counts = await get(world, `/group${q({ id: world.stream.id, group: world.stream.group, n: 'removed-consumers', 'n.n': 'lots', 'n.kept': '1e999' })}`);
    expect(counts.body).not.toMatch(/NaN|Infinity|lots|Removed/);
    const ok = await get(world, `/dead-letters${q({ id: world.stream.id, n: 'retried', 'n.record': '1-1', 'n.newId': '2-2' })}`);
    expect(ok.body).toContain('Retried dead letter 1-1: appended again as entry 2-2.');
  });

  it('finding: a 400 page quoted the rejected parameter back (cursor=Your session expired…); it names the parameter only', async () => {
    const bait = 'Your session expired: sign in again at https://evil.example';
    for (const path of [
      `/dead-letters${q({ id: world.stream.id, cursor: bait })}`,
      `/group${q({ id: world.stream.id, group: world.stream.group, cursor: bait })}`,
      `/deliveries${q({ id: world.queue.id, cursor: bait })}`,
    ]) {
      const page = await get(world, path);
      expect(page.status, path).toBe(400);
      const text = page.body.replace(/<[^>]*>/g, '');
      expect(text, path).toContain('Invalid cursor.');
      expect(text, path).not.toContain('evil.example');
    }
  });

  it('finding: bidi overrides and invisible characters in names were rendered raw (a reversed sentence, two consumers that look the same); they show as escapes now', async () => {
    const key = `{bidi-${Date.now()}}:orders`;
    const dead = `{bidi-${Date.now()}}:orders-dead`;
    const shown = await startWorld({ label: 'bidi', extraStreams: [{ stream: key, deadLetterStream: dead, label: 'orders\u202Esredro' }] });
    try {
      const group = 'billing\u2066';
      const entry = await xadd(shown, key, ['field\u200Bname', 'value']);
      await readAsConsumer(shown, 'worker-1\u200B', 1, key, group);
      await shown.raw(key, ['XGROUP', 'CREATECONSUMER', key, group, 'c\u202Eexe.txt']);
      const record = await addWorkerDeadLetter(shown, entry, ['name\u202E', 'x'], { group, reason: 'explicit\u202E', exceptionType: 'Timeout\u200D' }, dead);
      const pages = [
        '/',
        `/stream${q({ id: key })}`,
        `/group${q({ id: key, group, body: entry })}`,
        `/group${q({ id: key, group, consumer: 'worker-1\u200B' })}`,
        `/dead-letters${q({ id: key })}`,
        `/dead-letter${q({ id: key, record })}`,
        `/confirm/ack${q({ id: key, group, entry, deliveryCount: 1, consumer: 'worker-1\u200B' })}`,
        `/confirm/remove-idle-consumers${q({ id: key, group, minIdleMinutes: 1 })}`,
      ];
      for (const path of pages) {
        const page = await get(shown, path);
        expect(page.status, path).toBe(200);
        // Links built from these names stay inside the dashboard; no style attribute anywhere.
        for (const [, href] of page.body.matchAll(/href="([^"]*)"/g)) expect(href, path).toMatch(/^(\/ops\/respire\/|\?|#)/);
        expect(page.body, path).not.toMatch(/\sstyle=/);
        const text = page.body.replace(/<[^>]*>/g, '');
        expect(text, path).not.toMatch(/\u200B|\u200D|\u202E|\u2066/);
      }
      // Each invisible character is drawn as its code point, unlike any text a name could hold.
      const esc = (cp: string) => `<span class="esc" title="${cp}: an invisible or direction-changing character">${cp}</span>`;
      const group_ = await get(shown, `/group${q({ id: key, group })}`);
      expect(group_.body).toContain(`worker-1${esc('U+200B')}`);
      expect(group_.body).toContain(`c${esc('U+202E')}exe.txt`);
      // The fence still carries the real name: the form's hidden field is the raw name.
      expect(group_.body).toContain('name="consumer" value="worker-1\u200B"');
      expect((await get(shown, '/')).body).toContain(`orders${esc('U+202E')}sredro`);
    } finally {
      await shown.close();
    }
  });
});

describe('bounded pages', () => {
  it('finding: a group page listed every consumer (a group with thousands rendered thousands of rows, and XINFO CONSUMERS cannot page); above 200 it lists none and says how many', async () => {
    const key = `{many-${Date.now()}}:orders`;
    const many = await startWorld({ label: 'many', extraStreams: [{ stream: key }] });
    try {
      const create = (group: string, n: number) =>
        many.raw(key, [
          'EVAL',
          `redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM') for i = 1, ${n} do redis.call('XGROUP', 'CREATECONSUMER', KEYS[1], ARGV[1], 'consumer-' .. i) end return 0`,
          '1',
          key,
          group,
        ]);
      await create('g', 1200);
      await create('h', 200);
      const rows = (body: string) => [...body.matchAll(/<th scope="row"><a class="name" href="[^"]*consumer=consumer-/g)].length;
      const page = await get(many, `/group${q({ id: key, group: 'g' })}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('Consumers (1,200)');
      expect(rows(page.body)).toBe(0);
      expect(page.body).toContain('This group has 1,200 consumers, more than 200: they are not listed');
      expect(page.body).toContain('Review idle consumers…');
      const review = await get(many, `/confirm/remove-idle-consumers${q({ id: key, group: 'g', minIdleMinutes: 1 })}`);
      expect(review.status).toBe(200);
      expect(review.body).toContain('This group has 1,200 consumers, more than 200: too many to preview here.');
      expect(review.body).toContain('>Remove idle consumers</button>');
      // At the limit every consumer is listed.
      const full = await get(many, `/group${q({ id: key, group: 'h' })}`);
      expect(full.body).toContain('Consumers (200)');
      expect(rows(full.body)).toBe(200);
      expect(full.body).not.toContain('not listed');
    } finally {
      await many.close();
    }
  });

  it('finding: a record or entry with thousands of fields rendered every one (each up to 64 KiB); a page shows 200 fields and at most 1 MiB of values, and says what it left out', async () => {
    const fields: string[] = [];
    for (let i = 0; i < 1000; i++) fields.push(`f${i}`, `v${i}`);
    const wide = await addWorkerDeadLetter(world, '1-5', fields);
    const page = await get(world, `/dead-letter${q({ id: world.stream.id, record: wide })}`);
    expect(page.status).toBe(200);
    expect([...page.body.matchAll(/<tr><th scope="row"><code><span class="name">f\d+<\/span><\/code>/g)]).toHaveLength(200);
    expect(page.body).toContain('800 more fields are not shown');

    const big: (string | Buffer)[] = [];
    for (let i = 0; i < 40; i++) big.push(`b${i}`, Buffer.alloc(64 * 1024, 'x'));
    const heavy = await addWorkerDeadLetter(world, '1-6', big);
    const heavyPage = await get(world, `/dead-letter${q({ id: world.stream.id, record: heavy })}`);
    expect(heavyPage.status).toBe(200);
    expect(heavyPage.body.length).toBeLessThan(1.2 * 1024 * 1024);
    expect(heavyPage.body).toMatch(/more fields are not shown/);
    await world.raw(world.stream.dead, ['XDEL', world.stream.dead, wide, heavy]);
  });
});
