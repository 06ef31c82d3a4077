// The dashboard's options, checked and resolved into the settings every route reads.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RespireValidationError, type AdminApi } from '@respire/admin';
import { isAnonymousOperator, type Authorize, type Guard, type GroupedQueueGuard, type TopicGuard } from './auth.js';
import { CsrfTokens } from './csrf.js';
import { ResourceIndex } from './resources.js';

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
   * Per-topic authorization: topics it refuses are left out of the topics list and answer 404.
   * @defaultValue every topic is visible when no `guard` is set; with a `guard` and no
   *   `topicGuard`, no topic is (a guard written for queues and streams never decided about topics)
   */
  readonly topicGuard?: TopicGuard;
  /**
   * Per-grouped-queue authorization: grouped queues it refuses are left out of the list and answer 404.
   * @defaultValue every grouped queue is visible when no `guard` is set; with a `guard` and no
   *   `groupedQueueGuard`, none is (fail closed, as for topics)
   */
  readonly groupedQueueGuard?: GroupedQueueGuard;
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
  /**
   * Record history samples of every resource in this process (`admin.recordHistory` on an
   * interval: `true` for every 60 s, or `{ intervalMs }`, 1 s..1 day), for the history pages.
   * Several dashboards share the work: a resource sampled within the interval is skipped.
   * @defaultValue false: the history pages show what other samplers (or `respire history record`) kept
   */
  readonly history?: boolean | { readonly intervalMs?: number };
  /**
   * A consumer whose last read or claim is more recent than this counts as active, ms
   * (1,000..86,400,000): a worker blocked in a read is seen again at least every read wait (5 s
   * by default). @defaultValue 30_000
   */
  readonly consumerActiveMs?: number;
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
  /**
   * How long `authorize` and `guard` may take per call before the request is answered 503,
   * 100..120_000. @defaultValue 10_000
   */
  readonly authorizeTimeoutMs?: number;
  /**
   * Called with unexpected errors. The 500 page shows only the error's class name and
   * `info.reference`, never its message (it may name a host, a password in a URL, a hidden key).
   * @defaultValue `console.error` with the reference
   */
  readonly onError?: (error: unknown, request: Request, info: { readonly reference: string }) => void;
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
  /** Stops the history sampler, if the dashboard runs one. Jobs belong to the admin (`admin.stopJobs()`). */
  close(): Promise<void>;
}

/** The options, checked and resolved: what every route and middleware reads. */
export interface Settings {
  readonly admin: AdminApi;
  readonly authorize: Authorize;
  readonly guard: Guard | undefined;
  readonly topicGuard: TopicGuard | undefined;
  readonly groupedQueueGuard: GroupedQueueGuard | undefined;
  readonly authorizeTimeoutMs: number;
  /** Base path without a trailing slash ('' at the root). */
  readonly base: string;
  readonly pollIntervalMs: number;
  readonly pageSize: number;
  readonly history: { readonly intervalMs: number } | undefined;
  readonly consumerActiveMs: number;
  readonly tokens: CsrfTokens;
  /** Resources by the digest of their id (links to long ids). */
  readonly resources: ResourceIndex;
  readonly anonymous: boolean;
  readonly allowedOrigins: ReadonlySet<string>;
  readonly signOutPath: string | undefined;
  readonly onError: (error: unknown, request: Request, info: { readonly reference: string }) => void;
}

function normalizeBase(basePath: string | undefined): string {
  const base = (basePath ?? '/').trim();
  if (!base.startsWith('/') || /[?#\\]|\/\//.test(base))
    throw new RespireValidationError('basePath', `must be an absolute path like '/ops/respire' (got ${JSON.stringify(basePath)})`);
  return base.replace(/\/+$/, '');
}

function checkRange(name: string, value: number | undefined, fallback: number, min: number, max: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || ((value < min || value > max) && !(allowZero && value === 0))) {
    throw new RespireValidationError(name, `must be a whole number from ${min} to ${max}${allowZero ? ' or 0' : ''} (got ${String(value)})`);
  }
  return value;
}

function historyOption(value: DashboardOptions['history']): Settings['history'] {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { intervalMs: 60_000 };
  if (typeof value !== 'object' || value === null) throw new RespireValidationError('history', 'must be a boolean or { intervalMs }');
  return { intervalMs: checkRange('history.intervalMs', value.intervalMs, 60_000, 1000, 86_400_000) };
}

/** An origin as a browser sends it (`https://ops.example.com`): not `null`, not a pattern, no path. */
function checkOrigin(origin: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.origin !== origin || origin.includes('*')) {
    throw new RespireValidationError('allowedOrigins', `must hold origins like 'https://ops.example.com' (got ${JSON.stringify(origin)})`);
  }
  return origin;
}

/**
 * Checks the options and fills in the defaults.
 * @throws {@link RespireValidationError} naming the first wrong option (its `argument`).
 */
export function resolveOptions(options: DashboardOptions): Settings {
  if (!options || typeof options.admin !== 'object' || options.admin === null)
    throw new RespireValidationError('admin', 'an AdminApi (new RespireAdmin(client, ...)) is required');
  if (typeof options.authorize !== 'function') {
    throw new RespireValidationError('authorize', 'authorize(request) is required (for local development only: dangerouslyAllowAnonymousOperator())');
  }
  if (options.topicGuard !== undefined && typeof options.topicGuard !== 'function') throw new RespireValidationError('topicGuard', 'must be a function');
  if (options.groupedQueueGuard !== undefined && typeof options.groupedQueueGuard !== 'function') {
    throw new RespireValidationError('groupedQueueGuard', 'must be a function');
  }
  if ((options as { bulkLimit?: unknown }).bulkLimit !== undefined) {
    throw new RespireValidationError(
      'bulkLimit',
      'was removed: a retry or delete of every dead letter is now a background job (set its page size and rate with RespireAdmin options.jobs)',
    );
  }
  return {
    admin: options.admin,
    authorize: options.authorize,
    guard: options.guard,
    topicGuard: options.topicGuard,
    groupedQueueGuard: options.groupedQueueGuard,
    authorizeTimeoutMs: checkRange('authorizeTimeoutMs', options.authorizeTimeoutMs, 10_000, 100, 120_000),
    base: normalizeBase(options.basePath),
    pollIntervalMs: checkRange('pollIntervalMs', options.pollIntervalMs, 10_000, MIN_POLL_INTERVAL_MS, MAX_POLL_INTERVAL_MS, true),
    pageSize: checkRange('pageSize', options.pageSize, 50, 1, 1000),
    history: historyOption(options.history),
    consumerActiveMs: checkRange('consumerActiveMs', options.consumerActiveMs, 30_000, 1000, 86_400_000),
    resources: new ResourceIndex(async () => (await options.admin.resources()).resources),
    tokens: new CsrfTokens(options.secret),
    anonymous: isAnonymousOperator(options.authorize),
    allowedOrigins: new Set((options.allowedOrigins ?? []).map(checkOrigin)),
    signOutPath: options.signOutPath,
    onError: options.onError ?? ((error, _request, { reference }) => console.error(`respire dashboard: error ${reference}:`, error)),
  };
}
