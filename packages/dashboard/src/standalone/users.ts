import { createHash, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../auth.js';

/** One user of the standalone dashboard: a name, a role and a secret token (or its SHA-256). */
export interface StandaloneUser {
  readonly name: string;
  readonly role: 'viewer' | 'operator';
  /** The secret itself (at least 16 characters), e.g. from an environment variable. */
  readonly token?: string;
  /** Or its SHA-256 in hex, as a users file should store it. */
  readonly tokenSha256?: string;
}

export const MIN_TOKEN_LENGTH = 16;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** A user as the server keeps it: the principal and the SHA-256 of its token. */
export interface Credential {
  readonly principal: Principal;
  readonly digest: Buffer;
}

/** Checks users up front: names unique, roles known, tokens long enough. */
export function checkUsers(users: readonly StandaloneUser[]): Credential[] {
  if (!Array.isArray(users) || users.length === 0) throw new TypeError('respire-dashboard needs at least one user (a token)');
  const names = new Set<string>();
  return users.map((user, i) => {
    if (typeof user?.name !== 'string' || !/^[\w.@+-]{1,64}$/.test(user.name))
      throw new TypeError(`users[${i}].name must be 1-64 characters of letters, digits and . @ + - _`);
    if (names.has(user.name)) throw new TypeError(`users[${i}].name '${user.name}' appears twice`);
    names.add(user.name);
    if (user.role !== 'viewer' && user.role !== 'operator') throw new TypeError(`users[${i}].role must be 'viewer' or 'operator'`);
    let digest: Buffer;
    if (typeof user.token === 'string') {
      if (user.token.length < MIN_TOKEN_LENGTH) throw new TypeError(`users[${i}] (${user.name}): the token must be at least ${MIN_TOKEN_LENGTH} characters`);
      digest = sha256(user.token);
    } else if (typeof user.tokenSha256 === 'string' && /^[0-9a-f]{64}$/i.test(user.tokenSha256)) {
      digest = Buffer.from(user.tokenSha256, 'hex');
    } else {
      throw new TypeError(`users[${i}] (${user.name}) needs a token or a tokenSha256 (64 hex digits)`);
    }
    return { principal: { name: user.name, role: user.role }, digest };
  });
}

/**
 * The user whose token this is, compared in constant time against every user's digest (the
 * comparison count and time do not depend on which user, if any, matched). With `name`, the
 * name must match too.
 */
export function match(credentials: readonly Credential[], token: string, name?: string): Principal | null {
  const digest = sha256(token);
  let found: Principal | null = null;
  for (const credential of credentials) {
    if (timingSafeEqual(credential.digest, digest) && (name === undefined || name === credential.principal.name)) found = credential.principal;
  }
  return found;
}

/** The principal an `Authorization: Bearer <token>` or `Basic name:token` header names, else null. */
export function fromAuthorizationHeader(credentials: readonly Credential[], header: string): Principal | null {
  if (header.startsWith('Bearer ')) return match(credentials, header.slice(7).trim());
  if (header.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? null : match(credentials, decoded.slice(colon + 1), decoded.slice(0, colon));
  }
  return null;
}
