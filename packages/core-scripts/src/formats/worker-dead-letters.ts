// A stream worker's dead-letter record: the one reader and writer in TypeScript (lua/includes/
// worker-dead-letters.lua is the one in Lua; test/formats.test.ts checks that they agree).
import type { FieldPairs } from './queue-dead-letters.js';

/**
 * The five metadata fields that open a worker's dead-letter record, in this order: the source
 * entry's ID, the consumer group (at most {@link MAX_DEAD_LETTER_GROUP_BYTES}), the delivery count,
 * the reason (`explicit`, `nack`, `processing-failed` or `delivery-limit`) and the exception type
 * (empty unless a processing failure; at most {@link MAX_DEAD_LETTER_EXCEPTION_TYPE_BYTES}). The
 * source entry's fields follow unchanged and in order.
 */
export const WORKER_DEAD_LETTER_META = ['_respire.source_id', '_respire.group', '_respire.attempt', '_respire.reason', '_respire.exception_type'] as const;

/** The most field/value pairs a source entry may have when it can be dead-lettered: 1,024. */
export const MAX_DEAD_LETTER_FIELD_PAIRS = 1024;
/** The longest consumer group a record names (`_respire.group`), in bytes. */
export const MAX_DEAD_LETTER_GROUP_BYTES = 256;
/** The longest exception type (`_respire.exception_type`), in bytes; a longer one is cut. */
export const MAX_DEAD_LETTER_EXCEPTION_TYPE_BYTES = 256;

/** A worker's dead-letter record, read. */
export interface WorkerDeadLetter {
  readonly sourceId: string;
  readonly group: string;
  readonly attempt: number;
  readonly reason: string;
  readonly exceptionType: string;
  /** The source entry's fields, unchanged and in order. */
  readonly fields: FieldPairs;
}

const WHOLE = /^\d+$/;
const META = WORKER_DEAD_LETTER_META.length;

/**
 * Reads a worker's dead-letter record positionally.
 * @returns the record, or `{ problem }` saying why `fields` are not one (a foreign record), in the
 *   words the Lua include uses.
 */
export function readWorkerDeadLetter(fields: FieldPairs): WorkerDeadLetter | { readonly problem: string } {
  for (const [i, name] of WORKER_DEAD_LETTER_META.entries()) {
    if (fields[i]?.[0].toString('latin1') !== name) return { problem: `pair ${i + 1} is not ${name}` };
  }
  const attempt = fields[2]![1].toString('latin1');
  if (!WHOLE.test(attempt)) return { problem: '_respire.attempt is not a whole number' };
  if (fields.length === META) return { problem: 'no original fields after the five _respire.* pairs' };
  if (fields.length > META + MAX_DEAD_LETTER_FIELD_PAIRS) return { problem: 'more than 1,024 original field/value pairs' };
  const text = (i: number) => fields[i]![1].toString('utf8');
  return { sourceId: text(0), group: text(1), attempt: Number(attempt), reason: text(3), exceptionType: text(4), fields: fields.slice(META) };
}

/** The fields of a record, flat (`_respire.source_id`, its value, ..., then the source's fields), as XADD takes them. */
export function workerDeadLetterFields(record: WorkerDeadLetter): Buffer[] {
  const values = [record.sourceId, record.group, String(record.attempt), record.reason, record.exceptionType];
  const out: Buffer[] = [];
  WORKER_DEAD_LETTER_META.forEach((name, i) => out.push(Buffer.from(name), Buffer.from(values[i]!)));
  for (const [name, value] of record.fields) out.push(name, value);
  return out;
}

/** `exceptionType` cut to {@link MAX_DEAD_LETTER_EXCEPTION_TYPE_BYTES} UTF-8 bytes without splitting a character. */
export function deadLetterExceptionType(exceptionType: string): string {
  if (Buffer.byteLength(exceptionType) <= MAX_DEAD_LETTER_EXCEPTION_TYPE_BYTES) return exceptionType;
  let out = '';
  for (const ch of exceptionType) {
    if (Buffer.byteLength(out + ch) > MAX_DEAD_LETTER_EXCEPTION_TYPE_BYTES) break;
    out += ch;
  }
  return out;
}
