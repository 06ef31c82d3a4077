// Server-side sessions of the standalone server.
import { randomBytes } from 'node:crypto';
import type { Principal } from '../auth.js';

const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Live sessions kept at most; signing in past it ends the oldest one. */
const MAX_SESSIONS = 10_000;

/**
 * Server-side sessions: a random 256-bit ID in the cookie, the principal in memory. Signing out
 * ends the session here (a copied cookie is worthless afterwards); all sessions end when the
 * process stops. The cookie is `__Host-respire_session` (Path=/, Secure) when served over HTTPS,
 * so a sibling subdomain cannot plant one.
 */
export class Sessions {
  readonly #sessions = new Map<string, { principal: Principal; expiresMs: number }>();
  readonly cookieName: string;
  readonly ttlSeconds = SESSION_TTL_MS / 1000;

  constructor(readonly secure: boolean) {
    this.cookieName = secure ? '__Host-respire_session' : 'respire_session';
  }

  /** A new session for `principal`: its ID for the cookie. */
  start(principal: Principal, nowMs = Date.now()): string {
    for (const [id, session] of this.#sessions) {
      if (session.expiresMs > nowMs && this.#sessions.size < MAX_SESSIONS) break;
      this.#sessions.delete(id);
    }
    const id = randomBytes(32).toString('base64url');
    this.#sessions.set(id, { principal, expiresMs: nowMs + SESSION_TTL_MS });
    return id;
  }

  /** The principal of the request's session cookie, or null (none, unknown, ended or expired). */
  read(request: Request, nowMs = Date.now()): Principal | null {
    const id = this.idOf(request);
    const session = id === undefined ? undefined : this.#sessions.get(id);
    if (!session) return null;
    if (session.expiresMs <= nowMs) {
      this.#sessions.delete(id!);
      return null;
    }
    return session.principal;
  }

  end(request: Request): void {
    const id = this.idOf(request);
    if (id !== undefined) this.#sessions.delete(id);
  }

  idOf(request: Request): string | undefined {
    for (const part of (request.headers.get('cookie') ?? '').split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === this.cookieName) return part.slice(eq + 1).trim();
    }
    return undefined;
  }
}
