// startStandaloneDashboard: the dashboard with its own Redis connection and sign-in.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { createClient, createCluster } from 'redis';
import {
  RespireAdmin,
  RespireValidationError,
  type AuditRecord,
  type JobSettings,
  type QueueConfig,
  type StreamConfig,
  type TopicConfig,
} from '@respire/admin';
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
  /** Reliable topics to show. @defaultValue `[]` */
  readonly topics?: readonly TopicConfig[];
  /** Also find reliable topics with a bounded SCAN (the admin's `discoverTopics`). @defaultValue false */
  readonly discoverTopics?: boolean;
  /** Grouped queues to show (queues with message groups). @defaultValue `[]` */
  readonly groupedQueues?: readonly QueueConfig[];
  /** Also find grouped queues with a bounded SCAN (the admin's `discoverGroupedQueues`). @defaultValue false */
  readonly discoverGroupedQueues?: boolean;
  /** Partitioned queues to show (the admin's `partitionedQueues`). @defaultValue `[]` */
  readonly partitionedQueues?: readonly QueueConfig[];
  /** Also find partitioned queues with a bounded SCAN of their metadata keys (the admin's `discoverPartitionedQueues`). @defaultValue false */
  readonly discoverPartitionedQueues?: boolean;
  readonly auditStream?: string;
  readonly pollIntervalMs?: number;
  /** Mark the session cookie `Secure` (serve over HTTPS, e.g. behind a TLS proxy). @defaultValue false */
  readonly secureCookies?: boolean;
  /** Audit records, one per action. @defaultValue a JSON line on stdout */
  readonly audit?: (record: AuditRecord) => void;
  /**
   * Host names the server answers to (the Host header's name, any port), against DNS
   * rebinding: a page of another site whose name resolves to this address gets a 400. Names or
   * IP addresses, e.g. `ops.example.com`. @defaultValue the bound address, `localhost`, `127.0.0.1` and `::1`
   */
  readonly allowedHosts?: readonly string[];
  /** Record history samples (see `DashboardOptions.history`). @defaultValue false */
  readonly history?: boolean | { readonly intervalMs?: number };
  /** How bulk jobs are kept and run (`RespireAdminOptions.jobs`: page size, rate, records per job, jobs at once). */
  readonly jobs?: JobSettings;
}

export interface StandaloneDashboard {
  /** The dashboard's URL, e.g. `http://127.0.0.1:7373/`. */
  readonly url: string;
  readonly server: Server;
  /** The host names it answers to. */
  readonly allowedHosts: readonly string[];
  /** Stops the HTTP server, the history sampler and this process's jobs (they read interrupted and can be resumed), then closes the Redis connection. */
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
  const allowedHosts = hostAllowList(host, options.allowedHosts);
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
    topics: options.topics ?? [],
    discoverTopics: options.discoverTopics ?? false,
    groupedQueues: options.groupedQueues ?? [],
    discoverGroupedQueues: options.discoverGroupedQueues ?? false,
    partitionedQueues: options.partitionedQueues ?? [],
    discoverPartitionedQueues: options.discoverPartitionedQueues ?? false,
    audit,
    ...(options.auditStream ? { auditStream: options.auditStream } : {}),
    ...(options.jobs ? { jobs: options.jobs } : {}),
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
    ...(options.history !== undefined ? { history: options.history } : {}),
  });

  const app = new Hono();
  app.use('*', await fillSecurityHeaders());
  // DNS rebinding: a site whose name resolves to this address must not be served as if it were this dashboard.
  app.use('*', async (c, next) => {
    const name = hostName(c.req.header('host'));
    if (name === undefined || !allowedHosts.includes(name)) {
      return c.text(
        `Host '${(c.req.header('host') ?? '').slice(0, 200)}' is not allowed: this dashboard answers to ${allowedHosts.join(', ')}. ` +
          'Start it with --allowed-host NAME to serve it under another name.',
        400,
      );
    }
    await next();
  });
  app.route('/', signInRoutes({ base, credentials, sessions, limiter }));
  // Everything else is the dashboard; a signed-out browser asking for a page goes to the sign-in form.
  app.all('*', async (c) => {
    const address = clientAddress(c);
    const header = c.req.header('authorization');
    const locked = header === undefined ? 0 : limiter.lockedFor(address);
    if (locked > 0) return c.text('Too many failed sign-ins from this address.', 429, { 'Retry-After': String(locked) });
    // A token in a header is checked here at once (no await before it counts), so parallel guesses get no more than the limit.
    const guess =
      header !== undefined && (header.startsWith('Bearer ') || header.startsWith('Basic ')) && fromAuthorizationHeader(credentials, header) === null;
    const failed = guess ? (limiter.begin(address), limiter.fail(address, basicName(header))) : undefined;
    const response = await dashboard.fetch(c.req.raw);
    await failed;
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
    allowedHosts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dashboard.close();
      await admin.stopJobs();
      client.destroy();
    },
  };
}

/** A Host header's name, lower case, without its port (IPv6 without brackets); undefined when malformed. */
export function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9._-]+))(?::\d{1,5})?$/i.exec(header.trim());
  const name = match?.[1] ?? match?.[2];
  return name?.toLowerCase();
}

/** The names a standalone server answers to: the given ones, else the bound address and the loopback names. */
function hostAllowList(bound: string, given: readonly string[] | undefined): string[] {
  if (given !== undefined) {
    if (!Array.isArray(given) || given.length === 0) throw new RespireValidationError('allowedHosts', 'must hold at least one host name');
    return given.map((h, i) => {
      const name = typeof h === 'string' ? hostName(h) : undefined;
      if (!name) throw new RespireValidationError(`allowedHosts[${i}]`, `must be a host name or IP address, got ${JSON.stringify(h)}`);
      return name;
    });
  }
  const names = ['localhost', '127.0.0.1', '::1'];
  const own = hostName(bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound);
  if (own && own !== '0.0.0.0' && own !== '::' && !names.includes(own)) names.unshift(own);
  return names;
}

/** The user name of an `Authorization: Basic` header ('' for a bearer token or a malformed header). */
function basicName(header: string): string {
  if (!header.startsWith('Basic ')) return '';
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? '' : decoded.slice(0, Math.min(colon, 64));
}
