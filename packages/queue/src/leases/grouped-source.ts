// A grouped queue's source for the lease engine: the heads of its ready groups, one in flight per group.
import { decodeGroupedReceiveReply, scriptCalls, type QueueKeys } from '@respire/core-scripts/internal';
import type { LeaseSource } from './source.js';

/**
 * The keys of a grouped queue (README "Message groups"), beside the ungrouped queue's under the
 * same hash tag, so they share its Cluster slot. The ungrouped queue's stream must not exist: the
 * grouped scripts refuse while it does (one name cannot be both).
 */
export interface GroupedQueueKeys {
  /** The stream of message bodies: fields `payload` and `group`, then `headers` when the message has any. */
  readonly stream: string;
  /** The deadlines index of the lease engine (format as {@link QueueKeys.deadlines}). */
  readonly deadlines: string;
  /** The dead-letter stream (the queue's dead-letter format). */
  readonly deadLetter: string;
  /** Sorted set of the group IDs whose head may be taken, scored by the position they joined it. */
  readonly ready: string;
  /** Hash of the heads in flight: entry ID to group ID. */
  readonly leased: string;
  /** Hash of each fair group's messages in flight: group ID to count (fair groups only). */
  readonly inflight: string;
  /**
   * Stream of at most one entry, appended to when a group moves on without a send (an ACK or a
   * dead letter puts it back on the ring) and when a NACK releases a lease: a waiting receive blocks on it beside the stream.
   */
  readonly wake: string;
  /** Key prefix of each group's backlog (a list of entry IDs in send order); the group ID follows. */
  readonly backlogPrefix: string;
  /** Key prefix of the deduplication keys; the deduplication ID follows. */
  readonly deduplicationPrefix: string;
  /** The ungrouped queue's stream of the same name, which must not exist. */
  readonly ungroupedStream: string;
}

/** The grouped keys of the queue whose ungrouped keys are `keys` (same prefix and hash tag). */
export function groupedQueueKeys(keys: QueueKeys): GroupedQueueKeys {
  // `<prefix>{respire-queue:<name>}`: what every key of the queue starts with.
  const base = keys.stream.slice(0, -':stream'.length);
  return {
    stream: `${base}:groups:stream`,
    deadlines: `${base}:groups:deadlines`,
    deadLetter: `${base}:groups:dead-letter`,
    ready: `${base}:groups:ready`,
    leased: `${base}:groups:leased`,
    inflight: `${base}:groups:in-flight`,
    wake: `${base}:groups:wake`,
    backlogPrefix: `${base}:groups:group:`,
    deduplicationPrefix: `${base}:groups:dedup:`,
    ungroupedStream: keys.stream,
  };
}

/**
 * The source of a grouped queue's messages: the head of each group at the front of the ready
 * ring, at most one in flight per group; redeliveries come from its deadlines index before anything
 * later of their group (with `concurrency` above 1, fair groups: up to that many of a group in
 * flight, in no promised order). Completing a head deletes it and puts its group, when it has more, at the
 * back of the ring. Its scripts are `grouped-receive`, `grouped-ack` and the queue's
 * `queue-nack` and `queue-extend` on the grouped deadlines index (lua/includes/leases-grouped.lua with the engine's leases.lua).
 */
export function groupedSource(keys: GroupedQueueKeys, concurrency: number): LeaseSource {
  const { stream, deadlines, deadLetter, ready, leased, inflight, wake, backlogPrefix, ungroupedStream } = keys;
  return {
    lease: (target, { visibilityTimeoutMs, max, deliveryLimit, token }, operation) =>
      scriptCalls.groupedReceive(
        target,
        {
          stream,
          deadlines,
          deadLetter,
          ready,
          leased,
          ungroupedStream,
          inflight,
          wake,
          visibilityTimeoutMs,
          max,
          deliveryLimit,
          token,
          backlogPrefix,
          concurrency,
        },
        { operation },
      ),
    decodeLeaseReply: decodeGroupedReceiveReply,
    complete: (target, receipts, operation) =>
      scriptCalls.groupedAck(target, { stream, deadlines, ready, leased, inflight, wake, backlogPrefix, concurrency, receipts }, { operation }),
    // The queue's NACK on the grouped deadlines index and wake stream (it wakes the waiting receives).
    release: (target, receipts, delayMs, operation) => scriptCalls.queueNack(target, { deadlines, wake, delayMs, receipts }, { operation }),
    // Extending touches only the deadlines index: the queue's script on the grouped one.
    extend: (target, receipts, visibilityTimeoutMs, operation) =>
      scriptCalls.queueExtend(target, { deadlines, visibilityTimeoutMs, receipts }, { operation, retrySafe: true }),
  };
}
