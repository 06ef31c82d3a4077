// The longest argument Respire sends (Redis's default proto-max-bulk-len), checked before any I/O.
import type { RedisArg } from './client.js';

/**
 * The longest argument Respire sends: 512 MiB (536,870,912 bytes), Redis's default
 * `proto-max-bulk-len`. A server refuses a longer bulk string and drops the connection, which
 * would look like a transport failure whose outcome is unknown and which no retry can fix, so
 * Respire refuses it before any I/O. Respire keeps this limit even where a server raised its own.
 */
export const MAX_BULK_BYTES = 512 * 1024 * 1024;

/**
 * The length in bytes of the first argument longer than `limit`, or undefined. Strings are
 * measured in UTF-8 only when they could be that long (3 bytes per UTF-16 unit at most).
 */
export function oversizedArgument(args: readonly RedisArg[], limit = MAX_BULK_BYTES): number | undefined {
  for (const arg of args) {
    if (typeof arg === 'string') {
      if (arg.length * 3 > limit) {
        const bytes = Buffer.byteLength(arg, 'utf8');
        if (bytes > limit) return bytes;
      }
    } else if (arg.length > limit) {
      return arg.length;
    }
  }
  return undefined;
}
