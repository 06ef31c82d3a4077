// Responses: page contexts, bare and message pages, redirects after actions (or JSON for scripted clients).
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

/** True when a scripted client asked for JSON (`Accept: application/json`) rather than a page. */
export const wantsJson = (c: Ctx) => (c.req.header('accept') ?? '').includes('application/json');

/**
 * After an action: a scripted client that asked for JSON gets `result` (with `status` 200), a
 * browser a 303 to the page that shows it, whose notice comes from `params`.
 */
export function done(s: Settings, c: Ctx, result: unknown, path: string, params: Record<string, string | number | undefined>) {
  if (wantsJson(c)) return c.json(result as object, 200);
  return c.redirect(href({ base: s.base }, path, params), 303);
}

/** After an action that did not happen (409): JSON for a scripted client, else the page. */
export function refused(s: Settings, c: Ctx, result: unknown, title: string, children: Child) {
  if (wantsJson(c)) return c.json(result as object, 409);
  return page(s, c, 409, title, children);
}
