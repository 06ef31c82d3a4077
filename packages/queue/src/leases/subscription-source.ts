// A topic subscription's source for the lease engine: the topic's shared stream, read through the subscription's own group.
import { scriptCalls, type SubscriptionKeys, type TopicKeys } from '@respire/core-scripts/internal';
import type { LeaseSource } from './source.js';

/**
 * The source of a topic subscription's messages: new publications of the topic's stream, taken
 * through the subscription's own consumer group (which `create()` makes; receiving without it is a
 * `RespireStateError`); redeliveries come from the subscription's own deadlines index. Completing a
 * message only acknowledges it in the group (XACK, never XDEL): the topic's retention removes a
 * publication once no subscription needs it. A dead letter the admin retried is due again in the
 * deadlines index, its body copied to the subscription's retried hash (read when retention has
 * trimmed the publication, deleted on completion). A queue is this engine with one private subscription
 * whose completion deletes ({@link queueSource}). Its scripts are `topic-receive` and `topic-ack`
 * (lua/includes/leases-subscription.lua with the engine's lua/includes/leases.lua); release and
 * extend are the queue's `queue-nack` (on the subscription's deadlines index and wake stream) and
 * `queue-extend` (on its deadlines index).
 */
export function subscriptionSource(topic: TopicKeys, subscription: SubscriptionKeys): LeaseSource {
  const { stream, trimmed } = topic;
  const { group, deadlines, deadLetter, wake, retried } = subscription;
  return {
    lease: (target, { visibilityTimeoutMs, max, deliveryLimit, token }, operation) =>
      scriptCalls.topicReceive(
        target,
        { stream, deadlines, deadLetter, trimmed, retried, visibilityTimeoutMs, max, deliveryLimit, token, group },
        { operation },
      ),
    complete: (target, receipts, operation) => scriptCalls.topicAck(target, { stream, deadlines, retried, group, receipts }, { operation }),
    // A NACK that releases a lease also wakes the subscription's waiting receives (its wake stream).
    release: (target, receipts, delayMs, operation) => scriptCalls.queueNack(target, { deadlines, wake, delayMs, receipts }, { operation }),
    extend: (target, receipts, visibilityTimeoutMs, operation) =>
      scriptCalls.queueExtend(target, { deadlines, visibilityTimeoutMs, receipts }, { operation, retrySafe: true }),
  };
}
