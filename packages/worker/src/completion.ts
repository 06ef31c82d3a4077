import { scriptCalls } from '@respire/core-scripts/internal';
import type { StreamEntry } from './entry.js';
import { safeHook, type DeadLetterReason, type DeliveryOutcome } from './instrumentation.js';
import { safeLog } from './logger.js';
import type { ResolvedOptions } from './options.js';
import { retryingTransient } from './retry.js';

/**
 * Fenced completion (seed 002 "Pending messages and reliability"): the one place the worker sends
 * a delivery's result to Redis. Each script acknowledges, releases or dead-letters the entry only
 * while it is still pending to this consumer at this delivery count; otherwise the outcome is
 * `stale`. A reply that proves the script did not run (`BUSY`, `LOADING`, ...) is repeated with
 * backoff up to a deadline (retry.ts); any other failure, and above all a lost reply (whose outcome
 * is uncertain, seed 002 "Faults"), is thrown to the caller and faults the worker, never repeated.
 */

/** One delivery to complete: the worker's options, the reader's consumer name, the entry. */
export interface Delivery {
  readonly options: ResolvedOptions;
  readonly consumer: string;
  readonly entry: StreamEntry;
}

/** The most bytes of an exception type in a dead-letter record (seed 002). */
const MAX_EXCEPTION_TYPE_BYTES = 256;

/** Acknowledges (XACK, or XACKDEL ACKED with `deleteAcknowledgedEntries` on Redis 8.2+). */
export async function acknowledge(d: Delivery): Promise<DeliveryOutcome> {
  const o = d.options;
  const reply = await retryingTransient(o.logger, 'StreamWorker ack', () =>
    scriptCalls.workerAck(o.target, { ...fence(d), deleteAcknowledged: o.deleteAcknowledgedEntries }, { operation: 'StreamWorker ack' }),
  );
  return Number(reply) === 1 ? 'ack' : stale(d);
}

/**
 * A failed attempt: dead-letters it on the final attempt, else releases it (XNACK FAIL on Redis
 * 8.8+ once its idle time has elapsed) or leaves it pending for idle recovery.
 */
export async function fail(d: Delivery, reason: 'nack' | 'processing-failed', exceptionType: string): Promise<DeliveryOutcome> {
  const o = d.options;
  if (o.deliveryLimit !== undefined && d.entry.deliveryCount >= o.deliveryLimit) return deadLetter(d, reason, exceptionType);
  const reply = await retryingTransient(o.logger, 'StreamWorker release', () =>
    scriptCalls.workerRelease(o.target, { ...fence(d), minimumIdleTimeMs: o.minimumIdleTimeMs }, { operation: 'StreamWorker release' }),
  );
  // 1 released, 0 left pending, -1 stale
  return Number(reply) < 0 ? stale(d) : 'nack';
}

/** Appends the dead-letter record and acknowledges the source in one script (seed 002). */
export async function deadLetter(d: Delivery, reason: DeadLetterReason, exceptionType: string): Promise<DeliveryOutcome> {
  const o = d.options;
  const reply = (await retryingTransient(o.logger, 'StreamWorker dead-letter', () =>
    scriptCalls.workerDeadLetter(
      o.target,
      { ...fence(d), deadLetter: o.deadLetterStream!, reason, exceptionType: truncateBytes(exceptionType, MAX_EXCEPTION_TYPE_BYTES) },
      { operation: 'StreamWorker dead-letter' },
    ),
  )) as unknown[];
  switch (Number(reply[0])) {
    case 1:
      safeHook(() => o.instrumentation?.deadLettered?.({ telemetryName: o.telemetryName, reason }));
      return 'dead-letter';
    case 2:
      return 'deleted'; // the source body was gone: acknowledged without a record
    default:
      return stale(d);
  }
}

/** The fence every completion script checks: this entry, pending to this consumer at this count. */
function fence(d: Delivery) {
  return { stream: d.options.stream, group: d.options.group, consumer: d.consumer, id: d.entry.id, deliveryCount: d.entry.deliveryCount };
}

function stale(d: Delivery): 'stale' {
  safeLog(d.options.logger, 'debug', 'delivery was recovered by another owner or attempt; not completed', {
    entryId: d.entry.id,
    consumer: d.consumer,
    deliveryCount: d.entry.deliveryCount,
  });
  return 'stale';
}

/** Cuts a UTF-8 string to at most `max` bytes without splitting a character. */
function truncateBytes(value: string, max: number): string {
  if (Buffer.byteLength(value) <= max) return value;
  let out = '';
  for (const ch of value) {
    if (Buffer.byteLength(out + ch) > max) break;
    out += ch;
  }
  return out;
}

