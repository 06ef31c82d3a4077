// A queue message's headers, stored as one field of its entry (formats/queue-entries.ts): the one
// writer and reader. Lua never parses them; it copies the field's bytes (lua/includes/queue-entries.lua).

/** Most headers of one message. */
export const MAX_HEADERS = 64;
/** Most bytes of one message's encoded headers (64 KiB): names, values and their framing together. */
export const MAX_HEADERS_BYTES = 65_536;

/** A message's headers: string names, each with a string or bytes value. */
export type MessageHeaders = Readonly<Record<string, string | Uint8Array>>;

/** Headers as read back: a string stays a string, bytes come back as a Buffer. */
export type ReceivedHeaders = Readonly<Record<string, string | Buffer>>;

/**
 * The encoding, version 1: the byte `1`, then per header `<name length>:<name>` followed by `s`
 * (a string, UTF-8) or `b` (bytes) and `<value length>:<value>`; lengths are byte counts in
 * decimal. No headers: no field at all. For example `{ a: 'x', b: <01 02> }` is
 * `1` `1:a` `s1:x` `1:b` `b2:<01 02>`.
 */
const VERSION = 0x31; // '1'

/** Encodes headers already checked (names nonempty, well-formed; values strings or bytes), in the given order. */
export function writeHeaders(entries: readonly (readonly [string, string | Uint8Array])[]): Buffer {
  const parts: Buffer[] = [Buffer.from([VERSION])];
  for (const [name, value] of entries) {
    const key = Buffer.from(name, 'utf8');
    const isText = typeof value === 'string';
    const bytes = isText ? Buffer.from(value, 'utf8') : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    parts.push(Buffer.from(`${key.length}:`, 'latin1'), key, Buffer.from(`${isText ? 's' : 'b'}${bytes.length}:`, 'latin1'), bytes);
  }
  return Buffer.concat(parts);
}

/**
 * Reads encoded headers.
 * @returns `{ headers }` (a null-prototype object; values copied), or `{ problem }` saying why
 *   `bytes` are not headers of this format.
 */
export function readHeaders(bytes: Buffer): { readonly headers: ReceivedHeaders } | { readonly problem: string } {
  const headers: Record<string, string | Buffer> = Object.create(null) as Record<string, string | Buffer>;
  if (bytes.length === 0) return { headers };
  if (bytes[0] !== VERSION) return { problem: 'headers are not of version 1' };
  let at = 1;
  let count = 0;
  const length = (): number | undefined => {
    const colon = bytes.indexOf(0x3a, at);
    if (colon < 0 || colon === at || colon - at > 10) return undefined;
    const digits = bytes.toString('latin1', at, colon);
    if (!/^\d+$/.test(digits)) return undefined;
    const n = Number(digits);
    at = colon + 1;
    return at + n <= bytes.length ? n : undefined;
  };
  while (at < bytes.length) {
    const nameLength = length();
    if (nameLength === undefined || nameLength === 0) return { problem: `header ${count + 1} has no name` };
    const name = bytes.toString('utf8', at, at + nameLength);
    at += nameLength;
    const kind = bytes[at];
    if (kind !== 0x73 && kind !== 0x62) return { problem: `header ${JSON.stringify(name)} is neither a string nor bytes` };
    at += 1;
    const valueLength = length();
    if (valueLength === undefined) return { problem: `header ${JSON.stringify(name)} has no value` };
    const value = bytes.subarray(at, at + valueLength);
    at += valueLength;
    if (Object.hasOwn(headers, name)) return { problem: `header ${JSON.stringify(name)} appears twice` };
    headers[name] = kind === 0x73 ? value.toString('utf8') : Buffer.from(value);
    count += 1;
  }
  return { headers };
}
