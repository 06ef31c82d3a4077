// A grouped partitioned queue's partition for operators: its counts read from its grouped keys (queue README "Message groups").
import type { QueueResource, QueueStatus } from './api.js';
import type { AdminContext } from './context.js';
import { groupedKeys, groupedSummary, type GroupedQueueSummary } from './grouped.js';

/**
 * The counts of partition `q` of a grouped partitioned queue. Its messages live under its grouped
 * keys (`…:groups:stream`, `…:groups:deadlines`, …), not the ordinary queue keys `queueStatus`
 * reads (those stay empty), so this reads the grouped queue's counts (`groupedSummary`, as
 * `RespireAdmin.groupedQueue` shows them) and maps them onto a {@link QueueStatus}, so the
 * partitioned queue's totals and per-master sums add them as any partition's:
 * - `length`: messages waiting or in flight (XLEN of the grouped stream);
 * - `inFlight`: messages in flight, leased or due for redelivery (HLEN of the leased hash);
 * - `ready`: `length - inFlight`, the messages not delivered yet (some wait behind a blocked group's head);
 * - `due`: members of the grouped deadlines index whose deadline has passed (ZCOUNT up to the server time);
 * - `deadLetters`: XLEN of the grouped dead-letter stream.
 * `resource` stays the partition's queue resource (its slot is the grouped keys' slot too).
 */
export async function groupedPartitionStatus(ctx: AdminContext, q: QueueResource): Promise<{ status: QueueStatus; grouped: GroupedQueueSummary }> {
  const op = 'RespireAdmin partitionedQueue';
  const keys = groupedKeys(q.name, q.keyPrefix);
  const resource = { kind: 'grouped-queue', id: keys.stream, name: q.name, keyPrefix: q.keyPrefix, keys, discovered: false } as const;
  const [grouped, due] = await Promise.all([
    groupedSummary(ctx, resource),
    ctx.redis.timeMs(keys.stream, op).then((now) => ctx.redis.send(keys.deadlines, ['ZCOUNT', keys.deadlines, '-inf', String(now)], op)),
  ]);
  const status: QueueStatus = {
    resource: q,
    length: grouped.messages,
    ready: Math.max(0, grouped.messages - grouped.inFlight),
    inFlight: grouped.inFlight,
    due: Number(due),
    deadLetters: grouped.deadLetters,
    exists: grouped.messages > 0 || grouped.inFlight > 0 || grouped.deadLetters > 0 || grouped.readyGroups > 0,
  };
  return { status, grouped };
}
