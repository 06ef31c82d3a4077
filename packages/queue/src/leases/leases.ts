// The lease engine's TypeScript side, shared by a reliable queue and (in time) a topic's subscriptions:
// receipts checked before any I/O, a receipt token per receive, leased messages with their receipts.
import { RespireValidationError, isRespireError } from '@respire/core-scripts';
import { decodeQueueReceiveReply, isEntryId, isReceipt, newReceiptToken, receiptOf, safeGet, type CommandTarget } from '@respire/core-scripts/internal';
import type { LeaseBatch, LeaseRequest, LeaseSource, LeasedEntry } from './source.js';

/** Largest `max` of a receive and largest batch of receipts completed or released in one call. */
export const MAX_BATCH = 1000;

/** What ack and nack need: the entry ID and receipt of one delivery. */
export interface MessageReceipt {
  /** The stream entry ID. */
  readonly id: string;
  /** The receipt fencing the delivery. */
  readonly receipt: string;
}

/** One leased message with its receipt. */
export interface Lease extends LeasedEntry {
  readonly receipt: string;
}

/**
 * The lease engine, on one source (see {@link LeaseSource}). A receive leases a batch, each
 * message with a receipt: `<delivery count>.<token>.<position>`, the token made here once per call
 * and the position the message's place in the batch, as the script stored it. Completing or
 * releasing takes the receipts back: only a receipt that still holds its lease changes anything.
 */
export class Leases {
  readonly #target: CommandTarget;
  readonly #source: LeaseSource;

  constructor(target: CommandTarget, source: LeaseSource) {
    this.#target = target;
    this.#source = source;
  }

  /** Leases up to `request.max` messages; the batch's receipts are made from a fresh token. */
  async lease(request: Omit<LeaseRequest, 'token'>, operation: string): Promise<{ readonly deadLettered: number; readonly leases: Lease[] }> {
    const token = newReceiptToken();
    const { visibilityTimeoutMs, max, deliveryLimit } = request;
    let batch: LeaseBatch;
    try {
      batch = await this.#source.lease(this.#target, { visibilityTimeoutMs, max, deliveryLimit, token }, operation);
    } catch (error) {
      // The durability wait fell short, but the leases were written: a failover could lose them,
      // which only makes these messages due again early (delivery stays at least once). Left
      // unreturned they would count toward the delivery limit unseen, so the batch is handed over.
      if (!isRespireError(error, 'NOT_DURABLE')) throw error;
      batch = (this.#source.decodeLeaseReply ?? decodeQueueReceiveReply)(safeGet(error, 'reply'), operation);
    }
    const leases: Lease[] = [];
    // An object literal per lease, not a spread: a spread costs about ten times as much here.
    for (const { id, payload, deliveryCount, headers, groupId } of batch.entries)
      leases.push({ id, payload, deliveryCount, headers, groupId, receipt: receiptOf(deliveryCount, token, leases.length + 1) });
    return { deadLettered: batch.deadLettered, leases };
  }

  /** Completes deliveries (ack); `pairs` from {@link receiptPairs}. */
  complete(pairs: readonly string[], operation: string): Promise<boolean[]> {
    return this.#source.complete(this.#target, pairs, operation);
  }

  /** Releases deliveries (nack) to be due after `delayMs`; `pairs` from {@link receiptPairs}. */
  release(pairs: readonly string[], delayMs: number, operation: string): Promise<boolean[]> {
    return this.#source.release(this.#target, pairs, delayMs, operation);
  }

  /** Extends deliveries' leases to server now + `visibilityTimeoutMs`; `pairs` from {@link receiptPairs}. */
  extend(pairs: readonly string[], visibilityTimeoutMs: number, operation: string): Promise<boolean[]> {
    return this.#source.extend(this.#target, pairs, visibilityTimeoutMs, operation);
  }
}

/**
 * Checks deliveries handed back to ack or nack, before any I/O, and flattens them to
 * `id, receipt, ...`.
 * @throws {@link RespireValidationError} when `messages` is not an array of at most
 *   {@link MAX_BATCH} deliveries that each have an entry ID and a receipt.
 */
export function receiptPairs(messages: readonly MessageReceipt[]): string[] {
  let list: readonly unknown[];
  try {
    // A copy read once: a Proxy or an array-like with throwing getters fails here, as bad input.
    if (!Array.isArray(messages)) throw new TypeError('not an array');
    list = Array.from(messages);
  } catch {
    throw new RespireValidationError('messages', 'must be an array of received messages');
  }
  if (list.length > MAX_BATCH) {
    throw new RespireValidationError('messages', `at most ${MAX_BATCH} per call, got ${list.length}`);
  }
  const pairs: string[] = [];
  for (const [index, message] of list.entries()) {
    const id = safeGet(message, 'id');
    const receipt = safeGet(message, 'receipt');
    if (!isEntryId(id) || !isReceipt(receipt)) {
      throw new RespireValidationError(
        messages.length === 1 ? 'message' : `messages[${index}]`,
        'must be a message returned by receive (with its id and receipt)',
      );
    }
    pairs.push(id, receipt);
  }
  return pairs;
}
