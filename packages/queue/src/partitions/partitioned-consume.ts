// A partitioned queue's consume(): the queue's consumer, with the partitioned waiting receive and settlements as its source.
import type { MessageReceipt } from '../leases/leases.js';
import { Consumer, consumeSettings, type ConsumeContext, type ConsumeOptions, type QueueConsumer } from '../consumer.js';
import type { PartitionedMessage } from './partitioned-queue.js';
import type { PartitionWaiters } from './partitioned-wait.js';

/**
 * A partitioned queue's consumer handler: as `ConsumeHandler`, with the message's partition.
 * Resolving acknowledges, `nackAfter(ms)` NACKs with that delay, a throw NACKs with the retry backoff.
 */
export type PartitionedConsumeHandler<T> = (message: PartitionedMessage<T>, context: ConsumeContext) => unknown;

/** What a partitioned consumer needs of its queue. */
export interface PartitionedConsumedQueue<T> {
  readonly name: string;
  receiveWaiting(
    visibilityTimeoutMs: number,
    max: number,
    waitMs: number,
    waiters: PartitionWaiters,
    beforeWait: () => Promise<void>,
  ): Promise<PartitionedMessage<T>[]>;
  newWaiters(): PartitionWaiters;
  ackMany(messages: readonly MessageReceipt[]): Promise<boolean[]>;
  nackMany(messages: readonly MessageReceipt[], delayMs: number): Promise<boolean[]>;
  extend(message: MessageReceipt, visibilityTimeoutMs: number): Promise<boolean>;
}

/**
 * Starts the queue's consumer (README "Consuming") on a partitioned queue: the same loop,
 * concurrency bound, lease extension, batched settlements (one ackMany per turn of the event loop,
 * split by partition into one round trip each) and stop. Its blocking connections are the
 * partitioned waiting receive's, held until `stop()`.
 * @throws {@link RespireValidationError} for a handler that is not a function or a bad option (before anything starts).
 */
export function startPartitionedConsumer<T>(queue: PartitionedConsumedQueue<T>, handler: PartitionedConsumeHandler<T>, options: ConsumeOptions): QueueConsumer {
  const settings = consumeSettings(handler, options);
  return new Consumer<PartitionedMessage<T>, PartitionWaiters>(
    {
      name: queue.name,
      receiveWaiting: (visibilityTimeoutMs, max, waitMs, waiters, beforeWait) => queue.receiveWaiting(visibilityTimeoutMs, max, waitMs, waiters, beforeWait),
      newWaiter: () => queue.newWaiters(),
      ackMany: (messages) => queue.ackMany(messages),
      nackMany: (messages, delayMs) => queue.nackMany(messages, delayMs),
      extend: (message, visibilityTimeoutMs) => queue.extend(message, visibilityTimeoutMs),
    },
    handler,
    settings,
  );
}
