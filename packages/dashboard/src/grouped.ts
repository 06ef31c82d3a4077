// Which grouped queues a principal sees, and the one a request names: unknown and hidden ones answer 404 alike.
import { isNotFound, nearest, type GroupedQueueResource, type GroupedQueueStatus, type GroupedQueueSummary } from '@respire/admin';
import { CallbackTimeout, within, type Principal } from './auth.js';
import { HttpError, type HintLink } from './http.js';
import type { Settings } from './options.js';
import { href } from './views/layout.js';

/** Whether this principal sees the grouped queue: `groupedQueueGuard` decides when given; without one, all are visible unless a `guard` is set (fail closed). */
export async function groupedQueueVisible(s: Settings, principal: Principal, queue: GroupedQueueResource): Promise<boolean> {
  if (!s.groupedQueueGuard) return s.guard === undefined;
  try {
    return (await within(s.groupedQueueGuard(principal, queue), s.authorizeTimeoutMs, 'groupedQueueGuard')) === true;
  } catch (error) {
    if (error instanceof CallbackTimeout) throw new HttpError(503, 'The access check (groupedQueueGuard) did not answer in time. Try again.');
    throw error;
  }
}

/** The grouped queues this principal sees, and whether discovery stopped at its page limit. */
export async function visibleGroupedQueues(s: Settings, principal: Principal): Promise<{ queues: GroupedQueueSummary[]; discoveryTruncated: boolean }> {
  const { groupedQueues, discoveryTruncated } = await s.admin.groupedQueues();
  const allowed = await Promise.all(groupedQueues.map((q) => groupedQueueVisible(s, principal, q)));
  return { queues: groupedQueues.filter((_, i) => allowed[i]), discoveryTruncated };
}

/** The grouped queue the `id` query names (its grouped stream key), when this principal sees it. @throws {@link HttpError} 404 (with the nearest visible) or 400. */
export async function resolveGroupedQueue(s: Settings, principal: Principal, id: string | undefined): Promise<GroupedQueueStatus> {
  if (id === undefined || id === '' || id.length > 65_536) throw new HttpError(400, 'Name a grouped queue.');
  let queue: GroupedQueueStatus | undefined;
  try {
    queue = await s.admin.groupedQueue(id);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (queue && (await groupedQueueVisible(s, principal, queue))) return queue;
  let hints: HintLink[] = [];
  try {
    const { queues } = await visibleGroupedQueues(s, principal);
    const byId = new Map(queues.map((q) => [q.id, q]));
    hints = nearest(id, byId.keys()).map((near) => ({
      label: `${byId.get(near)!.keyPrefix}${byId.get(near)!.name}`,
      href: href({ base: s.base }, '/grouped-queue', { id: near }),
    }));
  } catch {
    // the hints are a courtesy: never a reason to fail
  }
  throw new HttpError(404, 'No such grouped queue.', hints);
}
