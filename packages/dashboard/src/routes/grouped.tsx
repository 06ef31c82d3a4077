// Routes of the grouped queues list and one grouped queue's groups page (read-only).
import type { Hono } from 'hono';
import { pageCount, param, query, type Env } from '../http.js';
import type { Settings } from '../options.js';
import { ctxOf } from '../respond.js';
import { resolveGroupedQueue, visibleGroupedQueues } from '../grouped.js';
import { cursorPaging } from '../views/components.js';
import { GroupedQueuePage, GroupedQueuesPage } from '../views/grouped.js';

/** A cursor of the in-flight page: a deadline in ms, a colon, then a deadlines member (the admin checks the member). */
const IN_FLIGHT_CURSOR = /^\d+:.+$/s;

export function groupedRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/grouped-queues', async (c) => {
    const { queues, discoveryTruncated } = await visibleGroupedQueues(s, c.get('principal'));
    return c.html(<GroupedQueuesPage ctx={ctxOf(s, c)} queues={queues} discoveryTruncated={discoveryTruncated} />);
  });

  routes.get('/grouped-queue', async (c) => {
    const q = query(c);
    const queue = await resolveGroupedQueue(s, c.get('principal'), q['id']);
    const cursor = param(q, 'cursor', { optional: true, pattern: IN_FLIGHT_CURSOR });
    const heads = await s.admin.groupsInFlight(queue.id, { count: pageCount(c, s.pageSize), ...(cursor ? { cursor } : {}) });
    const paging = cursorPaging(ctxOf(s, c), '/grouped-queue', { id: queue.id }, heads, { first: cursor === undefined, last: true });
    return c.html(<GroupedQueuePage ctx={ctxOf(s, c)} queue={queue} heads={heads} paging={paging} />);
  });
}
