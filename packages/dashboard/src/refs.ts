// References to names in links and forms: a name itself, or a short digest of a long one that would not fit a URL.
import { createHash } from 'node:crypto';

/**
 * Names longer than this go into links as a digest: a resource id, group or consumer name may be
 * 65,536 characters, which percent-encoded exceeds what HTTP servers take in a request line
 * (Node's default is 16 KiB for the whole head).
 */
export const REF_LIMIT = 256;

/** The digest of a long name: 128 bits of SHA-256, base64url. */
export const digestOf = (name: string) => createHash('sha256').update(name, 'utf8').digest('base64url').slice(0, 22);

/** A digest as it appears in a link (22 base64url characters). */
export const DIGEST = /^[\w-]{22}$/;

/** `{ [param]: name }`, or `{ [param + 'h']: digest }` for a long name. */
export function ref(param: 'id' | 'group' | 'consumer', name: string): Record<string, string> {
  return name.length > REF_LIMIT ? { [`${param}h`]: digestOf(name) } : { [param]: name };
}
