// Reading dead-letter records and deadlines members into the API's shapes.
import type { DeadLetterRecord, QueueDelivery } from './api.js';

/** The five metadata pairs that open a worker dead-letter record (the worker README), in order. */
export const WORKER_META = ['_respire.source_id', '_respire.group', '_respire.attempt', '_respire.reason', '_respire.exception_type'] as const;

/** A worker record carries at most 1,024 original pairs (the worker's limit with a dead-letter stream). */
const MAX_ORIGINAL_PAIRS = 1024;

const WHOLE = /^\d+$/;

/** Reads a worker dead-letter record positionally; anything else is a foreign record. */
export function workerRecord(id: string, fields: readonly (readonly [Buffer, Buffer])[]): DeadLetterRecord {
  const names = WORKER_META.every((name, i) => fields[i]?.[0].toString('latin1') === name);
  const attempt = fields[2]?.[1].toString('latin1') ?? '';
  const original = fields.slice(WORKER_META.length);
  if (!names || !WHOLE.test(attempt) || original.length === 0 || original.length > MAX_ORIGINAL_PAIRS) {
    return { kind: 'foreign', id, fields };
  }
  return {
    kind: 'worker',
    id,
    sourceId: fields[0]![1].toString('utf8'),
    group: fields[1]![1].toString('utf8'),
    attempt: Number(attempt),
    reason: fields[3]![1].toString('utf8'),
    exceptionType: fields[4]![1].toString('utf8'),
    fields: original,
  };
}

/** Reads a queue dead-letter record (`payload`, `source_id`, `delivery_count`, see the queue README); anything else is foreign. */
export function queueRecord(id: string, fields: readonly (readonly [Buffer, Buffer])[]): DeadLetterRecord {
  const [payload, source, count] = fields;
  if (
    fields.length !== 3 ||
    payload![0].toString('latin1') !== 'payload' ||
    source![0].toString('latin1') !== 'source_id' ||
    count![0].toString('latin1') !== 'delivery_count' ||
    !WHOLE.test(count![1].toString('latin1'))
  ) {
    return { kind: 'foreign', id, fields };
  }
  return { kind: 'queue', id, sourceId: source![1].toString('utf8'), deliveryCount: Number(count![1].toString('latin1')), payload: payload![1] };
}

/**
 * Reads one member of a queue's deadlines set without its receipt: `<id>:<count>.<token>.<pos>`
 * is leased, `<id>:<count>` is delayed (NACKed). Undefined for a member of neither form.
 */
export function queueDelivery(member: string, score: number, nowMs: number): QueueDelivery | undefined {
  const match = /^(\d+-\d+):(\d+)(\..+)?$/.exec(member);
  if (!match) return undefined;
  return {
    id: match[1]!,
    deliveryCount: Number(match[2]),
    state: match[3] === undefined ? 'delayed' : 'leased',
    untilMs: score,
    due: score <= nowMs,
  };
}
