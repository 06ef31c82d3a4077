// Payloads through a codec, headers as received, and deduplication IDs: checked before any I/O (the topic's; the queue's are the same rules).
import { MAX_BULK_BYTES, RespireCodecError, RespireValidationError } from '@respire/core-scripts';
import { describeThrown, exceptionType, isWellFormedText, readHeaders, type ReceivedHeaders } from '@respire/core-scripts/internal';
import type { Codec } from './codec.js';

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

/** @throws {@link RespireValidationError} unless `id` is a nonempty well-formed string of at most 1,024 UTF-8 bytes. */
export function checkDeduplicationId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new RespireValidationError('deduplicationId', 'must be a nonempty string');
  }
  if (!isWellFormedText(id)) {
    throw new RespireValidationError('deduplicationId', 'must be well-formed Unicode (no lone surrogates), or two IDs could share a key');
  }
  if (Buffer.byteLength(id, 'utf8') > MAX_DEDUPLICATION_ID_BYTES) {
    throw new RespireValidationError('deduplicationId', `must be at most ${MAX_DEDUPLICATION_ID_BYTES} UTF-8 bytes`);
  }
}
