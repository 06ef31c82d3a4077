import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { secureHeaders } from 'hono/secure-headers';
import { createClient, createCluster } from 'redis';
import { RespireAdmin, type AuditRecord, type QueueConfig, type StreamConfig } from '@respire/admin';
import type { Principal } from './auth.js';
import { createDashboard } from './dashboard.js';

/** One user of the standalone dashboard: a name, a role and a secret token (or its SHA-256). */
export interface StandaloneUser {
  readonly name: string;
  readonly role: 'viewer' | 'operator';
  /** The secret itself (at least 16 characters), e.g. from an environment variable. */
  readonly token?: string;
  /** Or its SHA-256 in hex, as a users file should store it. */
  readonly tokenSha256?: string;
}

export interface StandaloneOptions {
  /** Redis URL (`redis://`, `rediss://`); a root node with `cluster`. */
  readonly url: string;
  readonly cluster?: boolean;
  /** Interface to bind. @defaultValue `'127.0.0.1'` */
  readonly host?: string;
  /** Port; 0 picks a free one. @defaultValue 7373 */
  readonly port?: number;
  /** @defaultValue `'/'` */
  readonly basePath?: string;
  /** Who may sign in (at least one). */
  readonly users: readonly StandaloneUser[];
  readonly queues?: readonly QueueConfig[];
  readonly streams?: readonly StreamConfig[];
  readonly discoverQueues?: boolean;
  readonly auditStream?: string;
  readonly pollIntervalMs?: number;
  /** Mark the session cookie `Secure` (serve over HTTPS, e.g. behind a TLS proxy). @defaultValue false */
  readonly secureCookies?: boolean;
  /** Audit records, one per action. @defaultValue a JSON line on stdout */
  readonly audit?: (record: AuditRecord) => void;
}

export interface StandaloneDashboard {
  /** The dashboard's URL, e.g. `http://127.0.0.1:7373/`. */
  readonly url: string;
  readonly server: Server;
  /** Stops the HTTP server and closes the dashboard's own Redis connection. */
  close(): Promise<void>;
}

const SESSION_COOKIE = 'respire_session';
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const MIN_TOKEN_LENGTH = 16;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

interface Credential {
  readonly principal: Principal;
  readonly digest: Buffer;
}

/** Checks users up front: names unique, roles known, tokens long enough. */
export function checkUsers(users: readonly StandaloneUser[]): Credential[] {
  if (!Array.isArray(users) || users.length === 0) throw new TypeError('respire-dashboard needs at least one user (a token)');
  const names = new Set<string>();
  return users.map((user, i) => {
    if (typeof user?.name !== 'string' || !/^[\w.@+-]{1,64}$/.test(user.name)) throw new TypeError(`users[${i}].name must be 1-64 characters of letters, digits and . @ + - _`);
    if (names.has(user.name)) throw new TypeError(`users[${i}].name '${user.name}' appears twice`);
    names.add(user.name);
    if (user.role !== 'viewer' && user.role !== 'operator') throw new TypeError(`users[${i}].role must be 'viewer' or 'operator'`);
    let digest: Buffer;
    if (typeof user.token === 'string') {
      if (user.token.length < MIN_TOKEN_LENGTH) throw new TypeError(`users[${i}] (${user.name}): the token must be at least ${MIN_TOKEN_LENGTH} characters`);
      digest = sha256(user.token);
    } else if (typeof user.tokenSha256 === 'string' && /^[0-9a-f]{64}$/i.test(user.tokenSha256)) {
      digest = Buffer.from(user.tokenSha256, 'hex');
    } else {
      throw new TypeError(`users[${i}] (${user.name}) needs a token or a tokenSha256 (64 hex digits)`);
    }
    return { principal: { name: user.name, role: user.role }, digest };
  });
}

/**
 * The user whose token this is, compared in constant time against every user's digest (the
 * comparison count and time do not depend on which user, if any, matched). With `name`, the
 * name must match too.
 */
function match(credentials: readonly Credential[], token: string, name?: string): Principal | null {
  const digest = sha256(token);
  let found: Principal | null = null;
  for (const credential of credentials) {
    if (timingSafeEqual(credential.digest, digest) && (name === undefined || name === credential.principal.name)) found = credential.principal;
  }
  return found;
}

/**
 * The `respire-dashboard` server: its own Redis connection, a {@link RespireAdmin} over the
 * configured queues and streams, the dashboard, and a sign-in page. Users sign in with their
 * name and token (a session cookie: HttpOnly, SameSite=Strict, signed, 12 hours) or send
 * `Authorization: Bearer <token>` / HTTP Basic (`name:token`) from scripts.
 */
export async function startStandaloneDashboard(options: StandaloneOptions): Promise<StandaloneDashboard> {
  const credentials = checkUsers(options.users);
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 7373;
  const base = (options.basePath ?? '/').replace(/\/+$/, '');
  const cookiePath = base || '/';
  const sessionKey = randomBytes(32);
  const audit = options.audit ?? ((record: AuditRecord) => console.log(JSON.stringify({ audit: record })));

  const socket = { connectTimeout: 5000 };
  const client = options.cluster ? createCluster({ rootNodes: [{ url: options.url }], defaults: { socket } }) : createClient({ url: options.url, socket });
  client.on('error', (error: Error) => console.error(`respire-dashboard: redis: ${error.message}`));
  try {
    await client.connect();
  } catch (error) {
    client.destroy(); // a client whose connect failed is still ours to close
    throw error;
  }

  const admin = new RespireAdmin(client, {
    queues: options.queues ?? [],
    streams: options.streams ?? [],
    discoverQueues: options.discoverQueues ?? false,
    audit,
    ...(options.auditStream ? { auditStream: options.auditStream } : {}),
  });

  const sign = (value: string) => createHmac('sha256', sessionKey).update(value).digest('base64url');
  const issueSession = (principal: Principal) => {
    const value = `${Buffer.from(principal.name).toString('base64url')}.${Date.now() + SESSION_TTL_MS}`;
    return `${value}.${sign(value)}`;
  };
  const readSession = (cookie: string | undefined): Principal | null => {
    if (!cookie) return null;
    const [name, expires, mac] = cookie.split('.');
    if (!name || !expires || !mac) return null;
    const expected = Buffer.from(sign(`${name}.${expires}`));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected) || Number(expires) < Date.now()) return null;
    const user = Buffer.from(name, 'base64url').toString('utf8');
    return credentials.find((c) => c.principal.name === user)?.principal ?? null;
  };

  const authorize = (request: Request): Principal | null => {
    const header = request.headers.get('authorization');
    if (header?.startsWith('Bearer ')) return match(credentials, header.slice(7).trim());
    if (header?.startsWith('Basic ')) {
      const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      return colon < 0 ? null : match(credentials, decoded.slice(colon + 1), decoded.slice(0, colon));
    }
    const cookie = /(?:^|;\s*)respire_session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
    return readSession(cookie);
  };

  const dashboard = createDashboard({ admin, authorize, basePath: cookiePath, signOutPath: `${base}/logout`, ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}) });

  const app = new Hono();
  const login = new Hono();
  login.use('*', secureHeaders({
    contentSecurityPolicy: { defaultSrc: ["'none'"], styleSrc: ["'self'"], imgSrc: ["'self'"], formAction: ["'self'"], frameAncestors: ["'none'"], baseUri: ["'none'"] },
    referrerPolicy: 'no-referrer',
    xFrameOptions: 'DENY',
    strictTransportSecurity: false,
  }));
  login.use('*', csrf());
  const safeNext = (next: string | undefined) => (next && next.startsWith(`${base}/`) && !next.startsWith('//') && !/[\\\r\n]/.test(next) ? next : `${base}/`);
  const loginPage = (next: string, failed: boolean) => (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Sign in · Respire</title>
        <link rel="stylesheet" href={`${base}/assets/dashboard.css`} />
        <link rel="icon" href={`${base}/assets/favicon.svg`} type="image/svg+xml" />
      </head>
      <body>
        <main id="main" class="bare">
          <h1>Respire dashboard</h1>
          {failed ? <p class="notice error" role="alert">Unknown user or wrong token.</p> : null}
          <form method="post" action={`${base}/login`} class="login">
            <input type="hidden" name="next" value={next} />
            <p>
              <label for="name">User</label>
              <br />
              <input id="name" name="name" autocomplete="username" required />
            </p>
            <p>
              <label for="token">Token</label>
              <br />
              <input id="token" name="token" type="password" autocomplete="current-password" required />
            </p>
            <button type="submit" class="button primary">Sign in</button>
          </form>
        </main>
      </body>
    </html>
  );
  login.get(`${base}/login`, (c) => {
    c.header('Cache-Control', 'no-store');
    return c.html(loginPage(safeNext(c.req.query('next')), false));
  });
  login.post(`${base}/login`, async (c) => {
    c.header('Cache-Control', 'no-store');
    const form = await c.req.parseBody();
    const name = typeof form['name'] === 'string' ? form['name'] : '';
    const token = typeof form['token'] === 'string' ? form['token'] : '';
    const next = safeNext(typeof form['next'] === 'string' ? form['next'] : undefined);
    const principal = token && name ? match(credentials, token, name) : null;
    if (!principal) return c.html(loginPage(next, true), 401);
    setCookie(c, SESSION_COOKIE, issueSession(principal), {
      httpOnly: true,
      sameSite: 'Strict',
      secure: options.secureCookies ?? false,
      path: cookiePath,
      maxAge: SESSION_TTL_MS / 1000,
    });
    return c.redirect(next, 303);
  });
  login.post(`${base}/logout`, (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: cookiePath });
    return c.redirect(`${base}/login`, 303);
  });
  app.route('/', login);
  // Everything else is the dashboard; a signed-out browser asking for a page goes to the sign-in form.
  app.all('*', async (c) => {
    const response = await dashboard.fetch(c.req.raw);
    if (response.status === 401 && c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html')) {
      const url = new URL(c.req.url);
      return c.redirect(`${base}/login?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
    }
    return response;
  });

  const server = createServer(getRequestListener(app.fetch));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (error) {
    client.destroy();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${base}/`,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      client.destroy();
    },
  };
}
