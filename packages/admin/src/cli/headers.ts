// A queue message's headers in the CLI: one line each for a terminal, a list for --json; user data, so always inert.
import type { QueueMessage } from '../api.js';
import { describeBytes } from '../payload.js';
import { safe } from './format.js';

/** Characters of a header's name or value a terminal line shows at most (the rest is in --json). */
export const HEADER_SHOWN_CHARS = 200;

type Headers = QueueMessage['headers'];

/** At most `max` characters, every control character escaped (newlines too: one header, one line). */
function capped(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return safe(text);
  return `${safe(chars.slice(0, max).join(''))}… (${chars.length.toLocaleString('en-US')} characters; --json has it all)`;
}

/** A bytes value on one line: its kind and size, then its text (compact JSON, UTF-8) or hex. */
function bytesLine(value: Buffer): string {
  const view = describeBytes(value, { maxBytes: HEADER_SHOWN_CHARS });
  const text = view.kind === 'json' ? value.toString('utf8') : view.text;
  const cut = view.truncated ? `… (first ${HEADER_SHOWN_CHARS} bytes; --json has it all)` : '';
  return `[bytes, ${view.kind === 'hex' ? 'hex' : 'UTF-8'}, ${view.totalBytes} bytes] ${safe(text)}${cut}`;
}

/**
 * The lines of `messages show` for a message's headers: `headers: none`, `headers: unreadable …`,
 * or a count and one indented `name: value` line per header (string values as text, bytes with
 * their kind and size). Control characters are escaped here; main.ts escapes the whole output again.
 */
export function headerLines(headers: Headers): string[] {
  if (headers === null) return ["headers: unreadable (its headers field is not in the queue's format)"];
  const names = Object.keys(headers);
  if (names.length === 0) return ['headers: none'];
  return [
    `headers (${names.length}):`,
    ...names.map((name) => {
      const value = headers[name]!;
      return `    ${capped(name, HEADER_SHOWN_CHARS)}: ${typeof value === 'string' ? capped(value, HEADER_SHOWN_CHARS) : bytesLine(value)}`;
    }),
  ];
}

/** A list's HEADERS column: the names, cut to `max` characters; `-` for none, `unreadable` for a field not in the queue's format. */
export function headerNames(headers: Headers, max = 32): string {
  if (headers === null) return 'unreadable';
  const names = Object.keys(headers);
  if (names.length === 0) return '-';
  const text = safe(names.join(', '));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Headers for --json, whole: null when unreadable, else a list in order of `{ name, type: 'string', value }`
 * or `{ name, type: 'bytes', kind, text, truncated, totalBytes, base64 }` (the payload's shape). A list,
 * not an object: a header may be named `__proto__`.
 */
export function headersJson(headers: Headers, maxBytes = 65_536) {
  if (headers === null) return null;
  return Object.keys(headers).map((name) => {
    const value = headers[name]!;
    if (typeof value === 'string') return { name, type: 'string' as const, value };
    return { name, type: 'bytes' as const, ...describeBytes(value, { maxBytes }), base64: value.toString('base64') };
  });
}
