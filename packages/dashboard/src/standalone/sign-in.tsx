// The standalone server's sign-in and sign-out routes.
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, setCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { securityHeaders } from '../middleware/headers.js';
import { BareDocument } from '../views/bare.js';
import type { FailureLimiter } from './limiter.js';
import type { Sessions } from './sessions.js';
import { match, type Credential } from './users.js';

export interface SignInOptions {
  /** Base path without a trailing slash ('' at the root). */
  readonly base: string;
  readonly credentials: readonly Credential[];
  readonly sessions: Sessions;
  readonly limiter: FailureLimiter;
}

/** The client's address as the socket saw it (never a forwarded header). */
export const clientAddress = (c: Context) => {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
};

/**
 * Where to go after signing in: a path of the dashboard, else its overview. The path is parsed
 * as a browser would (dot segments resolved, percent-escapes kept) and then rebuilt: one leading
 * slash, never two and never a backslash (both read as another site: `//evil`, `/\evil`,
 * `/.//evil` once the dot segment goes), printable ASCII only (a browser drops tabs and line
 * breaks from a Location, so `/\t/evil.example` would leave too), inside the base path.
 */
export function safeNext(base: string, next: unknown): string {
  const home = `${base}/`;
  if (typeof next !== 'string' || !/^\/[\x21-\x7e]*$/.test(next) || next.includes('\\')) return home;
  let url: URL;
  try {
    url = new URL(next, 'http://dashboard.invalid');
  } catch {
    return home;
  }
  if (url.origin !== 'http://dashboard.invalid' || url.username || url.password) return home;
  const path = url.pathname;
  // After the dot segments are resolved: still one slash, no empty segment, no encoded slash or backslash.
  if (!/^\/(?!\/)/.test(path) || path.includes('//') || /%2f|%5c/i.test(path)) return home;
  if (!(path === base || path.startsWith(home))) return home;
  const target = `${path}${url.search}`;
  return /^\/[\x21-\x7e]*$/.test(target) && !target.startsWith('//') ? target : home;
}

/** `GET/POST <base>/login` and `POST <base>/logout`: the sign-in form and the session cookie. */
export function signInRoutes({ base, credentials, sessions, limiter }: SignInOptions): Hono {
  const login = new Hono();
  for (const path of [`${base}/login`, `${base}/logout`]) {
    login.use(path, securityHeaders({ scripts: false }), csrf(), async (c, next) => {
      c.header('Cache-Control', 'no-store');
      await next();
    });
  }
  login.use(`${base}/login`, bodyLimit({ maxSize: 16 * 1024, onError: (c) => c.text('The form was too large.', 413) }));

  login.get(`${base}/login`, (c) => c.html(<SignInPage base={base} next={safeNext(base, c.req.query('next'))} />));
  login.post(`${base}/login`, async (c) => {
    const address = clientAddress(c);
    const next = async () => safeNext(base, (await c.req.parseBody())['next']);
    const locked = limiter.lockedFor(address);
    if (locked > 0) {
      c.header('Retry-After', String(locked));
      return c.html(<SignInPage base={base} next={await next()} problem={`Too many failed sign-ins from your address: try again in ${locked} s.`} />, 429);
    }
    limiter.begin(address);
    let form: Record<string, unknown>;
    try {
      form = await c.req.parseBody();
    } catch (error) {
      limiter.end(address);
      throw error;
    }
    const name = typeof form['name'] === 'string' ? form['name'] : '';
    const token = typeof form['token'] === 'string' ? form['token'] : '';
    const principal = token && name ? match(credentials, token, name) : null;
    if (!principal) {
      await limiter.fail(address, name.slice(0, 64));
      return c.html(<SignInPage base={base} next={await next()} problem="Unknown user or wrong token." />, 401);
    }
    limiter.succeed(address, principal.name);
    // A new session at every sign-in: no ID the browser brought along is ever kept.
    sessions.end(c.req.raw);
    setCookie(c, sessions.cookieName, sessions.start(principal), {
      httpOnly: true,
      sameSite: 'Strict',
      secure: sessions.secure,
      path: sessions.secure ? '/' : base || '/',
      maxAge: sessions.ttlSeconds,
    });
    return c.redirect(await next(), 303);
  });
  login.post(`${base}/logout`, (c) => {
    sessions.end(c.req.raw);
    deleteCookie(c, sessions.cookieName, { path: sessions.secure ? '/' : base || '/', secure: sessions.secure });
    return c.redirect(`${base}/login`, 303);
  });
  return login;
}

function SignInPage({ base, next, problem }: { base: string; next: string; problem?: string }) {
  return (
    <BareDocument base={base} title="Sign in" heading="Respire dashboard">
      {problem ? (
        <p class="notice error" role="alert">
          {problem}
        </p>
      ) : null}
      <form method="post" action={`${base}/login`} class="login">
        <input type="hidden" name="next" value={next} />
        <p>
          <label for="name">User</label>
          <br />
          <input id="name" name="name" autocomplete="username" required />
        </p>
        <p>
          <label for="token">Token</label>
          <br />
          <input id="token" name="token" type="password" autocomplete="current-password" required />
        </p>
        <button type="submit" class="button primary">
          Sign in
        </button>
      </form>
    </BareDocument>
  );
}
