// Codecs: how a queue's payloads become bytes and back.
import { RespireValidationError } from '@respire/core-scripts';

/**
 * Turns payloads into bytes and back. Must be pure: no shared mutable state, safe to call from
 * concurrent receives. Every instance sharing a queue must use a matching codec.
 */
export interface Codec<T> {
  /** Payload → bytes stored in the ready stream. A string is stored as its UTF-8 bytes. */
  encode(value: T): Uint8Array | string;
  /** Bytes read back (a Buffer of exactly the stored bytes) → payload. Throwing leaves the batch leased. */
  decode(bytes: Buffer): T;
}

/** Raw bytes, unchanged in both directions. */
export const bytesCodec: Codec<Buffer> = {
  encode: (value) => value,
  decode: (bytes) => bytes,
};

/** UTF-8 text. */
export const utf8Codec: Codec<string> = {
  encode: (value) => Buffer.from(value, 'utf8'),
  decode: (bytes) => bytes.toString('utf8'),
};

/** JSON text in UTF-8 (`JSON.stringify` / `JSON.parse`); no schema validation. */
export function jsonCodec<T>(): Codec<T> {
  return {
    encode: (value) => Buffer.from(JSON.stringify(value), 'utf8'),
    decode: (bytes) => JSON.parse(bytes.toString('utf8')) as T,
  };
}

/** @throws {@link RespireValidationError} unless `codec` has `encode` and `decode` functions. */
export function toCodec<T>(codec: unknown): Codec<T> {
  if (codec === jsonCodec) throw new RespireValidationError('codec', 'jsonCodec is a factory: pass jsonCodec() (called), not jsonCodec');
  const candidate = codec as Partial<Codec<T>> | null | undefined;
  if (typeof candidate?.encode !== 'function' || typeof candidate.decode !== 'function') {
    throw new RespireValidationError('codec', 'must be an object with encode(value) and decode(bytes) functions');
  }
  return candidate as Codec<T>;
}
