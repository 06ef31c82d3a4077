// Which partitioned queues a principal sees, and the one a request names: unknown and hidden ones answer 404 alike.
import {
  isNotFound,
  nearest,
  type PartitionedQueueResource,
  type PartitionedQueueStatus,
  type PartitionedQueueSummary,
  type UnavailablePartitionedQueue,
} from '@respire/admin';
import type { Principal } from './auth.js';
import { HttpError, type HintLink } from './http.js';
import type { Settings } from './options.js';
import { href } from './views/layout.js';

/**
 * Whether this principal sees the partitioned queue: every one is visible unless a `guard` is set
 * (a guard written for queues and streams never saw a partitioned queue, so they stay hidden: fail closed).
 */
export function partitionedQueueVisible(s: Settings, _principal: Principal, _queue: PartitionedQueueResource): boolean {
  return s.guard === undefined;
}

/** The partitioned queues this principal sees, and whether discovery stopped at its page limit. */
export async function visiblePartitionedQueues(
  s: Settings,
  principal: Principal,
): Promise<{ queues: PartitionedQueueSummary[]; discoveryTruncated: boolean; unavailable: UnavailablePartitionedQueue[] }> {
  if (s.guard !== undefined) return { queues: [], discoveryTruncated: false, unavailable: [] };
  const { partitionedQueues, discoveryTruncated, unavailable } = await s.admin.partitionedQueues();
  return {
    queues: partitionedQueues.filter((q) => partitionedQueueVisible(s, principal, q)),
    discoveryTruncated,
    unavailable: unavailable.filter((u) => partitionedQueueVisible(s, principal, u.resource)),
  };
}

/** The partitioned queue the `id` query names (its metadata key), when this principal sees it. @throws {@link HttpError} 404 (with the nearest visible) or 400. */
export async function resolvePartitionedQueue(s: Settings, principal: Principal, id: unknown): Promise<PartitionedQueueStatus> {
  if (typeof id !== 'string' || id === '' || id.length > 65_536) throw new HttpError(400, 'Name a partitioned queue.');
  let queue: PartitionedQueueStatus | undefined;
  if (s.guard === undefined) {
    try {
      queue = await s.admin.partitionedQueue(id);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  if (queue && partitionedQueueVisible(s, principal, queue)) return queue;
  let hints: HintLink[] = [];
  try {
    const { queues } = await visiblePartitionedQueues(s, principal);
    const byId = new Map(queues.map((q) => [q.id, q]));
    hints = nearest(id, byId.keys()).map((near) => ({
      label: `${byId.get(near)!.keyPrefix}${byId.get(near)!.name}`,
      href: href({ base: s.base }, '/partitioned-queue', { id: near }),
    }));
  } catch {
    // the hints are a courtesy: never a reason to fail
  }
  throw new HttpError(404, 'No such partitioned queue.', hints);
}
