// createDashboard: the routes, middleware and handlers of the dashboard.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { HistorySampler } from '@respire/admin';
import { Hono } from 'hono';
import { assetRoutes } from './assets.js';
import type { Env } from './http.js';
import { authenticate } from './middleware/authenticate.js';
import { errorPage, notFound } from './middleware/errors.js';
import { securityHeaders } from './middleware/headers.js';
import { guardStateChanges } from './middleware/state-changes.js';
import { resolveOptions, type Dashboard, type DashboardOptions } from './options.js';
import { actionRoutes } from './routes/actions.js';
import { apiRoutes } from './routes/api.js';
import { deadLetterRoutes } from './routes/dead-letters.js';
import { groupRoutes } from './routes/groups.js';
import { jobRoutes } from './routes/jobs.js';
import { messageRoutes } from './routes/messages.js';
import { overviewRoutes } from './routes/overview.js';
import { resourceRoutes } from './routes/resources.js';
import { topicActionRoutes } from './routes/topic-actions.js';
import { groupedRoutes } from './routes/grouped.js';
import { partitionedRoutes } from './routes/partitioned.js';
import { topicRoutes } from './routes/topics.js';

export { MIN_POLL_INTERVAL_MS } from './options.js';
export type { Dashboard, DashboardOptions } from './options.js';

/**
 * The authorized Respire dashboard: server-rendered pages over the admin API, and the retry,
 * delete, release, ack and idle-consumer actions, each authorized on the server, CSRF-checked
 * and audited by the admin API with the principal as the actor.
 *
 * @throws {@link RespireValidationError} when an option is missing or out of range (its `argument` names it).
 * @example
 * ```ts
 * const dashboard = createDashboard({ admin, authorize, basePath: '/ops/respire' });
 * http.createServer(dashboard.nodeListener).listen(8080, '127.0.0.1');
 * ```
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  const s = resolveOptions(options);
  if (s.anonymous) {
    process.emitWarning(
      'Respire dashboard: dangerouslyAllowAnonymousOperator() lets anyone who reaches it retry and delete. Development only.',
      'SecurityWarning',
    );
  }

  const app = new Hono<Env>({ strict: false });
  // On the app, not under the base path: a 404 outside it (another case, a longer prefix) gets them too.
  app.use('*', securityHeaders());
  const routes = s.base === '' ? app : app.basePath(s.base);
  assetRoutes(routes);
  routes.use('*', authenticate(s));
  guardStateChanges(routes, s);
  overviewRoutes(routes, s);
  resourceRoutes(routes, s);
  messageRoutes(routes, s);
  groupRoutes(routes, s);
  deadLetterRoutes(routes, s);
  jobRoutes(routes, s);
  topicRoutes(routes, s);
  groupedRoutes(routes, s);
  partitionedRoutes(routes, s);
  topicActionRoutes(routes, s);
  apiRoutes(routes);
  actionRoutes(routes, s);
  // On the app: a base path's clone would keep its own handler and never use it.
  app.notFound(notFound(s));
  app.onError(errorPage(s));

  const fetch = async (request: Request): Promise<Response> => app.fetch(request);
  const listener = getRequestListener(fetch);
  const nodeListener = (req: IncomingMessage, res: ServerResponse) => {
    const original = (req as IncomingMessage & { originalUrl?: unknown }).originalUrl;
    if (typeof original === 'string' && original.startsWith('/')) req.url = original;
    void listener(req, res);
  };
  // History samples of every resource, when asked: one recording per interval between all samplers.
  const sampler = s.history
    ? new HistorySampler(s.admin, {
        intervalMs: s.history.intervalMs,
        onError: (error, result) => {
          if (error !== undefined) console.error('respire dashboard: history not recorded:', error);
          else for (const f of result?.failed ?? []) console.error(`respire dashboard: history of ${f.id} not recorded: ${f.code} ${f.message}`);
        },
      })
    : undefined;
  return { fetch, nodeListener, basePath: s.base, close: async () => void (await sampler?.stop()) };
}
