import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import type { Principal } from '../auth.js';
import { securityHeaders } from '../middleware/headers.js';
import { BareDocument } from '../views/bare.js';
import { match, type Credential } from './users.js';

export const SESSION_COOKIE = 'respire_session';
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** Signed session cookies: `<name>.<expires>.<HMAC>`, with a key that lives as long as the process. */
export class Sessions {
  readonly #key = randomBytes(32);

  constructor(private readonly credentials: readonly Credential[]) {}

  issue(principal: Principal): string {
    const value = `${Buffer.from(principal.name).toString('base64url')}.${Date.now() + SESSION_TTL_MS}`;
    return `${value}.${this.#sign(value)}`;
  }

  read(cookie: string | undefined): Principal | null {
    if (!cookie) return null;
    const [name, expires, mac] = cookie.split('.');
    if (!name || !expires || !mac) return null;
    const expected = Buffer.from(this.#sign(`${name}.${expires}`));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected) || Number(expires) < Date.now()) return null;
    const user = Buffer.from(name, 'base64url').toString('utf8');
    return this.credentials.find((c) => c.principal.name === user)?.principal ?? null;
  }

  /** The session cookie of a request. */
  static cookieOf(request: Request): string | undefined {
    return /(?:^|;\s*)respire_session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  }

  #sign(value: string): string {
    return createHmac('sha256', this.#key).update(value).digest('base64url');
  }
}

export interface SignInOptions {
  readonly base: string;
  readonly credentials: readonly Credential[];
  readonly sessions: Sessions;
  readonly secureCookies: boolean;
}

/** `GET/POST <base>/login` and `POST <base>/logout`: the sign-in form and the session cookie. */
export function signInRoutes({ base, credentials, sessions, secureCookies }: SignInOptions): Hono {
  const cookiePath = base || '/';
  const login = new Hono();
  login.use('*', securityHeaders({ scripts: false }));
  login.use('*', csrf());
  const safeNext = (next: string | undefined) => (next && next.startsWith(`${base}/`) && !next.startsWith('//') && !/[\\\r\n]/.test(next) ? next : `${base}/`);

  login.get(`${base}/login`, (c) => {
    c.header('Cache-Control', 'no-store');
    return c.html(<SignInPage base={base} next={safeNext(c.req.query('next'))} failed={false} />);
  });
  login.post(`${base}/login`, async (c) => {
    c.header('Cache-Control', 'no-store');
    const form = await c.req.parseBody();
    const name = typeof form['name'] === 'string' ? form['name'] : '';
    const token = typeof form['token'] === 'string' ? form['token'] : '';
    const next = safeNext(typeof form['next'] === 'string' ? form['next'] : undefined);
    const principal = token && name ? match(credentials, token, name) : null;
    if (!principal) return c.html(<SignInPage base={base} next={next} failed />, 401);
    setCookie(c, SESSION_COOKIE, sessions.issue(principal), {
      httpOnly: true,
      sameSite: 'Strict',
      secure: secureCookies,
      path: cookiePath,
      maxAge: SESSION_TTL_MS / 1000,
    });
    return c.redirect(next, 303);
  });
  login.post(`${base}/logout`, (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: cookiePath });
    return c.redirect(`${base}/login`, 303);
  });
  return login;
}

function SignInPage({ base, next, failed }: { base: string; next: string; failed: boolean }) {
  return (
    <BareDocument base={base} title="Sign in" heading="Respire dashboard">
      {failed ? <p class="notice error" role="alert">Unknown user or wrong token.</p> : null}
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
        <button type="submit" class="button primary">Sign in</button>
      </form>
    </BareDocument>
  );
}
