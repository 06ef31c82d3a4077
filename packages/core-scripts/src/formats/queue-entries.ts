// A reliable queue's stream entry: the one reader and writer in TypeScript (lua/includes/
// queue-entries.lua is the one in Lua; test/formats.test.ts checks that they agree).
import type { FieldPairs } from './queue-dead-letters.js';

/**
 * The fields of a queue's entry, in this order: `payload` (the message's bytes), then optionally
 * `due` (the server time, whole ms in decimal, before which a delayed send must not be delivered)
 * and `headers` (the message's headers, in the format of `headers.ts`). An entry of only `payload`
 * is what a plain send appends.
 */
export const QUEUE_ENTRY_FIELDS = ['payload', 'due', 'headers'] as const;

/** A queue's entry, read. */
export interface QueueEntry {
  readonly payload: Buffer;
  /** The due time of a delayed send (ms, server clock), or undefined. */
  readonly dueMs: number | undefined;
  /** The encoded headers, or undefined when the entry has none. */
  readonly headers: Buffer | undefined;
}

/** Reads a queue's entry: its `payload` (empty when missing), `due` and `headers` fields, wherever they are. */
export function readQueueEntry(fields: FieldPairs): QueueEntry {
  let payload: Buffer = Buffer.alloc(0);
  let dueMs: number | undefined;
  let headers: Buffer | undefined;
  for (const [name, value] of fields) {
    const field = name.toString('latin1');
    if (field === 'payload') payload = value;
    else if (field === 'due' && /^\d+$/.test(value.toString('latin1'))) dueMs = Number(value.toString('latin1'));
    else if (field === 'headers') headers = value;
  }
  return { payload, dueMs, headers };
}

/** The fields of an entry, flat (`payload`, bytes, ...), as XADD takes them; no `headers` field for none or empty ones. */
export function queueEntryFields(entry: { readonly payload: Buffer; readonly dueMs?: number; readonly headers?: Buffer }): (string | Buffer)[] {
  const fields: (string | Buffer)[] = ['payload', entry.payload];
  if (entry.dueMs !== undefined) fields.push('due', String(entry.dueMs));
  if (entry.headers !== undefined && entry.headers.length > 0) fields.push('headers', entry.headers);
  return fields;
}
