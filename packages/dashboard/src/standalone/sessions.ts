// Server-side sessions of the standalone server: bounded per user, so one user's sign-ins never end another's sessions.
import { randomBytes } from 'node:crypto';
import type { Principal } from '../auth.js';

const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Live sessions one user keeps at most; signing in past it ends that user's oldest session (never another user's). */
export const MAX_SESSIONS_PER_USER = 32;

/**
 * Server-side sessions: a random 256-bit ID in the cookie, the principal in memory. Signing out
 * ends the session here (a copied cookie is worthless afterwards); all sessions end when the
 * process stops. Each user keeps at most {@link MAX_SESSIONS_PER_USER}: a flood of sign-ins with
 * one valid token ends only that token's own older sessions, and memory stays bounded by the
 * number of users. The cookie is `__Host-respire_session` (Path=/, Secure) when served over
 * HTTPS, so a sibling subdomain cannot plant one.
 */
export class Sessions {
  readonly #sessions = new Map<string, { principal: Principal; expiresMs: number }>();
  /** Session IDs per user name, oldest first. */
  readonly #byUser = new Map<string, string[]>();
  readonly cookieName: string;
  readonly ttlSeconds = SESSION_TTL_MS / 1000;

  constructor(readonly secure: boolean) {
    this.cookieName = secure ? '__Host-respire_session' : 'respire_session';
  }

  /** A new session for `principal`: its ID for the cookie. */
  start(principal: Principal, nowMs = Date.now()): string {
    const ids = (this.#byUser.get(principal.name) ?? []).filter((id) => {
      const session = this.#sessions.get(id);
      if (session && session.expiresMs > nowMs) return true;
      this.#sessions.delete(id);
      return false;
    });
    while (ids.length >= MAX_SESSIONS_PER_USER) this.#sessions.delete(ids.shift()!);
    const id = randomBytes(32).toString('base64url');
    this.#sessions.set(id, { principal, expiresMs: nowMs + SESSION_TTL_MS });
    ids.push(id);
    this.#byUser.set(principal.name, ids);
    return id;
  }

  /** The principal of the request's session cookie, or null (none, unknown, ended or expired). */
  read(request: Request, nowMs = Date.now()): Principal | null {
    const id = this.idOf(request);
    const session = id === undefined ? undefined : this.#sessions.get(id);
    if (!session) return null;
    if (session.expiresMs <= nowMs) {
      this.#forget(id!, session.principal.name);
      return null;
    }
    return session.principal;
  }

  end(request: Request): void {
    const id = this.idOf(request);
    const session = id === undefined ? undefined : this.#sessions.get(id);
    if (session) this.#forget(id!, session.principal.name);
  }

  /** How many live sessions a user has (for tests and the start-up line). */
  countOf(name: string): number {
    return (this.#byUser.get(name) ?? []).filter((id) => this.#sessions.has(id)).length;
  }

  idOf(request: Request): string | undefined {
    for (const part of (request.headers.get('cookie') ?? '').split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === this.cookieName) return part.slice(eq + 1).trim();
    }
    return undefined;
  }

  #forget(id: string, name: string): void {
    this.#sessions.delete(id);
    const ids = this.#byUser.get(name);
    if (!ids) return;
    const rest = ids.filter((x) => x !== id);
    if (rest.length === 0) this.#byUser.delete(name);
    else this.#byUser.set(name, rest);
  }
}
