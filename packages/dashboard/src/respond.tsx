// Responses: page contexts, bare and message pages, redirects and pagers.
import type { Child } from 'hono/jsx';
import type { Ctx } from './http.js';
import type { Settings } from './options.js';
import { BareDocument } from './views/bare.js';
import { href, MessagePage, type PageContext } from './views/layout.js';

/** What the page components need from this request: links, the principal, its CSRF token. */
export function ctxOf(s: Settings, c: Ctx): PageContext {
  const url = new URL(c.req.url);
  return {
    base: s.base,
    principal: c.get('principal'),
    csrfToken: c.get('csrfToken'),
    anonymous: s.anonymous,
    query: url.searchParams,
    pollIntervalMs: s.pollIntervalMs,
    signOutPath: s.signOutPath,
  };
}

/** A bare page (no principal known, no data): 401, 403, 405, 413 and early errors. */
export function bare(c: Ctx, base: string, status: number, title: string, text: string, headers: Record<string, string> = {}) {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  c.header('Cache-Control', 'no-store');
  return c.html(
    <BareDocument base={base} title={title}>
      <p>{text}</p>
    </BareDocument>,
    status as 401,
  );
}

/** A message page in the dashboard's layout, for a signed-in principal. */
export function page(s: Settings, c: Ctx, status: number, title: string, children: Child) {
  return c.html(
    <MessagePage ctx={ctxOf(s, c)} title={title} status={status}>
      {children}
    </MessagePage>,
    status as 200,
  );
}

/** 303 to a page of the dashboard (after an action: the result shows as a notice there). */
export const redirect = (s: Settings, c: Ctx, path: string, params: Record<string, string | number | undefined>) =>
  c.redirect(href({ base: s.base }, path, params), 303);

/** First-page and next-page links of a cursor-paged table. */
export function cursorPager(ctx: PageContext, path: string, keep: Record<string, string | undefined>, cursor: string | undefined, next: string | undefined) {
  return { first: cursor ? href(ctx, path, keep) : undefined, next: next ? href(ctx, path, { ...keep, cursor: next }) : undefined };
}
