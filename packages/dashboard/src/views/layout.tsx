// The page layout: header, crumbs, refresh controls, notices, footer; and links.
import type { Child } from 'hono/jsx';
import type { Principal } from '../auth.js';
import { serverTime, shown } from '../format.js';
import { Head } from './bare.js';

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

export interface Crumb {
  readonly label: string;
  readonly href?: string;
}

/** A one-line result or warning at the top of a page. */
export type Notice = { readonly kind: 'ok' | 'warn' | 'error'; readonly text: string } | undefined;

export interface LayoutProps {
  readonly ctx: PageContext;
  readonly title: string;
  readonly crumbs?: readonly Crumb[];
  readonly serverTimeMs?: number;
  readonly notice?: Notice;
  readonly children?: Child;
}

const NOTICE_PARAMS = ['done', 'record', 'newId', 'n', 'failed', 'remain', 'entry', 'deleted', 'kept'];

function RefreshControls({ ctx }: { ctx: PageContext }) {
  const polling = ctx.pollIntervalMs > 0 && ctx.query.get('refresh') === 'on';
  const withRefresh = (on: boolean) => {
    const query = new URLSearchParams(ctx.query);
    // A refreshed page shows the state now, not the notice of the action that led to it.
    for (const name of NOTICE_PARAMS) query.delete(name);
    if (on) query.set('refresh', 'on');
    else query.delete('refresh');
    // Relative to the current page, never built from the request's path: a page reached as
    // `//evil.example/` must not link to another site.
    return `?${query.toString()}`;
  };
  return (
    <div class="refresh">
      <a class="button secondary" href={withRefresh(polling)} id="refresh-now">
        Refresh
      </a>
      {ctx.pollIntervalMs > 0 ? (
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

export function Layout({ ctx, title, crumbs = [], serverTimeMs, notice, children }: LayoutProps) {
  const polling = ctx.pollIntervalMs > 0 && ctx.query.get('refresh') === 'on';
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
                <li>{crumb.href ? <a href={crumb.href}>{shown(crumb.label)}</a> : <span aria-current="page">{shown(crumb.label)}</span>}</li>
              ))}
            </ol>
          </nav>
          <div class="who">
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
            <h1>{shown(title)}</h1>
            <RefreshControls ctx={ctx} />
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
