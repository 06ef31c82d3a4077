// Payloads through a codec, headers as sent and as received, and deduplication IDs: checked before any I/O, the same rules for the queue and the topic.
import { MAX_BULK_BYTES, RespireCodecError, RespireValidationError } from '@respire/core-scripts';
import {
  describeThrown,
  exceptionType,
  isWellFormedText,
  MAX_HEADERS,
  MAX_HEADERS_BYTES,
  readHeaders,
  writeHeaders,
  type ReceivedHeaders,
} from '@respire/core-scripts/internal';
import type { Codec } from './codec.js';
import type { InjectedHeaders } from './instrumentation.js';

/** Longest deduplication ID, in UTF-8 bytes. */
const MAX_DEDUPLICATION_ID_BYTES = 1024;

/**
 * Encodes a payload to the bytes sent.
 * @throws {@link RespireCodecError} when encode throws or returns neither a Uint8Array nor a string.
 * @throws {@link RespireValidationError} when the bytes exceed 512 MiB.
 */
export function encodePayload<T>(codec: Codec<T>, payload: T, operation: string): Buffer {
  let encoded: unknown;
  try {
    encoded = codec.encode(payload);
  } catch (error) {
    throw new RespireCodecError(`${operation}: the codec could not encode the payload (${describeThrown(error)}); nothing was sent`, { cause: error });
  }
  // What encode returned is user code's value: even the type checks and reads stay guarded.
  let bytes: Buffer | undefined;
  try {
    if (typeof encoded === 'string') bytes = Buffer.from(encoded, 'utf8');
    else if (Buffer.isBuffer(encoded)) bytes = encoded;
    else if (encoded instanceof Uint8Array) bytes = Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
  } catch (error) {
    throw new RespireCodecError(`${operation}: what the codec returned cannot be read (${describeThrown(error)}); nothing was sent`, { cause: error });
  }
  if (bytes === undefined) {
    throw new RespireCodecError(`${operation}: the codec must return a Uint8Array or a string, got ${exceptionType(encoded)}; nothing was sent`);
  }
  if (bytes.length > MAX_BULK_BYTES) {
    throw new RespireValidationError(
      'payload',
      `encoded to ${bytes.length} bytes, more than the ${MAX_BULK_BYTES} bytes (512 MiB) Redis takes in one argument ` +
        '(proto-max-bulk-len); nothing was sent, and no retry can succeed: send a reference to the data instead',
    );
  }
  return bytes;
}

/**
 * Decodes the payloads of a leased batch.
 * @throws {@link RespireCodecError} when decode throws: the whole batch stays leased.
 */
export function decodePayload<T>(codec: Codec<T>, id: string, bytes: Buffer, batchSize: number, operation: string): T {
  try {
    return codec.decode(bytes);
  } catch (error) {
    throw new RespireCodecError(
      `${operation}: the codec could not decode entry ${id} (${describeThrown(error)}); the whole batch of ` +
        `${batchSize} stays leased and is received again after the visibility timeout`,
      { cause: error },
    );
  }
}

/** The headers of a message sent without any. */
export const NO_HEADERS: ReceivedHeaders = Object.freeze(Object.create(null) as Record<string, never>);

/**
 * Decodes the headers of a leased message (README "Headers"); {@link NO_HEADERS} for none.
 * @throws {@link RespireCodecError} when they cannot be read: the whole batch stays leased.
 */
export function decodeHeaders(id: string, encoded: Buffer, batchSize: number, operation: string): ReceivedHeaders {
  if (encoded.length === 0) return NO_HEADERS;
  const read = readHeaders(encoded);
  if ('problem' in read) {
    throw new RespireCodecError(
      `${operation}: the headers of entry ${id} cannot be read (${read.problem}); the whole batch of ` +
        `${batchSize} stays leased and is received again after the visibility timeout`,
    );
  }
  return read.headers;
}

/** A send's or publication's headers: encoded (undefined for none), and their entries in order. */
interface HeadersToSend {
  readonly headers: Buffer | undefined;
  readonly headerEntries?: readonly (readonly [string, string | Uint8Array])[] | undefined;
}

/**
 * A send or publication with the instrumentation's headers added (trace context): a header the message already
 * has keeps its value; none are added when the result would pass {@link MAX_HEADERS} or
 * {@link MAX_HEADERS_BYTES} (the message is sent as it was).
 */
export function withInjected<I extends HeadersToSend>(item: I, injected: InjectedHeaders): I {
  if (injected === undefined) return item;
  const own = item.headerEntries ?? [];
  const names = new Set(own.map(([name]) => name));
  const added = injected.filter(([name]) => !names.has(name));
  if (added.length === 0 || own.length + added.length > MAX_HEADERS) return item;
  const entries = [...own, ...added];
  const encoded = writeHeaders(entries);
  if (encoded.length > MAX_HEADERS_BYTES) return item;
  return { ...item, headers: encoded, headerEntries: entries };
}

/**
 * Checks and encodes a send's (or a publication's) headers; undefined for an empty object.
 * @throws {@link RespireValidationError} unless `value` is a plain object of at most
 *   {@link MAX_HEADERS} headers with nonempty, well-formed names and string (well-formed) or
 *   `Uint8Array` values, encoding to at most {@link MAX_HEADERS_BYTES} bytes.
 */
export function checkHeaders(
  value: unknown,
  argument: string,
): { readonly encoded: Buffer; readonly entries: readonly (readonly [string, string | Uint8Array])[] } | undefined {
  let entries: [string, unknown][];
  try {
    // Read once, guarded: a Proxy or throwing getter is bad input, not a crash.
    if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) throw new TypeError('not an object');
    entries = Object.entries(value);
  } catch {
    throw new RespireValidationError(argument, 'must be an object of header names to string or Uint8Array values');
  }
  if (entries.length > MAX_HEADERS) throw new RespireValidationError(argument, `at most ${MAX_HEADERS} headers, got ${entries.length}`);
  if (entries.length === 0) return undefined;
  for (const [name, header] of entries) {
    if (name.length === 0 || !isWellFormedText(name)) {
      throw new RespireValidationError(argument, 'header names must be nonempty, well-formed Unicode (no lone surrogates)');
    }
    if (typeof header === 'string') {
      if (!isWellFormedText(header)) throw new RespireValidationError(`${argument}.${name}`, 'a string value must be well-formed Unicode: send bytes instead');
    } else if (!(header instanceof Uint8Array)) {
      throw new RespireValidationError(`${argument}.${name}`, 'must be a string or a Uint8Array');
    }
  }
  const checked = entries as [string, string | Uint8Array][];
  const encoded = writeHeaders(checked);
  if (encoded.length > MAX_HEADERS_BYTES) {
    throw new RespireValidationError(argument, `encode to ${encoded.length} bytes, more than ${MAX_HEADERS_BYTES}; nothing was sent`);
  }
  return { encoded, entries: checked };
}

/** @throws {@link RespireValidationError} unless `id` is a nonempty well-formed string of at most 1,024 UTF-8 bytes. */
export function checkDeduplicationId(id: unknown, argument = 'deduplicationId'): asserts id is string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new RespireValidationError(argument, 'must be a nonempty string');
  }
  if (!isWellFormedText(id)) {
    throw new RespireValidationError(argument, 'must be well-formed Unicode (no lone surrogates), or two IDs could share a key');
  }
  if (Buffer.byteLength(id, 'utf8') > MAX_DEDUPLICATION_ID_BYTES) {
    throw new RespireValidationError(argument, `must be at most ${MAX_DEDUPLICATION_ID_BYTES} UTF-8 bytes`);
  }
}
