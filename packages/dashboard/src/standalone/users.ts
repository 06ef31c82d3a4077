// Users and tokens of the standalone server, compared as SHA-256 digests.
import { createHash, timingSafeEqual } from 'node:crypto';
import { RespireValidationError } from '@respire/admin';
import type { Principal } from '../auth.js';

/** One user of the standalone dashboard: a name, a role and a secret token (or its SHA-256). */
export interface StandaloneUser {
  readonly name: string;
  readonly role: 'viewer' | 'operator';
  /** The secret itself (at least 16 characters, see {@link tokenWeakness}), e.g. from an environment variable. */
  readonly token?: string;
  /** Or its SHA-256 in hex, as a users file should store it. */
  readonly tokenSha256?: string;
}

export const MIN_TOKEN_LENGTH = 16;
/** A token must use at least this many different characters: `aaaa…` or `abab…` guess in seconds. */
export const MIN_DISTINCT_CHARACTERS = 8;
/** The least entropy a token's characters show (Shannon entropy of its character counts × its length), in bits. */
export const MIN_TOKEN_BITS = 48;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** A user as the server keeps it: the principal and the SHA-256 of its token. */
export interface Credential {
  readonly principal: Principal;
  readonly digest: Buffer;
}

/**
 * Why a token is too weak to protect a dashboard, or undefined when it is not: shorter than 16
 * characters, whitespace or control characters in it (a copy-paste slip, or a token of blanks),
 * fewer than 8 different characters (all one character, a short pattern repeated), or less than
 * 48 bits in its character counts. A random token passes: `openssl rand -hex 24`.
 */
export function tokenWeakness(token: string): string | undefined {
  if (token.length < MIN_TOKEN_LENGTH) return `the token must be at least ${MIN_TOKEN_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f-\u009f]/u.test(token)) return 'the token must not contain whitespace or control characters';
  const counts = new Map<string, number>();
  const chars = [...token];
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  if (counts.size < MIN_DISTINCT_CHARACTERS) {
    return `the token uses only ${counts.size} different character${counts.size === 1 ? '' : 's'}: use a random one (openssl rand -hex 24)`;
  }
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / chars.length) * Math.log2(n / chars.length);
  if (perChar * chars.length < MIN_TOKEN_BITS) return 'the token is too predictable: use a random one (openssl rand -hex 24)';
  return undefined;
}

/**
 * Checks users up front: names unique, roles known, tokens strong enough.
 * @throws {@link RespireValidationError} naming the first wrong user (`users[i]...`).
 */
export function checkUsers(users: readonly StandaloneUser[]): Credential[] {
  if (!Array.isArray(users) || users.length === 0) throw new RespireValidationError('users', 'respire-dashboard needs at least one user (a token)');
  const names = new Set<string>();
  return users.map((user, i) => {
    if (typeof user?.name !== 'string' || !/^[\w.@+-]{1,64}$/.test(user.name))
      throw new RespireValidationError(`users[${i}].name`, 'must be 1-64 characters of letters, digits and . @ + - _');
    if (names.has(user.name)) throw new RespireValidationError(`users[${i}].name`, `'${user.name}' appears twice`);
    names.add(user.name);
    if (user.role !== 'viewer' && user.role !== 'operator') throw new RespireValidationError(`users[${i}].role`, "must be 'viewer' or 'operator'");
    let digest: Buffer;
    if (typeof user.token === 'string') {
      const weak = tokenWeakness(user.token);
      if (weak) throw new RespireValidationError(`users[${i}].token`, `(${user.name}) ${weak}`);
      digest = sha256(user.token);
    } else if (typeof user.tokenSha256 === 'string' && /^[0-9a-f]{64}$/i.test(user.tokenSha256)) {
      digest = Buffer.from(user.tokenSha256, 'hex');
    } else {
      throw new RespireValidationError(`users[${i}]`, `(${user.name}) needs a token or a tokenSha256 (64 hex digits)`);
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
