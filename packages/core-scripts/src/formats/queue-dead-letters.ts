// A queue's dead-letter record: the one reader and writer in TypeScript (lua/includes/
// queue-dead-letters.lua is the one in Lua; test/formats.test.ts checks that they agree).

/** A stream entry's fields as name/value pairs of bytes, in order. */
export type FieldPairs = readonly (readonly [Buffer, Buffer])[];

/**
 * The fields of a queue's dead-letter record, in this order: `payload` (the message's bytes),
 * `source_id` (its entry ID) and `delivery_count` (the deliveries made, in decimal), then
 * `headers` (the message's encoded headers, formats/headers.ts) when it had any, then `group` (its
 * group ID) when it came from a grouped queue; an ungrouped queue's record has no `group`.
 */
export const QUEUE_DEAD_LETTER_FIELDS = ['payload', 'source_id', 'delivery_count'] as const;

/** A queue's dead-letter record, read. */
export interface QueueDeadLetter {
  readonly payload: Buffer;
  readonly sourceId: string;
  readonly deliveryCount: number;
  /** The message's encoded headers (formats/headers.ts); absent when it had none. */
  readonly headers?: Buffer;
  /** The message's group, for a grouped queue's record; absent for an ungrouped queue's. */
  readonly group?: string;
}

const WHOLE = /^\d+$/;

/**
 * Reads a queue's dead-letter record.
 * @returns the record, or `{ problem }` saying why `fields` are not one (a foreign record), in the
 *   words the Lua include uses.
 */
export function readQueueDeadLetter(fields: FieldPairs): QueueDeadLetter | { readonly problem: string } {
  const names = fields.map(([name]) => name.toString('latin1'));
  const tail = names.slice(3).join(',');
  if (!['', 'headers', 'group', 'headers,group'].includes(tail) || QUEUE_DEAD_LETTER_FIELDS.some((name, i) => names[i] !== name)) {
    return { problem: 'fields are not payload, source_id, delivery_count (and headers, group)' };
  }
  const count = fields[2]![1].toString('latin1');
  if (!WHOLE.test(count)) return { problem: 'delivery_count is not a whole number' };
  const headers = names[3] === 'headers' ? fields[3]![1] : undefined;
  const group = names[names.length - 1] === 'group' ? fields[fields.length - 1]![1].toString('utf8') : undefined;
  return {
    payload: fields[0]![1],
    sourceId: fields[1]![1].toString('utf8'),
    deliveryCount: Number(count),
    ...(headers === undefined ? {} : { headers }),
    ...(group === undefined ? {} : { group }),
  };
}

/** The fields of a record, flat (`payload`, bytes, `source_id`, ...), as XADD takes them. */
export function queueDeadLetterFields(record: QueueDeadLetter): Buffer[] {
  return [
    Buffer.from('payload'),
    record.payload,
    Buffer.from('source_id'),
    Buffer.from(record.sourceId),
    Buffer.from('delivery_count'),
    Buffer.from(String(record.deliveryCount)),
    ...(record.headers !== undefined && record.headers.length > 0 ? [Buffer.from('headers'), record.headers] : []),
    ...(record.group !== undefined && record.group !== '' ? [Buffer.from('group'), Buffer.from(record.group)] : []),
  ];
}
