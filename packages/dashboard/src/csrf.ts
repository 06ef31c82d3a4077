// Stateless CSRF tokens bound to the principal (HMAC-SHA256).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { RespireValidationError } from '@respire/admin';

/** How long a form's token stays valid: a page left open over a long shift still works. */
export const CSRF_TOKEN_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * Synchronizer tokens without server state: `<issued ms>.<HMAC-SHA256(secret, principal \n issued)>`.
 * A token is bound to the principal's name, so one user's token is worthless to another, and
 * it expires after {@link CSRF_TOKEN_TTL_MS}.
 */
export class CsrfTokens {
  readonly #secret: Buffer;

  constructor(secret?: string | Uint8Array) {
    if (secret === undefined) this.#secret = randomBytes(32);
    else {
      const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
      if (bytes.length < 32) throw new RespireValidationError('secret', `must be at least 32 bytes (got ${bytes.length})`);
      this.#secret = bytes;
    }
  }

  issue(principal: string, nowMs = Date.now()): string {
    const issued = String(Math.floor(nowMs));
    return `${issued}.${this.#mac(principal, issued)}`;
  }

  verify(principal: string, token: unknown, nowMs = Date.now()): boolean {
    if (typeof token !== 'string' || token.length > 200) return false;
    const dot = token.indexOf('.');
    if (dot <= 0) return false;
    const issued = token.slice(0, dot);
    if (!/^\d{1,16}$/.test(issued)) return false;
    const age = nowMs - Number(issued);
    if (age < -60_000 || age > CSRF_TOKEN_TTL_MS) return false;
    const given = Buffer.from(token.slice(dot + 1), 'utf8');
    const expected = Buffer.from(this.#mac(principal, issued), 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  #mac(principal: string, issued: string): string {
    return createHmac('sha256', this.#secret).update(`csrf\n${principal}\n${issued}`).digest('base64url');
  }
}
