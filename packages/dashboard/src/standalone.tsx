// startStandaloneDashboard: the dashboard with its own Redis connection and sign-in.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { createClient, createCluster } from 'redis';
import { RespireAdmin, type AuditRecord, type QueueConfig, type StreamConfig } from '@respire/admin';
import type { Principal } from './auth.js';
import { createDashboard } from './dashboard.js';
import { fillSecurityHeaders } from './middleware/headers.js';
import { FailureLimiter } from './standalone/limiter.js';
import { Sessions } from './standalone/sessions.js';
import { clientAddress, signInRoutes } from './standalone/sign-in.js';
import { checkUsers, fromAuthorizationHeader, type StandaloneUser } from './standalone/users.js';

export type { StandaloneUser } from './standalone/users.js';

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

/**
 * The `respire-dashboard` server: its own Redis connection, a {@link RespireAdmin} over the
 * configured queues and streams, the dashboard, and a sign-in page. Users sign in with their
 * name and token (a server-side session: HttpOnly, SameSite=Strict cookie, 12 hours) or send
 * `Authorization: Bearer <token>` / HTTP Basic (`name:token`) from scripts.
 */
export async function startStandaloneDashboard(options: StandaloneOptions): Promise<StandaloneDashboard> {
  const credentials = checkUsers(options.users);
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 7373;
  const base = (options.basePath ?? '/').replace(/\/+$/, '');
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

  const sessions = new Sessions(options.secureCookies ?? false);
  const limiter = new FailureLimiter();
  const authorize = (request: Request): Principal | null => {
    const header = request.headers.get('authorization');
    if (header?.startsWith('Bearer ') || header?.startsWith('Basic ')) return fromAuthorizationHeader(credentials, header);
    return sessions.read(request);
  };
  const dashboard = createDashboard({
    admin,
    authorize,
    basePath: base || '/',
    signOutPath: `${base}/logout`,
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
  });

  const app = new Hono();
  app.use('*', await fillSecurityHeaders());
  app.route('/', signInRoutes({ base, credentials, sessions, limiter }));
  // Everything else is the dashboard; a signed-out browser asking for a page goes to the sign-in form.
  app.all('*', async (c) => {
    const address = clientAddress(c);
    const header = c.req.header('authorization');
    const locked = header === undefined ? 0 : limiter.lockedFor(address);
    if (locked > 0) return c.text('Too many failed sign-ins from this address.', 429, { 'Retry-After': String(locked) });
    const response = await dashboard.fetch(c.req.raw);
    if (response.status === 401 && header !== undefined) await limiter.fail(address);
    if (response.status === 401 && c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html')) {
      // The 401's own security headers go along with the redirect.
      const url = new URL(c.req.url);
      const headers = new Headers(response.headers);
      headers.delete('content-type');
      headers.set('location', `${base}/login?next=${encodeURIComponent(url.pathname + url.search)}`);
      return new Response(null, { status: 303, headers });
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
