// Reading dead-letter records and deadlines members into the API's shapes.
import type { DeadLetterRecord, QueueDelivery } from './api.js';
import { isEntryId, parseLeaseMember, readQueueDeadLetter, readWorkerDeadLetter } from './redis.js';

/** Reads a worker dead-letter record positionally (core-scripts' worker dead-letter format); anything else is a foreign record. */
export function workerRecord(id: string, fields: readonly (readonly [Buffer, Buffer])[]): DeadLetterRecord {
  const record = readWorkerDeadLetter(fields);
  return 'problem' in record ? { kind: 'foreign', id, fields } : { kind: 'worker', id, ...record };
}

/** Reads a queue dead-letter record (core-scripts' queue dead-letter format); anything else is foreign. */
export function queueRecord(id: string, fields: readonly (readonly [Buffer, Buffer])[]): DeadLetterRecord {
  const record = readQueueDeadLetter(fields);
  return 'problem' in record ? { kind: 'foreign', id, fields } : { kind: 'queue', id, ...record };
}

/**
 * Reads one member of a queue's deadlines set without its receipt: with a receipt it is leased,
 * with a delivery count alone it is delayed (NACKed). Undefined for a member of neither form.
 */
export function queueDelivery(member: string, score: number, nowMs: number): QueueDelivery | undefined {
  const read = parseLeaseMember(member);
  if (read === undefined || !isEntryId(read.entryId)) return undefined;
  return {
    id: read.entryId,
    deliveryCount: read.deliveryCount,
    state: read.receipt === undefined ? 'delayed' : 'leased',
    untilMs: score,
    due: score <= nowMs,
  };
}
