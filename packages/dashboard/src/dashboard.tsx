import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { bodyLimit } from 'hono/body-limit';
import { csrf } from 'hono/csrf';
import { secureHeaders } from 'hono/secure-headers';
import type { Child } from 'hono/jsx';
import type { AdminApi, QueueResource, Resource, StreamResource } from '@respire/admin';
import { checkPrincipal, isAnonymousOperator, type Authorize, type Guard, type Principal } from './auth.js';
import { CsrfTokens } from './csrf.js';
import { count, duration } from './format.js';
import { href, MessagePage, type PageContext } from './views/layout.js';
import {
  ConfirmPage,
  DeadLetterPage,
  DeadLettersPage,
  DeliveriesPage,
  GroupPage,
  OverviewPage,
  QueuePage,
  StreamPage,
  queueCrumbs,
  streamCrumbs,
} from './views/pages.js';

/** The shortest auto-refresh interval a page may poll at. */
export const MIN_POLL_INTERVAL_MS = 2_000;
const MAX_POLL_INTERVAL_MS = 3_600_000;

export interface DashboardOptions {
  /** The admin API every page reads and every action calls (`new RespireAdmin(...)` from `@respire/admin`). */
  readonly admin: AdminApi;
  /**
   * Who sent the request (required: there is no anonymous default). `null`/`undefined` → 401,
   * a throw or a malformed principal → 403. For local development only,
   * {@link dangerouslyAllowAnonymousOperator}.
   */
  readonly authorize: Authorize;
  /**
   * Per-resource authorization: resources it refuses are left out of the overview and answer 404
   * on every page and action. @defaultValue every resource is visible to every principal
   */
  readonly guard?: Guard;
  /**
   * The path the dashboard is mounted at, e.g. `/ops/respire`; requests reach the handler with
   * their full path. @defaultValue `'/'`
   */
  readonly basePath?: string;
  /**
   * Auto-refresh interval a page polls at when the operator turns it on; 0 removes the
   * control. At least {@link MIN_POLL_INTERVAL_MS}, at most one hour. @defaultValue 10_000
   */
  readonly pollIntervalMs?: number;
  /** Rows per table page, 1..1000. @defaultValue 50 */
  readonly pageSize?: number;
  /** Records one "retry all" / "delete all" request handles before it reports and offers to continue, 1..100_000. @defaultValue 1000 */
  readonly bulkLimit?: number;
  /**
   * Key of the CSRF tokens (HMAC-SHA256), at least 32 bytes. Give every instance behind one
   * load balancer the same secret. @defaultValue 32 random bytes per `createDashboard` call
   */
  readonly secret?: string | Uint8Array;
  /**
   * Origins allowed to post forms besides the request's own (e.g. the public origin behind a
   * TLS-terminating proxy). Requests whose `Sec-Fetch-Site` is `same-origin` pass as well.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * A POST endpoint of the host application that signs the user out (an absolute path); the
   * header then shows a "Sign out" button. @defaultValue none
   */
  readonly signOutPath?: string;
  /** Called with unexpected errors (a 500 page is shown). @defaultValue `console.error` */
  readonly onError?: (error: unknown, request: Request) => void;
}

/** A mounted dashboard: a Web-standard handler and its Node adapter. */
export interface Dashboard {
  /** Web-standard handler (Hono, Bun, Deno, workers): `fetch(request) → Response`. */
  readonly fetch: (request: Request) => Promise<Response>;
  /**
   * Node request listener for `http.createServer`, Express (`app.use(basePath, …)`) and Fastify
   * (`reply.hijack()` then call it with `request.raw, reply.raw`). Reads Express's
   * `originalUrl` when present. Mount it before any body-parsing middleware.
   */
  readonly nodeListener: (req: IncomingMessage, res: ServerResponse) => void;
  /** The normalized base path ('' for the root). */
  readonly basePath: string;
}

type Env = { Variables: { principal: Principal; csrfToken: string } };

const assetDir = new URL('../assets/', import.meta.url);
const loadAsset = (name: string) => readFileSync(new URL(name, assetDir));

const ENTRY_ID = /^\d{1,20}-\d{1,20}$/;
const MAX_NAME = 2048;

class HttpError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

function normalizeBase(basePath: string | undefined): string {
  const base = (basePath ?? '/').trim();
  if (!base.startsWith('/') || /[?#\\]|\/\//.test(base)) throw new TypeError(`createDashboard: basePath must be an absolute path like '/ops/respire' (got ${JSON.stringify(basePath)})`);
  return base.replace(/\/+$/, '');
}

function checkRange(name: string, value: number | undefined, fallback: number, min: number, max: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || ((value < min || value > max) && !(allowZero && value === 0))) {
    throw new TypeError(`createDashboard: ${name} must be an integer in ${min}..${max}${allowZero ? ' or 0' : ''} (got ${value})`);
  }
  return value;
}

/** `error instanceof type`, false when the check throws (a revoked Proxy thrown by user code such as `authorize`). */
const isA = (error: unknown, type: abstract new (...args: never[]) => unknown): boolean => {
  try {
    return error instanceof type;
  } catch {
    return false;
  }
};
const isValidationError = (error: unknown): error is Error => {
  try {
    return error instanceof Error && error.name === 'RespireValidationError';
  } catch {
    return false;
  }
};
/** What the error page says about a failure; never throws, whatever was thrown. */
const failureText = (error: unknown): string => {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return 'an error that cannot be described';
  }
};

/**
 * The authorized Respire dashboard: server-rendered pages over the admin API, and the retry,
 * delete, release, ack and idle-consumer actions, each authorized on the server, CSRF-checked
 * and audited by the admin API with the principal as the actor.
 *
 * @throws {TypeError} when an option is missing or out of range.
 * @example
 * ```ts
 * const dashboard = createDashboard({ admin, authorize, basePath: '/ops/respire' });
 * http.createServer(dashboard.nodeListener).listen(8080, '127.0.0.1');
 * ```
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  if (!options || typeof options.admin !== 'object' || options.admin === null) throw new TypeError('createDashboard: `admin` (an AdminApi) is required');
  if (typeof options.authorize !== 'function') {
    throw new TypeError('createDashboard: `authorize(request)` is required (for local development only: dangerouslyAllowAnonymousOperator())');
  }
  const admin = options.admin;
  const authorize = options.authorize;
  const guard = options.guard;
  const base = normalizeBase(options.basePath);
  const pollIntervalMs = checkRange('pollIntervalMs', options.pollIntervalMs, 10_000, MIN_POLL_INTERVAL_MS, MAX_POLL_INTERVAL_MS, true);
  const pageSize = checkRange('pageSize', options.pageSize, 50, 1, 1000);
  const bulkLimit = checkRange('bulkLimit', options.bulkLimit, 1000, 1, 100_000);
  const tokens = new CsrfTokens(options.secret);
  const anonymous = isAnonymousOperator(authorize);
  const onError = options.onError ?? ((error: unknown) => console.error('respire dashboard:', error));
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  if (anonymous) {
    process.emitWarning('Respire dashboard: dangerouslyAllowAnonymousOperator() lets anyone who reaches it retry and delete. Development only.', 'SecurityWarning');
  }

  const assets: Record<string, { body: Buffer; type: string }> = {
    'dashboard.css': { body: loadAsset('dashboard.css'), type: 'text/css; charset=utf-8' },
    'dashboard.js': { body: loadAsset('dashboard.js'), type: 'text/javascript; charset=utf-8' },
    'favicon.svg': { body: loadAsset('favicon.svg'), type: 'image/svg+xml' },
  };

  const app = new Hono<Env>({ strict: false });
  const routes = base === '' ? app : app.basePath(base);

  routes.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      referrerPolicy: 'no-referrer',
      xFrameOptions: 'DENY',
      // The host application owns HSTS for its whole origin.
      strictTransportSecurity: false,
    }),
  );

  routes.get('/assets/:name', (c) => {
    const asset = assets[c.req.param('name')];
    if (!asset) return c.text('Not found', 404);
    return c.body(new Uint8Array(asset.body), 200, { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=300' });
  });

  // Authentication and authorization of every other route.
  routes.use('*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    let principal: Principal | 'invalid' | null;
    try {
      principal = checkPrincipal(await authorize(c.req.raw));
    } catch {
      principal = 'invalid';
    }
    if (principal === null) return bare(c, 401, 'Sign-in required', 'This dashboard needs an authenticated user.');
    if (principal === 'invalid') return bare(c, 403, 'Not allowed', 'You are not allowed to use this dashboard.');
    c.set('principal', principal);
    c.set('csrfToken', tokens.issue(principal.name));
    await next();
  });

  // State changes: POST only, operators only, same-origin (Origin or Sec-Fetch-Site), a valid token.
  routes.use('/actions/*', async (c, next) => {
    if (c.req.method !== 'POST') return bare(c, 405, 'Method not allowed', 'Actions are POST requests.', { Allow: 'POST' });
    await next();
  });
  routes.use(
    '/actions/*',
    csrf({
      origin: (origin, c) => origin === new URL(c.req.url).origin || allowedOrigins.has(origin),
    }),
  );
  routes.use('/actions/*', bodyLimit({ maxSize: 16 * 1024, onError: (c) => bare(c, 413, 'Too large', 'The form was too large.') }));
  routes.use('/actions/*', async (c, next) => {
    const principal = c.get('principal');
    if (principal.role !== 'operator') return page(c, 403, 'Not allowed', <p>Your role ({principal.role}) may read but not change anything.</p>);
    const form = await c.req.parseBody();
    const token = form['_csrf'] ?? c.req.header('x-csrf-token');
    if (!tokens.verify(principal.name, token)) {
      return page(c, 403, 'Form expired or from another site', <p>The form's security token is missing, expired or not yours. Nothing was changed: reload the page and try again.</p>);
    }
    await next();
  });
  routes.use('/confirm/*', async (c, next) => {
    const principal = c.get('principal');
    if (principal.role !== 'operator') return page(c, 403, 'Not allowed', <p>Your role ({principal.role}) may read but not change anything.</p>);
    await next();
  });

  // ---------------------------------------------------------------------------------------------
  // Helpers bound to this dashboard

  function ctxOf(c: Context<Env>): PageContext {
    const url = new URL(c.req.url);
    return {
      base,
      principal: c.get('principal'),
      csrfToken: c.get('csrfToken'),
      anonymous,
      path: url.pathname.slice(base.length) || '/',
      query: url.searchParams,
      pollIntervalMs,
      signOutPath: options.signOutPath,
    };
  }

  function bare(c: Context<Env>, status: number, title: string, text: string, headers: Record<string, string> = {}) {
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    c.header('Cache-Control', 'no-store');
    return c.html(
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>{`${title} · Respire`}</title>
          <link rel="stylesheet" href={`${base}/assets/dashboard.css`} />
          <link rel="icon" href={`${base}/assets/favicon.svg`} type="image/svg+xml" />
        </head>
        <body>
          <main id="main" class="bare">
            <h1>{title}</h1>
            <p>{text}</p>
          </main>
        </body>
      </html>,
      status as 401,
    );
  }

  function page(c: Context<Env>, status: number, title: string, children: Child) {
    return c.html(
      <MessagePage ctx={ctxOf(c)} title={title} status={status}>
        {children}
      </MessagePage>,
      status as 200,
    );
  }

  function param(c: Context<Env>, source: Record<string, unknown>, name: string, { pattern, optional }: { pattern?: RegExp; optional?: boolean } = {}): string | undefined {
    const value = source[name];
    if (value === undefined || value === '') {
      if (optional) return undefined;
      throw new HttpError(400, `Missing ${name}.`);
    }
    if (typeof value !== 'string' || value.length > MAX_NAME || (pattern && !pattern.test(value))) throw new HttpError(400, `Invalid ${name}.`);
    void c;
    return value;
  }
  const need = (c: Context<Env>, source: Record<string, unknown>, name: string, pattern?: RegExp) => param(c, source, name, { pattern }) as string;

  function intParam(source: Record<string, unknown>, name: string, min: number, max: number): number {
    const text = source[name];
    const value = typeof text === 'string' && /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isInteger(value) || value < min || value > max) throw new HttpError(400, `Invalid ${name}.`);
    return value;
  }

  /** The resource, if it exists and this principal may see it; else 404 (the same answer for both). */
  async function resolve(c: Context<Env>, id: string): Promise<Resource> {
    let resource: Resource;
    try {
      resource = await admin.resource(id);
    } catch (error) {
      if (isValidationError(error)) throw new HttpError(404, 'No such queue or stream.');
      throw error;
    }
    if (guard && !(await guard(c.get('principal'), resource))) throw new HttpError(404, 'No such queue or stream.');
    return resource;
  }
  async function resolveQueue(c: Context<Env>, id: string): Promise<QueueResource> {
    const resource = await resolve(c, id);
    if (resource.kind !== 'queue') throw new HttpError(404, 'No such queue.');
    return resource;
  }
  async function resolveStream(c: Context<Env>, id: string): Promise<StreamResource> {
    const resource = await resolve(c, id);
    if (resource.kind !== 'stream') throw new HttpError(404, 'No such stream.');
    return resource;
  }
  async function visible(principal: Principal, resource: Resource): Promise<boolean> {
    return guard ? await guard(principal, resource) : true;
  }

  const query = (c: Context<Env>) => c.req.query() as Record<string, string>;
  const pageCount = (c: Context<Env>) => {
    const text = c.req.query('count');
    if (text === undefined) return pageSize;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1 || n > 1000) throw new HttpError(400, 'Invalid count.');
    return n;
  };

  /** Notices after a redirect: fixed templates with the IDs as text. */
  function noticeOf(c: Context<Env>) {
    const q = query(c);
    switch (q['done']) {
      case 'retried':
        return { kind: 'ok' as const, text: `Retried dead letter ${q['record'] ?? ''}: appended again as entry ${q['newId'] ?? ''}.` };
      case 'deleted':
        return { kind: 'ok' as const, text: `Deleted dead letter ${q['record'] ?? ''}.` };
      case 'retried-all':
      case 'deleted-all': {
        const verb = q['done'] === 'retried-all' ? 'Retried' : 'Deleted';
        const failed = Number(q['failed'] ?? 0);
        const remain = Number(q['remain'] ?? 0);
        return {
          kind: failed > 0 ? ('warn' as const) : ('ok' as const),
          text: `${verb} ${count(Number(q['n'] ?? 0))} dead letters${failed > 0 ? `, ${count(failed)} failed` : ''}. ${remain > 0 ? `${count(remain)} remain: run it again to continue.` : 'None remain.'}`,
        };
      }
      case 'released':
        return { kind: 'ok' as const, text: `Released entry ${q['entry'] ?? ''} for redelivery.` };
      case 'acked':
        return { kind: 'ok' as const, text: `Acknowledged entry ${q['entry'] ?? ''}${q['deleted'] === '1' ? ' and deleted it from the stream' : ''}.` };
      case 'removed-consumers':
        return {
          kind: 'ok' as const,
          text: `Removed ${count(Number(q['n'] ?? 0))} idle consumers${Number(q['kept'] ?? 0) > 0 ? `; kept ${count(Number(q['kept']))} that still hold pending entries` : ''}.`,
        };
      default:
        return undefined;
    }
  }

  const redirect = (c: Context<Env>, path: string, params: Record<string, string | number | undefined>) => c.redirect(href({ base }, path, params), 303);

  // ---------------------------------------------------------------------------------------------
  // Pages

  routes.get('/', async (c) => {
    const ctx = ctxOf(c);
    const overview = await admin.overview();
    const principal = c.get('principal');
    const queues = [];
    for (const q of overview.queues) if (await visible(principal, q.resource)) queues.push(q);
    const streams = [];
    for (const s of overview.streams) if (await visible(principal, s.resource)) streams.push(s);
    const pageOf = (name: 'qpage' | 'spage', total: number) => {
      const n = Math.max(0, Math.floor(Number(c.req.query(name) ?? 0)) || 0);
      const from = Math.min(n, Math.max(0, Math.ceil(total / pageSize) - 1)) * pageSize;
      const other = name === 'qpage' ? 'spage' : 'qpage';
      const keep = { [other]: c.req.query(other), refresh: c.req.query('refresh') };
      return {
        from,
        total,
        first: from > 0 ? href(ctx, '/', { ...keep }) : undefined,
        next: from + pageSize < total ? href(ctx, '/', { ...keep, [name]: from / pageSize + 1 }) : undefined,
      };
    };
    const queuePage = pageOf('qpage', queues.length);
    const streamPage = pageOf('spage', streams.length);
    return c.html(
      <OverviewPage
        ctx={ctx}
        serverTimeMs={overview.serverTimeMs}
        queues={queues.slice(queuePage.from, queuePage.from + pageSize)}
        streams={streams.slice(streamPage.from, streamPage.from + pageSize)}
        discoveryTruncated={overview.discoveryTruncated}
        queuePage={queuePage}
        streamPage={streamPage}
      />,
    );
  });

  routes.get('/queue', async (c) => {
    const queue = await resolveQueue(c, need(c, query(c), 'id'));
    const status = await admin.queueStatus(queue.id);
    const ctx = ctxOf(c);
    return c.html(<QueuePage ctx={ctx} status={status} notice={noticeOf(c)} />);
  });

  routes.get('/stream', async (c) => {
    const stream = await resolveStream(c, need(c, query(c), 'id'));
    const status = await admin.streamStatus(stream.id);
    return c.html(<StreamPage ctx={ctxOf(c)} status={status} />);
  });

  routes.get('/group', async (c) => {
    const q = query(c);
    const stream = await resolveStream(c, need(c, q, 'id'));
    const group = need(c, q, 'group');
    const consumerFilter = param(c, q, 'consumer', { optional: true });
    const cursor = param(c, q, 'cursor', { optional: true });
    const bodyId = param(c, q, 'body', { optional: true, pattern: ENTRY_ID });
    const [consumers, pending, body] = await Promise.all([
      admin.consumers(stream.id, group),
      admin.pending(stream.id, group, { count: pageCount(c), ...(cursor ? { cursor } : {}), ...(consumerFilter !== undefined ? { consumer: consumerFilter } : {}) }),
      bodyId ? admin.entry(stream.id, bodyId) : Promise.resolve(undefined),
    ]);
    const ctx = ctxOf(c);
    const keep = { id: stream.id, group, consumer: consumerFilter, refresh: q['refresh'] };
    return c.html(
      <GroupPage
        ctx={ctx}
        stream={stream}
        group={group}
        consumers={consumers}
        pending={pending.items}
        pager={{ first: cursor ? href(ctx, '/group', keep) : undefined, next: pending.next ? href(ctx, '/group', { ...keep, cursor: pending.next }) : undefined }}
        consumerFilter={consumerFilter}
        body={bodyId ? { id: bodyId, entry: body ?? null } : undefined}
        notice={noticeOf(c)}
      />,
    );
  });

  routes.get('/dead-letters', async (c) => {
    const q = query(c);
    const resource = await resolveDeadLetterOwner(c, need(c, q, 'id'));
    const cursor = param(c, q, 'cursor', { optional: true });
    const order = q['order'] === 'oldest' ? 'oldest' : 'newest';
    const [records, total] = await Promise.all([
      admin.deadLetters(resource.id, { count: pageCount(c), order, ...(cursor ? { cursor } : {}) }),
      deadLetterCount(resource),
    ]);
    const ctx = ctxOf(c);
    const keep = { id: resource.id, order: order === 'oldest' ? 'oldest' : undefined, refresh: q['refresh'] };
    return c.html(
      <DeadLettersPage
        ctx={ctx}
        resource={resource}
        total={total}
        records={records.items}
        order={order}
        pager={{ first: cursor ? href(ctx, '/dead-letters', keep) : undefined, next: records.next ? href(ctx, '/dead-letters', { ...keep, cursor: records.next }) : undefined }}
        notice={noticeOf(c)}
      />,
    );
  });

  async function resolveDeadLetterOwner(c: Context<Env>, id: string): Promise<QueueResource | StreamResource> {
    const resource = await resolve(c, id);
    if (resource.kind === 'stream' && resource.deadLetterStream === undefined) throw new HttpError(404, 'This stream has no dead-letter stream configured.');
    return resource;
  }

  async function deadLetterCount(resource: Resource): Promise<number> {
    if (resource.kind === 'queue') return (await admin.queueStatus(resource.id)).deadLetters;
    return (await admin.streamStatus(resource.id)).deadLetters ?? 0;
  }

  routes.get('/dead-letter', async (c) => {
    const q = query(c);
    const resource = await resolveDeadLetterOwner(c, need(c, q, 'id'));
    const recordId = need(c, q, 'record', ENTRY_ID);
    const record = await admin.deadLetter(resource.id, recordId);
    if (!record) throw new HttpError(404, `Dead letter ${recordId} is gone (retried or deleted).`);
    return c.html(<DeadLetterPage ctx={ctxOf(c)} resource={resource} record={record} />);
  });

  routes.get('/deliveries', async (c) => {
    const q = query(c);
    const queue = await resolveQueue(c, need(c, q, 'id'));
    const cursor = param(c, q, 'cursor', { optional: true });
    const page = await admin.queueDeliveries(queue.id, { count: pageCount(c), ...(cursor ? { cursor } : {}) });
    const ctx = ctxOf(c);
    const keep = { id: queue.id, refresh: q['refresh'] };
    return c.html(
      <DeliveriesPage
        ctx={ctx}
        queue={queue}
        items={page.items}
        serverTimeMs={page.serverTimeMs}
        pager={{ first: cursor ? href(ctx, '/deliveries', keep) : undefined, next: page.next ? href(ctx, '/deliveries', { ...keep, cursor: page.next }) : undefined }}
      />,
    );
  });

  // ---------------------------------------------------------------------------------------------
  // Confirmation steps (GET, operators only; the form they show posts the action)

  const crumbsOf = (ctx: PageContext, resource: QueueResource | StreamResource) => [
    ...(resource.kind === 'queue' ? queueCrumbs(ctx, resource) : streamCrumbs(ctx, resource)),
    { label: 'Dead letters', href: href(ctx, '/dead-letters', { id: resource.id }) },
  ];

  routes.get('/confirm/delete', async (c) => {
    const q = query(c);
    const resource = await resolveDeadLetterOwner(c, need(c, q, 'id'));
    const recordId = need(c, q, 'record', ENTRY_ID);
    const record = await admin.deadLetter(resource.id, recordId);
    if (!record) throw new HttpError(404, `Dead letter ${recordId} is gone (retried or deleted).`);
    const ctx = ctxOf(c);
    return c.html(
      <ConfirmPage ctx={ctx} title="Delete this dead letter?" crumbs={[...crumbsOf(ctx, resource), { label: 'Delete' }]} action="delete" fields={{ id: resource.id, record: record.id }} danger submitLabel="Delete dead letter" cancelHref={href(ctx, '/dead-letters', { id: resource.id })}>
        <p>
          Dead letter <code>{record.id}</code>
          {record.kind !== 'foreign' ? <> of source entry <code>{record.sourceId}</code></> : null} will be removed from the dead-letter stream. Its payload is gone for good.
        </p>
      </ConfirmPage>,
    );
  });

  for (const bulk of ['retry-all', 'delete-all'] as const) {
    routes.get(`/confirm/${bulk}`, async (c) => {
      const resource = await resolveDeadLetterOwner(c, need(c, query(c), 'id'));
      const total = await deadLetterCount(resource);
      const ctx = ctxOf(c);
      const retry = bulk === 'retry-all';
      return c.html(
        <ConfirmPage
          ctx={ctx}
          title={retry ? 'Retry every dead letter?' : 'Delete every dead letter?'}
          crumbs={[...crumbsOf(ctx, resource), { label: retry ? 'Retry all' : 'Delete all' }]}
          action={bulk}
          fields={{ id: resource.id }}
          danger={!retry}
          submitLabel={retry ? `Retry ${count(Math.min(total, bulkLimit))} dead letters` : `Delete ${count(Math.min(total, bulkLimit))} dead letters`}
          cancelHref={href(ctx, '/dead-letters', { id: resource.id })}
        >
          <p>
            {count(total)} dead letters are in this stream now.{' '}
            {retry
              ? 'Each one is put back where it came from and removed from the dead-letter stream.'
              : 'Each one is removed for good.'}{' '}
            One request handles at most {count(bulkLimit)}, in pages; the result says how many remain.
          </p>
        </ConfirmPage>,
      );
    });
  }

  routes.get('/confirm/ack', async (c) => {
    const q = query(c);
    const stream = await resolveStream(c, need(c, q, 'id'));
    const group = need(c, q, 'group');
    const entry = need(c, q, 'entry', ENTRY_ID);
    const deliveryCount = intParam(q, 'deliveryCount', 1, Number.MAX_SAFE_INTEGER);
    const consumer = need(c, q, 'consumer');
    const ctx = ctxOf(c);
    return c.html(
      <ConfirmPage
        ctx={ctx}
        title="Acknowledge this pending entry?"
        crumbs={[...streamCrumbs(ctx, stream), { label: `Group ${group}`, href: href(ctx, '/group', { id: stream.id, group }) }, { label: 'Acknowledge' }]}
        action="ack"
        fields={{ id: stream.id, group, entry, deliveryCount, consumer }}
        danger
        submitLabel="Acknowledge entry"
        cancelHref={href(ctx, '/group', { id: stream.id, group })}
        formExtra={
          <p class="check">
            <input type="checkbox" id="delete-entry" name="deleteEntry" value="1" />
            <label for="delete-entry">Also delete the entry from the stream</label>
          </p>
        }
      >
        <p>
          Entry <code>{entry}</code>, owned by <span class="name">{consumer}</span> after {count(deliveryCount)} deliveries, leaves group{' '}
          <span class="name">{group}</span>'s pending list without being processed. If its owner or delivery count changed since then, nothing is done.
        </p>
      </ConfirmPage>,
    );
  });

  routes.get('/confirm/remove-idle-consumers', async (c) => {
    const q = query(c);
    const stream = await resolveStream(c, need(c, q, 'id'));
    const group = need(c, q, 'group');
    const minutes = intParam(q, 'minIdleMinutes', 1, 525_600);
    const minIdleMs = minutes * 60_000;
    const consumers = await admin.consumers(stream.id, group);
    const idle = consumers.filter((x) => x.idleMs >= minIdleMs);
    const removable = idle.filter((x) => x.pending === 0);
    const kept = idle.filter((x) => x.pending > 0);
    const ctx = ctxOf(c);
    return c.html(
      <ConfirmPage
        ctx={ctx}
        title="Remove idle consumers?"
        crumbs={[...streamCrumbs(ctx, stream), { label: `Group ${group}`, href: href(ctx, '/group', { id: stream.id, group }) }, { label: 'Remove idle consumers' }]}
        action="remove-idle-consumers"
        fields={{ id: stream.id, group, minIdleMs }}
        danger
        submitLabel={`Remove idle consumers (${count(removable.length)} now)`}
        cancelHref={href(ctx, '/group', { id: stream.id, group })}
      >
        <p>
          Consumers of group <span class="name">{group}</span> idle for at least {duration(minIdleMs)} with no pending entries are removed; the check and
          the removal are one atomic step, so a consumer that receives an entry in between is kept. Consumers holding pending entries are never removed.
        </p>
        <h2>Would be removed now ({count(removable.length)})</h2>
        {removable.length === 0 ? <p class="empty">None.</p> : <ul class="names">{removable.slice(0, 200).map((x) => <li>{x.name} <span class="muted small">idle {duration(x.idleMs)}</span></li>)}</ul>}
        {kept.length > 0 ? (
          <>
            <h2>Idle but kept: they hold pending entries ({count(kept.length)})</h2>
            <ul class="names">{kept.slice(0, 200).map((x) => <li>{x.name} <span class="muted small">{count(x.pending)} pending</span></li>)}</ul>
          </>
        ) : null}
      </ConfirmPage>,
    );
  });

  // ---------------------------------------------------------------------------------------------
  // Actions (POST, operators only, CSRF-checked above)

  const form = async (c: Context<Env>) => (await c.req.parseBody()) as Record<string, unknown>;

  routes.post('/actions/retry', async (c) => {
    const f = await form(c);
    const resource = await resolveDeadLetterOwner(c, need(c, f, 'id'));
    const record = need(c, f, 'record', ENTRY_ID);
    const result = await admin.retryDeadLetter(c.get('principal'), resource.id, record);
    if (result.status === 'retried') return redirect(c, '/dead-letters', { id: resource.id, done: 'retried', record, newId: result.newId });
    if (result.status === 'missing') return page(c, 409, 'Already gone', <p>Dead letter <code>{record}</code> is no longer there: it was retried or deleted already. Nothing was done.</p>);
    return page(c, 409, 'Retry refused', <p>Dead letter <code>{record}</code> was not retried: {result.reason}</p>);
  });

  routes.post('/actions/delete', async (c) => {
    const f = await form(c);
    const resource = await resolveDeadLetterOwner(c, need(c, f, 'id'));
    const record = need(c, f, 'record', ENTRY_ID);
    const result = await admin.deleteDeadLetter(c.get('principal'), resource.id, record);
    if (result.status === 'deleted') return redirect(c, '/dead-letters', { id: resource.id, done: 'deleted', record });
    return page(c, 409, 'Already gone', <p>Dead letter <code>{record}</code> is no longer there: it was retried or deleted already. Nothing was done.</p>);
  });

  for (const bulk of ['retry-all', 'delete-all'] as const) {
    routes.post(`/actions/${bulk}`, async (c) => {
      const f = await form(c);
      const resource = await resolveDeadLetterOwner(c, need(c, f, 'id'));
      const run = bulk === 'retry-all' ? admin.retryAllDeadLetters.bind(admin) : admin.deleteAllDeadLetters.bind(admin);
      const progress = await run(c.get('principal'), resource.id, { limit: bulkLimit, pageSize: Math.min(100, bulkLimit), signal: c.req.raw.signal });
      const remain = await deadLetterCount(resource);
      return redirect(c, '/dead-letters', { id: resource.id, done: bulk === 'retry-all' ? 'retried-all' : 'deleted-all', n: progress.done, failed: progress.failed, remain });
    });
  }

  for (const pendingAction of ['release', 'ack'] as const) {
    routes.post(`/actions/${pendingAction}`, async (c) => {
      const f = await form(c);
      const stream = await resolveStream(c, need(c, f, 'id'));
      const group = need(c, f, 'group');
      const entry = need(c, f, 'entry', ENTRY_ID);
      const expected = { deliveryCount: intParam(f, 'deliveryCount', 1, Number.MAX_SAFE_INTEGER), consumer: need(c, f, 'consumer') };
      const deleteEntry = f['deleteEntry'] === '1';
      const principal = c.get('principal');
      const result =
        pendingAction === 'release'
          ? await admin.releasePending(principal, stream.id, group, entry, expected)
          : await admin.ackPending(principal, stream.id, group, entry, expected, { deleteEntry });
      const back = href({ base }, '/group', { id: stream.id, group });
      if (result.status === 'missing') {
        return page(c, 409, 'No longer pending', (
          <>
            <p>Entry <code>{entry}</code> is no longer pending in group <span class="name">{group}</span>: it was acknowledged or released already, or its body was deleted from the stream (a release then drops the dangling pending record). Nothing else was done.</p>
            <p><a href={back}>Back to the group</a></p>
          </>
        ));
      }
      if (result.status !== 'changed') {
        return redirect(c, '/group', { id: stream.id, group, done: result.status === 'released' ? 'released' : 'acked', entry, deleted: deleteEntry ? '1' : undefined });
      }
      return page(c, 409, 'Changed since the page was rendered', (
        <>
          <p class="notice error" role="alert">
            Nothing was done: entry <code>{entry}</code> changed since the page was rendered.
          </p>
          <dl class="facts">
            <dt>Shown on the page</dt>
            <dd>owner <span class="name">{expected.consumer}</span>, {count(expected.deliveryCount)} deliveries</dd>
            <dt>Now</dt>
            <dd>owner <span class="name">{result.consumer}</span>, {count(result.deliveryCount)} deliveries</dd>
          </dl>
          <p><a href={back}>Reload the group and decide again</a></p>
        </>
      ));
    });
  }

  routes.post('/actions/remove-idle-consumers', async (c) => {
    const f = await form(c);
    const stream = await resolveStream(c, need(c, f, 'id'));
    const group = need(c, f, 'group');
    const minIdleMs = intParam(f, 'minIdleMs', 1000, 525_600 * 60_000);
    const result = await admin.removeIdleConsumers(c.get('principal'), stream.id, group, minIdleMs);
    return redirect(c, '/group', { id: stream.id, group, done: 'removed-consumers', n: result.removed.length, kept: result.keptWithPending.length });
  });

  routes.notFound((c) => {
    if (!c.get('principal')) return bare(c, 404, 'Not found', 'There is no such page.');
    return page(c, 404, 'Not found', <p>There is no such page.</p>);
  });

  app.onError((error, c) => {
    const ctxc = c as unknown as Context<Env>;
    // What reaches here may come from user code (authorize, guard): every check of it is guarded.
    if (isA(error, HttpError)) {
      const http = error as HttpError;
      return page(ctxc, http.status, http.status === 404 ? 'Not found' : http.status === 409 ? 'Conflict' : 'Bad request', <p>{http.message}</p>);
    }
    if (isValidationError(error)) return page(ctxc, 400, 'Bad request', <p>{error.message}</p>);
    if (isA(error, HTTPException) && (error as HTTPException).status === 403) {
      // Hono's csrf(): a form posted from another origin.
      return page(ctxc, 403, 'Cross-site request refused', <p>This form did not come from this dashboard's own pages. Nothing was changed.</p>);
    }
    if (isA(error, HTTPException)) return (error as HTTPException).getResponse();
    try {
      const reported: unknown = onError(error, c.req.raw);
      void Promise.resolve(reported).catch(() => {}); // an async onError that rejects changes nothing
    } catch {
      // the error page is shown whatever the hook does
    }
    if (!ctxc.get('principal')) return bare(ctxc, 500, 'Error', 'Something went wrong.');
    return page(ctxc, 500, 'Something went wrong', <p>The request failed: {failureText(error)}</p>);
  });

  const fetch = async (request: Request): Promise<Response> => app.fetch(request);
  const listener = getRequestListener(fetch);
  const nodeListener = (req: IncomingMessage, res: ServerResponse) => {
    const original = (req as IncomingMessage & { originalUrl?: unknown }).originalUrl;
    if (typeof original === 'string' && original.startsWith('/')) req.url = original;
    void listener(req, res);
  };
  return { fetch, nodeListener, basePath: base };
}
