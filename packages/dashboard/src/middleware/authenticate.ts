// Authentication middleware: runs `authorize` on every route but the static assets.
import type { MiddlewareHandler } from 'hono';
import { CallbackTimeout, checkPrincipal, within, type Principal } from '../auth.js';
import type { Env } from '../http.js';
import type { Settings } from '../options.js';
import { bare } from '../respond.js';

/**
 * Authentication of every route but the static assets: `authorize` decides, its answer is
 * checked (null → 401; a throw or a malformed principal → 403), and the principal gets a CSRF
 * token for the forms of the page.
 */
export function authenticate(s: Settings): MiddlewareHandler<Env> {
  return async (c, next) => {
    c.header('Cache-Control', 'no-store');
    let principal: Principal | 'invalid' | null;
    try {
      principal = checkPrincipal(await within(s.authorize(c.req.raw), s.authorizeTimeoutMs, 'authorize'));
    } catch (error) {
      if (error instanceof CallbackTimeout) return bare(c, s.base, 503, 'Sign-in check timed out', 'The sign-in check did not answer in time. Try again.');
      principal = 'invalid';
    }
    if (principal === null) return bare(c, s.base, 401, 'Sign-in required', 'This dashboard needs an authenticated user.');
    if (principal === 'invalid') return bare(c, s.base, 403, 'Not allowed', 'You are not allowed to use this dashboard.');
    c.set('principal', principal);
    c.set('csrfToken', s.tokens.issue(principal.name));
    await next();
  };
}
