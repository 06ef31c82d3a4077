// What varies between users of the lease engine: where new messages come from and what completing one does.
import type { CommandTarget } from '@respire/core-scripts/internal';

/** One message a receive leased, as the engine's script returns it (the receipt is made by {@link Leases}). */
export interface LeasedEntry {
  /** The stream entry ID: stable across redeliveries. */
  readonly id: string;
  /** The message's bytes (its `payload` field). */
  readonly payload: Buffer;
  /** Deliveries made, this one included; from 1. */
  readonly deliveryCount: number;
  /** The message's encoded headers (`@respire/core-scripts` formats/headers.ts); empty for none. */
  readonly headers: Buffer;
  /** The message's group on a grouped queue (its entry's `group` field); undefined elsewhere. */
  readonly groupId?: string;
}

/** What one receive did: the messages it leased, redelivered ones first, and how many exhausted ones it dead-lettered. */
export interface LeaseBatch {
  readonly deadLettered: number;
  readonly entries: readonly LeasedEntry[];
}

/** A receive: lease up to `max` messages for `visibilityTimeoutMs`, fenced by receipts made from `token`. */
export interface LeaseRequest {
  /** ms, 1..2^31-1 */
  readonly visibilityTimeoutMs: number;
  /** messages, 1..1000 */
  readonly max: number;
  /** deliveries after which a due message is dead-lettered, at least 1 */
  readonly deliveryLimit: number;
  /** the receipt token of this call (16 URL-safe characters) */
  readonly token: string;
}

/**
 * A source of messages for the lease engine, bound to its keys: the scripts that lease, complete
 * and release its messages. Each script runs the engine's Lua (lua/includes/leases.lua in
 * `@respire/core-scripts`) with the source's own include. Today there is one, the reliable queue's
 * private consumer group on its own stream ({@link queueSource}: ack deletes the message); a topic
 * subscription's consumer group on the topic's shared stream (ack only acknowledges) and a grouped
 * queue's ring of group heads (ack advances the group) are sources of the same shape.
 */
export interface LeaseSource {
  /**
   * Recovers due messages (redelivering them, or dead-lettering exhausted ones), then leases new
   * ones, in one atomic script.
   */
  lease(target: CommandTarget, request: LeaseRequest, operation: string): Promise<LeaseBatch>;
  /**
   * Decodes the reply of {@link lease}'s script as it came with a `RespireNotDurableError` (the
   * leases were written). Undefined: the queue's receive reply (`decodeQueueReceiveReply`).
   */
  readonly decodeLeaseReply?: (value: unknown, operation: string) => LeaseBatch;
  /** Completes the deliveries whose receipts still hold their leases (ack); `pairs` is entry ID, receipt, ...; one flag per pair. */
  complete(target: CommandTarget, pairs: readonly string[], operation: string): Promise<boolean[]>;
  /** Revokes the leases that `pairs` still hold and makes their messages due after `delayMs` (nack); one flag per pair. */
  release(target: CommandTarget, pairs: readonly string[], delayMs: number, operation: string): Promise<boolean[]>;
  /**
   * Gives the leases that `pairs` still hold the deadline server now + `visibilityTimeoutMs`,
   * keeping their receipts (extend); one flag per pair, false exactly where {@link complete} would be.
   */
  extend(target: CommandTarget, pairs: readonly string[], visibilityTimeoutMs: number, operation: string): Promise<boolean[]>;
}
