// The gate of every state change: POST only, same origin, operators, a valid CSRF token.
import type { Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { csrf } from 'hono/csrf';
import { form, type Env } from '../http.js';
import type { Settings } from '../options.js';
import { bare, page } from '../respond.js';

/**
 * The gate of every state change: `/actions/*` are POST only, same-origin (Origin or
 * Sec-Fetch-Site), small, from an operator, with a valid CSRF token of that operator;
 * `/confirm/*` pages are for operators only.
 */
export function guardStateChanges(routes: Hono<Env>, s: Settings): void {
  routes.use('/actions/*', async (c, next) => {
    if (c.req.method !== 'POST') return bare(c, s.base, 405, 'Method not allowed', 'Actions are POST requests.', { Allow: 'POST' });
    await next();
  });
  routes.use('/actions/*', csrf({ origin: (origin, c) => origin === new URL(c.req.url).origin || s.allowedOrigins.has(origin) }));
  // Forms carry names of up to 65,536 characters (a resource id, a group, a consumer) and up to 1,000 record IDs.
  routes.use('/actions/*', bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => bare(c, s.base, 413, 'Too large', 'The form was too large.') }));
  routes.use('/actions/*', operatorsOnly(s), async (c, next) => {
    const token = (await form(c))['_csrf'] ?? c.req.header('x-csrf-token');
    if (!s.tokens.verify(c.get('principal').name, token)) {
      return page(
        s,
        c,
        403,
        'Form expired or from another site',
        <p>The form's security token is missing, expired or not yours. Nothing was changed: reload the page and try again.</p>,
      );
    }
    await next();
  });
  routes.use('/confirm/*', operatorsOnly(s));
  // A confirmation page reached by POST (a selection of records) changes nothing, but comes only from the dashboard's own pages.
  routes.post('/confirm/*', csrf({ origin: (origin, c) => origin === new URL(c.req.url).origin || s.allowedOrigins.has(origin) }));
  routes.post('/confirm/*', bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => bare(c, s.base, 413, 'Too large', 'The form was too large.') }));
}

/** The largest form an action or a confirmation takes: 1 MiB. */
const MAX_FORM_BYTES = 1024 * 1024;

function operatorsOnly(s: Settings): MiddlewareHandler<Env> {
  return async (c, next) => {
    const principal = c.get('principal');
    if (principal.role !== 'operator') return page(s, c, 403, 'Not allowed', <p>Your role ({principal.role}) may read but not change anything.</p>);
    await next();
  };
}
