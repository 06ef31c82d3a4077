// The page layout: header, crumbs, refresh controls, notices, footer; and links.
import type { Child } from 'hono/jsx';
import type { Principal } from '../auth.js';
import { serverTime, shown } from '../format.js';
import { Head } from './bare.js';
import { Name } from './name.js';

/** What every page needs to build links and forms. */
export interface PageContext {
  /** Base path without a trailing slash ('' at the root). */
  readonly base: string;
  readonly principal: Principal;
  readonly csrfToken: string;
  readonly anonymous: boolean;
  /** The current page's query (for refresh and paging links). */
  readonly query: URLSearchParams;
  /** Auto-refresh interval offered, 0 when polling is disabled. */
  readonly pollIntervalMs: number;
  /** The host's POST endpoint that signs the user out, if any. */
  readonly signOutPath?: string | undefined;
}

/** A link inside the dashboard: `href(ctx, '/group', { id, group })`. */
export function href(ctx: Pick<PageContext, 'base'>, path: string, params: Readonly<Record<string, string | number | undefined>> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(key, String(value));
  const text = query.toString();
  return `${ctx.base}${path}${text ? `?${text}` : ''}`;
}

/** A breadcrumb: a name (marked like every name) and, unless it is the current page, its link. */
export interface Crumb {
  /** Plain words before the name, e.g. "Queue". */
  readonly kind?: string;
  readonly label: string;
  readonly href?: string;
}

/** A one-line result or warning at the top of a page. */
export type Notice = { readonly kind: 'ok' | 'warn' | 'error'; readonly text: string } | undefined;

export interface LayoutProps {
  readonly ctx: PageContext;
  /** The page's title as text (the browser tab). */
  readonly title: string;
  /** The page's heading when it holds a name (marked); else the title. */
  readonly heading?: Child;
  readonly crumbs?: readonly Crumb[];
  readonly serverTimeMs?: number;
  readonly notice?: Notice;
  /** Poll even when the operator did not turn auto-refresh on (a running job's page). */
  readonly forcePoll?: boolean;
  readonly children?: Child;
}

/** Query parameters of the notice an action's redirect shows: `n` and `n.*`, never a page's own. */
const isNoticeParam = (name: string) => name === 'n' || name.startsWith('n.');

function RefreshControls({ ctx, forced }: { ctx: PageContext; forced: boolean }) {
  const polling = ctx.pollIntervalMs > 0 && (forced || ctx.query.get('refresh') === 'on');
  const withRefresh = (on: boolean) => {
    const query = new URLSearchParams();
    // The page's own parameters stay; a refreshed page shows the state now, not the notice of the action that led to it.
    for (const [name, value] of ctx.query) if (!isNoticeParam(name) && name !== 'refresh') query.append(name, value);
    if (on) query.set('refresh', 'on');
    // Relative to the current page, never built from the request's path: a page reached as
    // `//evil.example/` must not link to another site.
    return `?${query.toString()}`;
  };
  return (
    <div class="refresh">
      <a class="button secondary" href={withRefresh(polling && !forced)} id="refresh-now">
        Refresh
      </a>
      {ctx.pollIntervalMs > 0 && !forced ? (
        polling ? (
          <a class="button secondary on" href={withRefresh(false)}>
            Auto-refresh every {Math.round(ctx.pollIntervalMs / 1000)} s: on
          </a>
        ) : (
          <a class="button secondary" href={withRefresh(true)}>
            Auto-refresh: off
          </a>
        )
      ) : null}
    </div>
  );
}

export function Layout({ ctx, title, heading, crumbs = [], serverTimeMs, notice, forcePoll = false, children }: LayoutProps) {
  const polling = ctx.pollIntervalMs > 0 && (forcePoll || ctx.query.get('refresh') === 'on');
  return (
    <html lang="en">
      <Head base={ctx.base} title={shown(title)}>
        <meta name="referrer" content="no-referrer" />
        <meta name="csrf-token" content={ctx.csrfToken} />
        <script src={`${ctx.base}/assets/dashboard.js`} defer></script>
      </Head>
      <body data-poll-ms={polling ? String(ctx.pollIntervalMs) : undefined}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href={`${ctx.base}/`}>
            Respire
          </a>
          <nav aria-label="Breadcrumb" class="crumbs">
            <ol>
              <li>
                <a href={`${ctx.base}/`}>Overview</a>
              </li>
              {crumbs.map((crumb) => (
                <li>
                  {crumb.kind ? `${crumb.kind} ` : null}
                  {crumb.href ? (
                    <Name value={crumb.label} href={crumb.href} max={40} full={false} />
                  ) : (
                    <span aria-current="page">
                      <Name value={crumb.label} max={40} full={false} />
                    </span>
                  )}
                </li>
              ))}
            </ol>
          </nav>
          <div class="who">
            <a href={`${ctx.base}/topics`}>Topics</a>
            <a href={`${ctx.base}/grouped-queues`}>Grouped queues</a>
            <a href={`${ctx.base}/partitioned-queues`}>Partitioned queues</a>
            <a href={`${ctx.base}/jobs`}>Jobs</a>
            <span class="principal">{shown(ctx.principal.name)}</span>
            <span class={`role role-${ctx.principal.role}`}>{ctx.principal.role}</span>
            {ctx.signOutPath ? (
              <form method="post" action={ctx.signOutPath} class="inline">
                <button type="submit" class="button signout small">
                  Sign out
                </button>
              </form>
            ) : null}
          </div>
        </header>
        {ctx.anonymous ? (
          <p class="banner danger" role="alert">
            Anonymous operator access (dangerouslyAllowAnonymousOperator): anyone who reaches this port may retry and delete. Development only.
          </p>
        ) : null}
        <main id="main">
          <div class="title-row">
            <h1>{heading ?? shown(title)}</h1>
            <RefreshControls ctx={ctx} forced={forcePoll} />
          </div>
          {notice ? (
            <p class={`notice ${notice.kind}`} role={notice.kind === 'ok' ? 'status' : 'alert'}>
              {notice.text}
            </p>
          ) : null}
          {children}
        </main>
        <footer>
          {serverTimeMs !== undefined ? <span>Server time {serverTime(serverTimeMs)}</span> : null}
          <span class="poll-state" aria-live="polite"></span>
        </footer>
      </body>
    </html>
  );
}

/** A bare page for errors and refusals (no data of any resource on it). */
export function MessagePage({ ctx, title, status, children }: { ctx: PageContext; title: string; status: number; children?: Child }) {
  return (
    <Layout ctx={{ ...ctx, pollIntervalMs: 0 }} title={title}>
      <section class={`message status-${status}`}>{children}</section>
      <p>
        <a href={`${ctx.base}/`}>Back to the overview</a>
      </p>
    </Layout>
  );
}
