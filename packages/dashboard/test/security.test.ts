// Authentication, roles, the guard, CSRF and headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CsrfTokens } from '../src/csrf.js';
import { createDashboard, dangerouslyAllowAnonymousOperator } from '../src/index.js';
import {
  addWorkerDeadLetter,
  csrfFor,
  deadLetterQueueMessages,
  get,
  post,
  q,
  range,
  readAsConsumer,
  startWorld,
  TOKENS,
  xadd,
  xlen,
  type World,
} from './support.js';

/** Authentication, authorization (roles and the per-resource guard), CSRF and headers, on real Redis. */
let world: World;
let hidden: { key: string; dead: string };
let deadRecord: string;
let pendingEntry: string;
let topicId: string;

beforeAll(async () => {
  const tag = `hidden-${Date.now()}`;
  hidden = { key: `{${tag}}:secret`, dead: `{${tag}}:secret-dead` };
  topicId = `{respire-topic:sec-topic-${tag}}:stream`;
  world = await startWorld({
    label: 'sec',
    extraStreams: [{ stream: hidden.key, deadLetterStream: hidden.dead, label: 'payroll' }],
    // lena is an operator who may not see the payroll stream.
    dashboard: {
      guard: (principal, resource) => !(principal.name === 'lena' && resource.kind === 'stream' && resource.stream === hidden.key),
      topicGuard: () => true,
    },
    admin: { topics: [{ name: `sec-topic-${tag}` }] },
  });
  await deadLetterQueueMessages(world, ['q-1']);
  const source = await xadd(world, world.stream.key, ['order-id', '1']);
  deadRecord = await addWorkerDeadLetter(world, source, ['order-id', '1']);
  await readAsConsumer(world, 'c-1', 1);
  pendingEntry = source;
  const hiddenSource = await xadd(world, hidden.key, ['salary', '1']);
  await addWorkerDeadLetter(world, hiddenSource, ['salary', '1'], {}, hidden.dead);
});
afterAll(() => world.close());

const pages = () => [
  '/',
  `/queue${q({ id: world.queue.id })}`,
  `/stream${q({ id: world.stream.id })}`,
  `/group${q({ id: world.stream.id, group: world.stream.group })}`,
  `/dead-letters${q({ id: world.stream.id })}`,
  `/dead-letter${q({ id: world.stream.id, record: deadRecord })}`,
  `/deliveries${q({ id: world.queue.id })}`,
  `/messages${q({ id: world.queue.id })}`,
  `/messages${q({ id: world.queue.id, view: 'in-flight' })}`,
  `/history${q({ id: world.stream.id })}`,
  `/find${q({ id: world.stream.id, q: pendingEntry })}`,
  `/jobs`,
  `/topics`,
  `/topic${q({ id: topicId })}`,
];
const confirmPages = () => [
  `/confirm/delete${q({ id: world.stream.id, record: deadRecord })}`,
  `/confirm/job${q({ id: world.stream.id, action: 'retry' })}`,
  `/confirm/job${q({ id: world.stream.id, action: 'delete', reason: 'nack' })}`,
  `/confirm/delete-message${q({ id: world.queue.id, entry: '1-1', deliveryCount: 1, untilMs: 5 })}`,
  `/confirm/ack${q({ id: world.stream.id, group: world.stream.group, entry: pendingEntry, deliveryCount: 1, consumer: 'c-1' })}`,
  `/confirm/remove-idle-consumers${q({ id: world.stream.id, group: world.stream.group, minIdleMinutes: 5 })}`,
  `/confirm/seek${q({ id: topicId, subscription: 's', to: 'earliest' })}`,
];
const actions = (): { path: string; form: Record<string, string | number> }[] => [
  { path: '/actions/retry', form: { id: world.stream.id, record: deadRecord } },
  { path: '/actions/delete', form: { id: world.stream.id, record: deadRecord } },
  { path: '/actions/job', form: { id: world.stream.id, action: 'retry' } },
  { path: '/actions/job', form: { id: world.stream.id, action: 'delete', records: deadRecord } },
  { path: '/actions/job-cancel', form: { job: 'mx0000000-0123456789ab' } },
  { path: '/actions/release-message', form: { id: world.queue.id, entry: '1-1', deliveryCount: 1, untilMs: 5 } },
  { path: '/actions/delete-message', form: { id: world.queue.id, entry: '1-1', deliveryCount: 1, untilMs: 5 } },
  { path: '/actions/release', form: { id: world.stream.id, group: world.stream.group, entry: pendingEntry, deliveryCount: 1, consumer: 'c-1' } },
  { path: '/actions/ack', form: { id: world.stream.id, group: world.stream.group, entry: pendingEntry, deliveryCount: 1, consumer: 'c-1' } },
  { path: '/actions/remove-idle-consumers', form: { id: world.stream.id, group: world.stream.group, minIdleMs: 60_000 } },
  { path: '/actions/seek', form: { id: topicId, subscription: 's', to: 'earliest' } },
];

/** The state every refused request must leave alone. */
async function snapshot() {
  return {
    dead: await range(world, world.stream.dead),
    source: await xlen(world, world.stream.key),
    pending: await world.raw(world.stream.key, ['XPENDING', world.stream.key, world.stream.group]),
    consumers: (await world.admin.consumers(world.stream.id, world.stream.group)).items.map((c) => [c.name, c.pending]),
    queueDead: await xlen(world, world.queue.deadKey),
  };
}

describe('authentication', () => {
  it('answers 401 to every page, confirmation and action without credentials, and to an unknown token', async () => {
    for (const path of [...pages(), ...confirmPages()]) {
      expect((await get(world, path, null)).status, path).toBe(401);
      expect((await get(world, path, 'not-a-token')).status, path).toBe(401);
    }
    const before = await snapshot();
    for (const action of actions()) expect((await post(world, action.path, action.form, { token: null })).status, action.path).toBe(401);
    expect(await snapshot()).toEqual(before);
  });

  it('answers 403 when authorize throws or returns a principal with an unknown role', async () => {
    for (const token of [TOKENS.broken, TOKENS.badRole]) {
      const page = await get(world, '/', token);
      expect(page.status).toBe(403);
      expect(page.body).not.toContain('identity provider unavailable');
    }
  });

  it('serves the static assets without credentials (they hold no data)', async () => {
    const js = await get(world, '/assets/dashboard.js', null);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('text/javascript');
    expect(js.body).not.toContain('innerHTML');
    expect((await get(world, '/assets/dashboard.css', null)).status).toBe(200);
    expect((await get(world, '/assets/nope.js', null)).status).toBe(404);
  });

  it('refuses to be created without authorize, and marks the anonymous development mode on every page', async () => {
    expect(() => createDashboard({ admin: world.admin } as never)).toThrow(/authorize/);
    const anonymous = createDashboard({ admin: world.admin, authorize: dangerouslyAllowAnonymousOperator(), basePath: '/dev' });
    const response = await anonymous.fetch(new Request('http://127.0.0.1/dev/'));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('Anonymous operator access');
    expect(html).toContain('Development only');
  });

  it('never trusts X-Forwarded-For: a "local" forwarded request without credentials is still 401', async () => {
    const page = await get(world, '/', null, { 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1', forwarded: 'for=127.0.0.1' });
    expect(page.status).toBe(401);
  });
});

describe('roles', () => {
  it('lets a viewer read every page, with no action buttons or forms on them', async () => {
    for (const path of pages()) {
      const page = await get(world, path, TOKENS.viewer);
      expect(page.status, path).toBe(200);
      expect(page.body, path).not.toMatch(/action="[^"]*\/actions\//);
      expect(page.body, path).not.toContain('/confirm/');
      expect(page.body, path).not.toMatch(/>Retry</);
    }
  });

  it('answers 403 to a viewer on every confirmation page and every action, even with its own valid CSRF token, and changes nothing', async () => {
    for (const path of confirmPages()) expect((await get(world, path, TOKENS.viewer)).status, path).toBe(403);
    const token = await csrfFor(world, TOKENS.viewer);
    const before = await snapshot();
    for (const action of actions()) {
      const response = await post(world, action.path, { ...action.form, _csrf: token }, { token: TOKENS.viewer });
      expect(response.status, action.path).toBe(403);
      expect(response.body).toContain('may read but not change anything');
    }
    expect(await snapshot()).toEqual(before);
    expect(world.audits.filter((a) => a.actor === 'victor')).toEqual([]);
  });

  it('shows an operator the retry and delete controls', async () => {
    const page = await get(world, `/dead-letters${q({ id: world.stream.id })}`);
    expect(page.body).toMatch(/action="\/ops\/respire\/actions\/retry"/);
    expect(page.body).toContain('/ops/respire/confirm/delete?');
  });
});

describe('per-resource guard', () => {
  it('leaves a hidden stream out of the overview and answers 404 on its pages and actions, like an unknown one', async () => {
    const overview = await get(world, '/', TOKENS.limited);
    expect(overview.status).toBe(200);
    expect(overview.body).not.toContain('payroll');
    expect(overview.body).toContain(world.queue.name);
    expect((await get(world, '/', TOKENS.operator)).body).toContain('payroll');

    const paths = [
      `/stream${q({ id: hidden.key })}`,
      `/dead-letters${q({ id: hidden.key })}`,
      `/group${q({ id: hidden.key, group: 'g' })}`,
      `/confirm/job${q({ id: hidden.key, action: 'delete' })}`,
      `/history${q({ id: hidden.key })}`,
      `/find${q({ id: hidden.key, q: '1-1' })}`,
      `/jobs${q({ id: hidden.key })}`,
    ];
    for (const path of paths) {
      const page = await get(world, path, TOKENS.limited);
      expect(page.status, path).toBe(404);
      const unknown = await get(world, path.replace(encodeURIComponent(hidden.key), encodeURIComponent('{nope}:nothing')), TOKENS.limited);
      expect(unknown.status).toBe(404);
      // The hints name the nearest visible resources to the id asked for: never the hidden one.
      const message = (html: string) =>
        /<section class="message[^"]*">([\s\S]*?)<\/section>/.exec(html)?.[1]?.replace(/<p>Nearest that exist:[\s\S]*<\/ul>/, '');
      expect(message(page.body)).toBeDefined();
      expect(message(page.body)).toBe(message(unknown.body));
      expect(page.body).not.toContain('payroll');
    }
    const token = await csrfFor(world, TOKENS.limited);
    const before = await xlen(world, hidden.dead);
    const response = await post(world, '/actions/job', { id: hidden.key, action: 'delete', _csrf: token }, { token: TOKENS.limited });
    expect(response.status).toBe(404);
    expect(await xlen(world, hidden.dead)).toBe(before);
  });

  it('answers 404 to an id that names a queue on a stream page, and the other way round', async () => {
    expect((await get(world, `/stream${q({ id: world.queue.id })}`)).status).toBe(404);
    expect((await get(world, `/queue${q({ id: world.stream.id })}`)).status).toBe(404);
    expect((await get(world, `/deliveries${q({ id: world.stream.id })}`)).status).toBe(404);
  });
});

describe('CSRF', () => {
  it("refuses a POST without a token, with a forged or another user's token, and with an expired one; nothing changes", async () => {
    const before = await snapshot();
    const form = { id: world.stream.id, record: deadRecord };
    const other = new CsrfTokens('0123456789abcdef0123456789abcdef').issue('alice');
    const viewers = await csrfFor(world, TOKENS.viewer);
    const backdated = (await csrfFor(world)).replace(/^\d+/, String(Date.now() - 13 * 3600_000));
    for (const token of [undefined, 'garbage', other, viewers, backdated]) {
      const response = await post(world, '/actions/delete', token === undefined ? form : { ...form, _csrf: token });
      expect(response.status).toBe(403);
      expect(response.body).toContain('Nothing was changed');
    }
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a cross-site form POST that carries a valid token (Origin and Sec-Fetch-Site checked)', async () => {
    const before = await snapshot();
    const token = await csrfFor(world);
    const form = { id: world.stream.id, record: deadRecord, _csrf: token };
    for (const headers of [
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
    ]) {
      expect((await post(world, '/actions/delete', form, { headers })).status).toBe(403);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('answers 405 to GET on an action (state never changes on GET)', async () => {
    const response = await get(world, `/actions/delete${q({ id: world.stream.id, record: deadRecord })}`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await xlen(world, world.stream.dead)).toBe(1);
  });

  it('accepts a same-origin POST with a valid token (Sec-Fetch-Site alone, or Origin alone)', async () => {
    const token = await csrfFor(world);
    const extra = await addWorkerDeadLetter(world, '1-1', ['x', '1']);
    const ok = await post(world, '/actions/delete', { id: world.stream.id, record: extra, _csrf: token }, { headers: { origin: '' } });
    expect(ok.status).toBe(303);
    const extra2 = await addWorkerDeadLetter(world, '1-2', ['x', '2']);
    const ok2 = await post(world, '/actions/delete', { id: world.stream.id, record: extra2, _csrf: token }, { headers: { 'sec-fetch-site': '' } });
    expect(ok2.status).toBe(303);
    expect((await range(world, world.stream.dead)).map(([id]) => id)).toEqual([deadRecord]);
  });

  it('accepts the token in an X-CSRF-Token header (scripts), and refuses a header token of another principal', async () => {
    const extra = await addWorkerDeadLetter(world, '1-3', ['x', '3']);
    const headers = (token: string) => ({ 'content-type': 'application/json', 'x-csrf-token': token });
    const refused = await post(world, '/actions/delete', {}, { headers: headers(await csrfFor(world, TOKENS.limited)) });
    expect(refused.status).toBe(403);
    const response = await fetch(`${world.url}/actions/delete?`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        'content-type': 'application/x-www-form-urlencoded',
        'x-csrf-token': await csrfFor(world),
        'sec-fetch-site': 'same-origin',
      },
      body: new URLSearchParams({ id: world.stream.id, record: extra }),
    });
    expect(response.status).toBe(303);
    expect((await range(world, world.stream.dead)).map(([id]) => id)).toEqual([deadRecord]);
  });

  it('binds tokens to the principal and expires them after 12 hours', () => {
    const tokens = new CsrfTokens();
    const now = Date.now();
    const token = tokens.issue('alice', now);
    expect(tokens.verify('alice', token, now)).toBe(true);
    expect(tokens.verify('bob', token, now)).toBe(false);
    expect(tokens.verify('alice', token, now + 12 * 3600_000 + 1)).toBe(false);
    expect(tokens.verify('alice', token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), now)).toBe(false);
    expect(() => new CsrfTokens('short')).toThrow(/32 bytes/);
  });
});

describe('headers', () => {
  const expectSecurityHeaders = (headers: Headers, what: string) => {
    const csp = headers.get('content-security-policy') ?? '';
    expect(csp, what).toContain("default-src 'none'");
    expect(csp, what).toContain("script-src 'self'");
    expect(csp, what).toContain("frame-ancestors 'none'");
    expect(csp, what).not.toContain('unsafe-inline');
    expect(csp, what).not.toContain('unsafe-eval');
    expect(headers.get('x-content-type-options'), what).toBe('nosniff');
    expect(headers.get('x-frame-options'), what).toBe('DENY');
    expect(headers.get('referrer-policy'), what).toBe('no-referrer');
  };

  it('sends a strict CSP, nosniff, frame-ancestors and a Referrer-Policy on pages, errors and assets; pages are never cached', async () => {
    for (const path of pages()) {
      const page = await get(world, path);
      expectSecurityHeaders(page.headers, path);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(page.body).not.toMatch(/\son[a-z]+=/i);
    }
    expectSecurityHeaders((await get(world, '/', null)).headers, '401');
    expectSecurityHeaders((await get(world, `/stream${q({ id: 'nope' })}`)).headers, '404');
    expectSecurityHeaders((await get(world, '/assets/dashboard.js', null)).headers, 'asset');
  });
});

describe('input', () => {
  it('answers 400 to malformed IDs and counts, and 404 to unknown resources and pages', async () => {
    expect((await get(world, `/dead-letter${q({ id: world.stream.id, record: 'not-an-id' })}`)).status).toBe(400);
    expect((await get(world, `/dead-letters${q({ id: world.stream.id, count: 5000 })}`)).status).toBe(400);
    expect((await get(world, `/group${q({ id: world.stream.id })}`)).status).toBe(400);
    expect((await get(world, `/dead-letters${q({ id: '{nope}:x' })}`)).status).toBe(404);
    expect((await get(world, '/no-such-page')).status).toBe(404);
    const token = await csrfFor(world);
    expect(
      (
        await post(world, '/actions/release', {
          id: world.stream.id,
          group: world.stream.group,
          entry: pendingEntry,
          deliveryCount: 'x',
          consumer: 'c-1',
          _csrf: token,
        })
      ).status,
    ).toBe(400);
  });

  it('refuses out-of-range options when the dashboard is created', () => {
    expect(() => createDashboard({ admin: world.admin, authorize: () => null, pollIntervalMs: 500 })).toThrow(/pollIntervalMs/);
    expect(() => createDashboard({ admin: world.admin, authorize: () => null, basePath: 'relative' })).toThrow(/basePath/);
    expect(() => createDashboard({ admin: world.admin, authorize: () => null, pageSize: 0 })).toThrow(/pageSize/);
    expect(() => createDashboard({ admin: world.admin, authorize: () => null, consumerActiveMs: 10 })).toThrow(/consumerActiveMs/);
    expect(() => createDashboard({ admin: world.admin, authorize: () => null, history: { intervalMs: 10 } })).toThrow(/history\.intervalMs/);
    // A removed option says where its job went rather than being ignored.
    expect(() => createDashboard({ admin: world.admin, authorize: () => null, bulkLimit: 100 } as never)).toThrow(/bulkLimit: was removed.*background job/);
  });

  it('finding: allowedOrigins took any string, so "null" (sandboxed frames, data: URLs) or "*" could be allowed by mistake; only origins now', () => {
    for (const origin of ['null', '*', 'https://ops.example.com/', 'ops.example.com', 'https://*.example.com', 'javascript:alert(1)']) {
      expect(() => createDashboard({ admin: world.admin, authorize: () => null, allowedOrigins: [origin] }), origin).toThrow(/allowedOrigins/);
    }
    expect(() =>
      createDashboard({ admin: world.admin, authorize: () => null, allowedOrigins: ['https://ops.example.com', 'http://127.0.0.1:8080'] }),
    ).not.toThrow();
  });
});
