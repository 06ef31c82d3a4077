// The reliable queue's source for the lease engine: its own stream, read through its private consumer group.
import { scriptCalls, type QueueKeys } from '@respire/core-scripts/internal';
import type { LeaseSource } from './source.js';

/** The queue's private consumer group, also its one consumer: it records only first delivery. */
export const QUEUE_GROUP = 'respire';

/**
 * The source of a reliable queue's messages: new entries of its stream, taken through its private
 * group; redeliveries come from its deadlines index. Completing a message deletes it (XACKDEL on
 * Redis 8.2+, else XACK + XDEL). Its scripts are `queue-receive`, `queue-ack`, `queue-nack` and `queue-extend`
 * (lua/includes/leases-queue.lua with the engine's lua/includes/leases.lua).
 */
export function queueSource(keys: QueueKeys): LeaseSource {
  const { stream, deadlines, deadLetter, wake } = keys;
  return {
    lease: (target, { visibilityTimeoutMs, max, deliveryLimit, token }, operation) =>
      scriptCalls.queueReceive(target, { stream, deadlines, deadLetter, visibilityTimeoutMs, max, deliveryLimit, token, group: QUEUE_GROUP }, { operation }),
    complete: (target, receipts, operation) => scriptCalls.queueAck(target, { stream, deadlines, group: QUEUE_GROUP, receipts }, { operation }),
    // A NACK that releases a lease also wakes the queue's waiting receives (its wake stream).
    release: (target, receipts, delayMs, operation) => scriptCalls.queueNack(target, { deadlines, wake, delayMs, receipts }, { operation }),
    extend: (target, receipts, visibilityTimeoutMs, operation) =>
      scriptCalls.queueExtend(target, { deadlines, visibilityTimeoutMs, receipts }, { operation, retrySafe: true }),
  };
}
