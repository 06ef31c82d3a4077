// Readers of raw command replies under RESP2 and RESP3: strings, stream entries, XINFO fields.
/**
 * Readers of raw replies, for every RESP version and client mapping Respire meets: RESP2 arrays,
 * RESP3 maps (as flat arrays in binary mode, else objects or Maps), strings or Buffers.
 */

/** A reply value as a string (Buffers decoded as UTF-8). */
export function replyString(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString() : String(value);
}

/** One stream entry as replied: ID, flat field list as bytes, delivery count. */
export interface RawEntry {
  readonly id: string;
  readonly fields: Buffer[];
  readonly deliveryCount: number;
}

/**
 * Parses a list of stream entries: `[[id, [field, value, ...]], ...]` as XRANGE and XREADGROUP
 * reply them (delivery count 1: a `>` read is a first delivery), or `[[id, fields, count], ...]`
 * as Respire's worker scripts reply them. Elements without a field list (entries deleted from
 * the stream) are skipped.
 */
export function parseEntries(list: unknown): RawEntry[] {
  if (!Array.isArray(list)) return [];
  const out: RawEntry[] = [];
  for (const item of list) {
    if (!Array.isArray(item) || !Array.isArray(item[1])) continue;
    out.push({
      id: replyString(item[0]),
      fields: asBuffers(item[1] as unknown[]),
      deliveryCount: item[2] === undefined ? 1 : Number(replyString(item[2])),
    });
  }
  return out;
}

/** The list itself when every element is a Buffer (binary replies), else a copy of it as Buffers. */
function asBuffers(list: unknown[]): Buffer[] {
  for (const value of list) if (!Buffer.isBuffer(value)) return list.map((f) => (Buffer.isBuffer(f) ? f : Buffer.from(replyString(f))));
  return list as Buffer[];
}

/** Reads one field of an XINFO reply element (RESP2 flat array, RESP3 object or Map). */
export function infoField(item: unknown, name: string): unknown {
  if (Array.isArray(item)) {
    for (let i = 0; i + 1 < item.length; i += 2) if (replyString(item[i]) === name) return item[i + 1];
    return undefined;
  }
  if (item instanceof Map) return item.get(name);
  if (item && typeof item === 'object') return (item as Record<string, unknown>)[name];
  return undefined;
}
