// The entries of a reader's XREADGROUP reply, under RESP2 and RESP3.
import { parseEntries, type RawEntry } from '@respire/core-scripts/internal';

/**
 * Parses an XREADGROUP reply of one stream: `null`, RESP2 `[[stream, entries]]`, or RESP3 with
 * maps as flat arrays `[stream, entries]`.
 */
export function parseReadReply(reply: unknown): RawEntry[] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  return parseEntries(Array.isArray(reply[0]) ? (reply[0] as unknown[])[1] : reply[1]);
}
