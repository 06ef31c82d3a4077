// describeBytes: how a face should show a payload or field value (JSON, UTF-8 text or hex, capped).
import { RespireValidationError } from './redis.js';
import { toOptions } from './validate.js';

/** How a face should show some bytes. Plain data: escaping for HTML or a terminal is the face's job. */
export interface PayloadView {
  /** `json` when the (capped) bytes are valid UTF-8 and parse as JSON; `text` when valid UTF-8; `hex` otherwise. */
  readonly kind: 'json' | 'text' | 'hex';
  /** Pretty-printed JSON (2 spaces), the UTF-8 text, or lowercase hex pairs separated by spaces. */
  readonly text: string;
  /** True when only the first `maxBytes` bytes were rendered. */
  readonly truncated: boolean;
  /** The length of the whole value in bytes. */
  readonly totalBytes: number;
}

export interface DescribeBytesOptions {
  /** Render at most this many bytes. @defaultValue 65536 (64 KiB) */
  readonly maxBytes?: number;
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Describes a payload or field value for display: pretty JSON when it parses, UTF-8 text when it
 * is valid UTF-8 (checked with a fatal decoder, so no byte is silently replaced), hex otherwise.
 * At most `maxBytes` are rendered; a cut inside a multi-byte UTF-8 character backs off to the
 * character boundary, and a truncated value is never parsed as JSON (it would not be whole).
 *
 * @throws {@link RespireValidationError} when `value` is not a Buffer/Uint8Array, `options` is not an
 *   object of known options, or `maxBytes` is not a whole number from 1 to 2^31-1.
 * @example
 * ```ts
 * describeBytes(Buffer.from('{"a":1}')); // { kind: 'json', text: '{\n  "a": 1\n}', truncated: false, totalBytes: 7 }
 * describeBytes(Buffer.from([0xff, 0x00])); // { kind: 'hex', text: 'ff 00', truncated: false, totalBytes: 2 }
 * ```
 */
export function describeBytes(value: Uint8Array, options: DescribeBytesOptions = {}): PayloadView {
  if (!(value instanceof Uint8Array)) throw new RespireValidationError('value', 'must be a Buffer or Uint8Array');
  const maxBytes = toOptions('options', options, ['maxBytes']).maxBytes ?? 65_536;
  if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > 2 ** 31 - 1) {
    throw new RespireValidationError('maxBytes', `must be a whole number from 1 to 2147483647, got ${String(maxBytes)}`);
  }
  const totalBytes = value.length;
  const truncated = totalBytes > maxBytes;
  const shown = truncated ? value.subarray(0, maxBytes) : value;
  const asText = decodeUtf8(shown, truncated);
  if (asText !== undefined) {
    if (!truncated) {
      const json = prettyJson(asText);
      if (json !== undefined) return { kind: 'json', text: json, truncated, totalBytes };
    }
    return { kind: 'text', text: asText, truncated, totalBytes };
  }
  return {
    kind: 'hex',
    text: Buffer.from(shown)
      .toString('hex')
      .replace(/(..)(?!$)/g, '$1 '),
    truncated,
    totalBytes,
  };
}

/** Valid UTF-8 → the text; when cut, up to 3 trailing bytes of an unfinished character are dropped. */
function decodeUtf8(bytes: Uint8Array, cut: boolean): string | undefined {
  for (let drop = 0; drop <= (cut ? 3 : 0) && drop < bytes.length; drop++) {
    try {
      return fatalUtf8.decode(bytes.subarray(0, bytes.length - drop));
    } catch {
      // not valid (yet): try without the last bytes of a character the cap split
    }
  }
  if (bytes.length === 0) return '';
  return undefined;
}

function prettyJson(text: string): string | undefined {
  const trimmed = text.trim();
  // Only objects and arrays: a bare number or string reads better as text.
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return undefined;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return undefined;
  }
}
