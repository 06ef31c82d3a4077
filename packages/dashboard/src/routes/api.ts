// The scripted client's token flow: GET <base>/api/token answers the CSRF token that actions need, as JSON.
import type { Hono } from 'hono';
import { CSRF_TOKEN_TTL_MS } from '../csrf.js';
import type { Env } from '../http.js';

/**
 * `GET <base>/api/token` → `{ principal, csrfToken, expiresInMs }` for the authenticated principal
 * (a script signs in with whatever `authorize` accepts, e.g. `Authorization: Bearer` on the
 * standalone server). The script then POSTs an action with `X-CSRF-Token: <csrfToken>`, an
 * `Origin` of the dashboard and `Accept: application/json`, and gets the result as JSON.
 */
export function apiRoutes(routes: Hono<Env>): void {
  routes.get('/api/token', (c) => c.json({ principal: c.get('principal'), csrfToken: c.get('csrfToken'), expiresInMs: CSRF_TOKEN_TTL_MS }));
}
