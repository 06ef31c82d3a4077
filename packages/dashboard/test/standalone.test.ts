// The standalone server's sign-in, sessions and brute-force limits.
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStandaloneDashboard, type StandaloneDashboard, type StandaloneOptions } from '../src/index.js';
import { tokenWeakness } from '../src/standalone/users.js';
import { rawHttp, startWorld, type World } from './support.js';

/**
 * The standalone server's sign-in (in process; `cli.test.ts` runs the binary): redirects after
 * sign-in, sessions, brute force, body size, cookies and headers.
 */
const OPERATOR = 'operator-token-0123456789abcdef';
const VIEWER = 'viewer-token-0123456789abcdef01';

let world: World;
const started: StandaloneDashboard[] = [];
beforeAll(async () => {
  world = await startWorld({ label: 'solo' });
});
afterEach(async () => {
  for (const server of started.splice(0)) await server.close();
});
afterAll(() => world.close());

async function start(options: Partial<StandaloneOptions> = {}) {
  const server = await startStandaloneDashboard({
    url: inject('redisUrl'),
    port: 0,
    users: [
      { name: 'operator', role: 'operator', token: OPERATOR },
      { name: 'viewer', role: 'viewer', token: VIEWER },
    ],
    queues: [{ name: world.queue.name }],
    audit: () => {},
    ...options,
  });
  started.push(server);
  const url = server.url;
  const origin = new URL(url).origin;
  const signIn = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${url}login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin, 'sec-fetch-site': 'same-origin', ...headers },
      body: new URLSearchParams(form),
    });
  const cookieOf = (response: Response) => (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  return { url, origin, signIn, cookieOf };
}

describe('after sign-in', () => {
  it('finding: it followed a `next` that a browser reads as another site (a tab, a backslash, //); now only a path of the dashboard', async () => {
    const { signIn } = await start();
    const hostile = [
      '/\t/evil.example/',
      '/\t\t/evil.example',
      '/ /evil.example',
      '//evil.example',
      '/\\evil.example',
      '/\\/evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '/\u3000/evil.example',
      '\t//evil.example',
      ' /',
      '/.//evil.example',
      '/x/..//evil.example',
      '/./%2F%2Fevil.example',
      '/%2F/evil.example',
      '/%5C/evil.example',
      '///evil.example',
      '/%2e/%2fevil.example',
      '/@evil.example',
      '/x?y=1#//evil',
    ];
    for (const next of hostile) {
      const response = await signIn({ name: 'operator', token: OPERATOR, next });
      expect(response.status, JSON.stringify(next)).toBe(303);
      const location = response.headers.get('location')!;
      // Only the overview, or a path that a browser resolves on this origin.
      expect(new URL(location, 'http://dashboard.example').origin, JSON.stringify(next)).toBe('http://dashboard.example');
      expect(location, JSON.stringify(next)).toMatch(/^\/(?![/\\])/);
    }
    for (const next of ['/.//evil.example', '/x/..//evil.example', '/%2F/evil.example', '/%5C/evil.example', '///evil.example']) {
      expect((await signIn({ name: 'operator', token: OPERATOR, next })).headers.get('location'), next).toBe('/');
    }
    for (const next of ['/dead-letters?id=%7Borders%7D%3Adead&order=oldest', '/group?id=x&group=g']) {
      const response = await signIn({ name: 'operator', token: OPERATOR, next });
      expect(response.headers.get('location')).toBe(next);
    }
  });

  it('keeps a `next` inside the base path, resolving dot segments first', async () => {
    const { url, signIn } = await start({ basePath: '/respire' });
    expect(url).toMatch(/\/respire\/$/);
    for (const [next, expected] of [
      ['/respire/queue?id=q', '/respire/queue?id=q'],
      ['/respire/../admin', '/respire/'],
      ['/respire/%2e%2e/admin', '/respire/'],
      ['/respirex/', '/respire/'],
      ['/other', '/respire/'],
    ]) {
      const response = await signIn({ name: 'operator', token: OPERATOR, next: next! });
      expect(response.headers.get('location'), next).toBe(expected);
    }
    const page = await fetch(`${url}login?next=${encodeURIComponent('/\t/evil.example')}`);
    expect(await page.text()).toContain('name="next" value="/respire/"');
  });
});

describe('sessions', () => {
  it("finding: signing out only deleted the browser's cookie; a copy of it stayed valid for 12 hours. Now the session ends on the server", async () => {
    const { url, origin, signIn, cookieOf } = await start();
    const cookie = cookieOf(await signIn({ name: 'operator', token: OPERATOR, next: '/' }));
    expect((await fetch(url, { headers: { cookie } })).status).toBe(200);
    const out = await fetch(`${url}logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(out.status).toBe(303);
    expect((await fetch(url, { redirect: 'manual', headers: { cookie } })).status).toBe(401);
  });

  it('never accepts a session ID the client made up, and gives every sign-in a new one (no fixation)', async () => {
    const { url, signIn, cookieOf } = await start();
    const chosen = 'respire_session=attacker-chosen-session-id';
    expect((await fetch(url, { redirect: 'manual', headers: { cookie: chosen } })).status).toBe(401);
    const a = cookieOf(await signIn({ name: 'operator', token: OPERATOR, next: '/' }, { cookie: chosen }));
    const b = cookieOf(await signIn({ name: 'operator', token: OPERATOR, next: '/' }, { cookie: a }));
    expect(a).toMatch(/^respire_session=[\w-]{40,}$/);
    expect(b).not.toBe(a);
    expect(a).not.toBe(chosen);
  });

  it('finding: a session cookie without a prefix could be set by a sibling subdomain; with --secure-cookies it is __Host- (Secure, Path=/), and only that name is read', async () => {
    const { url, signIn, cookieOf } = await start({ secureCookies: true, basePath: '/respire' });
    const response = await signIn({ name: 'operator', token: OPERATOR, next: '/respire/' });
    const header = response.headers.get('set-cookie') ?? '';
    expect(header).toMatch(/^__Host-respire_session=[\w-]+; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    const cookie = cookieOf(response);
    expect((await fetch(url, { headers: { cookie } })).status).toBe(200);
    const unprefixed = cookie.replace('__Host-', '');
    expect((await fetch(url, { redirect: 'manual', headers: { cookie: unprefixed } })).status).toBe(401);
  });
});

describe('guessing tokens', () => {
  it('finding: failed sign-ins were unlimited and instant; now each failure takes a fixed delay and ten in a minute lock the address out (429), form and Authorization header alike', async () => {
    const { url, signIn } = await start();
    const before = Date.now();
    expect((await signIn({ name: 'operator', token: 'wrong-token-wrong-token' })).status).toBe(401);
    expect(Date.now() - before).toBeGreaterThanOrEqual(200);
    const failures = [];
    for (let i = 0; i < 4; i++) failures.push(signIn({ name: 'operator', token: `wrong-token-${i}-wrong` }));
    for (let i = 0; i < 5; i++) failures.push(fetch(url, { headers: { authorization: `Bearer guess-${i}-guess-guess` } }));
    expect((await Promise.all(failures)).map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 401]);
    const locked = await signIn({ name: 'operator', token: OPERATOR, next: '/' });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locked.headers.get('set-cookie')).toBeNull();
    const lockedBearer = await fetch(url, { headers: { authorization: `Bearer ${OPERATOR}` } });
    expect(lockedBearer.status).toBe(429);
    expect(lockedBearer.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('does not count a successful sign-in or a plain signed-out visit', async () => {
    const { url, signIn } = await start();
    for (let i = 0; i < 15; i++) expect((await fetch(url, { redirect: 'manual' })).status).toBe(401);
    for (let i = 0; i < 12; i++) expect((await signIn({ name: 'viewer', token: VIEWER, next: '/' })).status).toBe(303);
  });
});

describe('sign-in under pressure', () => {
  it("finding: one user's successful sign-in cleared the failure count of the address, so a viewer could keep guessing the operator's token; now only that user's own failures are taken back", async () => {
    const { signIn } = await start();
    for (let i = 0; i < 9; i++) expect((await signIn({ name: 'operator', token: `guess-${i}-wrong-wrong-wrong` })).status).toBe(401);
    // The viewer signs in with its own token: the 9 guesses at the operator's token still count.
    expect((await signIn({ name: 'viewer', token: VIEWER, next: '/' })).status).toBe(303);
    expect((await signIn({ name: 'operator', token: 'guess-9-wrong-wrong-wrong' })).status).toBe(401);
    expect((await signIn({ name: 'operator', token: OPERATOR, next: '/' })).status).toBe(429);
    expect((await signIn({ name: 'viewer', token: VIEWER, next: '/' })).status).toBe(429);
  });

  it('a user who mistyped their own token and then signs in is not held to those failures', async () => {
    const { signIn } = await start();
    for (let i = 0; i < 9; i++) expect((await signIn({ name: 'viewer', token: `typo-${i}-typo-typo-typo` })).status).toBe(401);
    expect((await signIn({ name: 'viewer', token: VIEWER, next: '/' })).status).toBe(303);
    for (let i = 0; i < 9; i++) expect((await signIn({ name: 'viewer', token: `typo-${i}-again-typo-typo` })).status).toBe(401);
    expect((await signIn({ name: 'viewer', token: VIEWER, next: '/' })).status).toBe(303);
  });

  it('load: 60 guesses sent at once by form and 60 by Authorization header get exactly 10 answers each; the rest are refused (429)', async () => {
    const form = await start();
    const byForm = await Promise.all(Array.from({ length: 60 }, (_, i) => form.signIn({ name: 'operator', token: `burst-${i}-wrong-wrong` })));
    const statuses = (responses: Response[]) => responses.map((r) => r.status).sort();
    expect(statuses(byForm).filter((s) => s === 401)).toHaveLength(10);
    expect(statuses(byForm).filter((s) => s === 429)).toHaveLength(50);
    const header = await start();
    const byHeader = await Promise.all(
      Array.from({ length: 60 }, (_, i) => fetch(header.url, { headers: { authorization: `Bearer burst-${i}-wrong-wrong` } })),
    );
    expect(statuses(byHeader).filter((s) => s === 401)).toHaveLength(10);
    expect(statuses(byHeader).filter((s) => s === 429)).toHaveLength(50);
    // Requests with a valid token never count, however many run at once.
    const valid = await start();
    const many = await Promise.all(Array.from({ length: 60 }, () => fetch(valid.url, { headers: { authorization: `Bearer ${OPERATOR}` } })));
    expect(new Set(many.map((r) => r.status))).toEqual(new Set([200]));
  });

  it("finding: a flood of sign-ins with any valid token ended other users' sessions (one shared cap); each user now keeps at most 32 of their own", async () => {
    const { url, signIn, cookieOf } = await start();
    const operator = cookieOf(await signIn({ name: 'operator', token: OPERATOR, next: '/' }));
    const first = cookieOf(await signIn({ name: 'viewer', token: VIEWER, next: '/' }));
    for (let batch = 0; batch < 10; batch++) {
      const flood = await Promise.all(Array.from({ length: 100 }, () => signIn({ name: 'viewer', token: VIEWER, next: '/' })));
      expect(new Set(flood.map((r) => r.status))).toEqual(new Set([303]));
    }
    expect((await fetch(url, { headers: { cookie: operator } })).status).toBe(200);
    // The viewer's own oldest sessions ended; its newest work.
    expect((await fetch(url, { redirect: 'manual', headers: { cookie: first } })).status).toBe(401);
    const latest = cookieOf(await signIn({ name: 'viewer', token: VIEWER, next: '/' }));
    expect((await fetch(url, { headers: { cookie: latest } })).status).toBe(200);
  });
});

describe('the Host allow-list (DNS rebinding)', () => {
  const hostRequest = (url: string, host: string) =>
    rawHttp(new URL(url).origin, `GET / HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${OPERATOR}\r\nConnection: close\r\n\r\n`);

  it('answers only to the bound address and the loopback names by default; another Host gets a clear 400 naming the flag', async () => {
    const { url } = await start();
    const port = new URL(url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`])
      expect((await hostRequest(url, host)).status, host).toBe(200);
    expect((await hostRequest(url, '')).status).toBe(400);
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`, `localhost.evil.example:${port}`]) {
      const refused = await hostRequest(url, host);
      expect(refused.status, host).toBe(400);
      expect(refused.body, host).toContain('is not allowed');
      expect(refused.body, host).toContain('--allowed-host');
      expect(refused.head.toLowerCase(), host).toContain('content-security-policy');
    }
  });

  it('answers to the names given instead (allowedHosts), and only to them', async () => {
    const { url } = await start({ allowedHosts: ['ops.example.com', '10.0.0.7'] });
    const port = new URL(url).port;
    expect((await hostRequest(url, `ops.example.com:${port}`)).status).toBe(200);
    expect((await hostRequest(url, '10.0.0.7')).status).toBe(200);
    expect((await hostRequest(url, `127.0.0.1:${port}`)).status).toBe(400);
    await expect(start({ allowedHosts: ['bad host/name'] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('tokens', () => {
  it('refuses tokens with no entropy: one character repeated, a short pattern, whitespace; accepts a random one', async () => {
    for (const token of [
      'aaaaaaaaaaaaaaaaaaaa',
      'abababababababababab',
      'abcabcabcabcabcabcabc',
      '                    ',
      'correct horse battery staple',
      ' padded-token-0123456789 ',
      'tab\there-0123456789ab',
    ]) {
      await expect(start({ users: [{ name: 'operator', role: 'operator', token }] }), JSON.stringify(token)).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        argument: 'users[0].token',
      });
    }
    expect(tokenWeakness('9f86d081884c7d659a2feaa0c55ad015')).toBeUndefined();
    expect(tokenWeakness('0123456789abcdef')).toBeUndefined();
    expect(tokenWeakness('aaaaaaaaaaaaaaaa')).toMatch(/only 1 different character/);
  });
});

describe('what the sign-in reads and sends', () => {
  it('finding: a sign-in form of any size was read into memory before the token was checked; now 413 over 16 KiB', async () => {
    const { signIn } = await start();
    const response = await signIn({ name: 'operator', token: 'x'.repeat(1024 * 1024) });
    expect(response.status).toBe(413);
  });

  it('finding: the redirect of a signed-out browser to the sign-in page had no CSP, nosniff or no-store', async () => {
    const { url } = await start();
    const response = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?next=%2F');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it("finding: the sign-in page's script-less CSP was applied to every dashboard page of the standalone server (its auto-refresh script was blocked)", async () => {
    const { url } = await start();
    const page = await fetch(url, { headers: { authorization: `Bearer ${OPERATOR}` } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const signIn = await fetch(`${url}login`);
    expect(signIn.headers.get('content-security-policy')).not.toContain('script-src');
  });
});
