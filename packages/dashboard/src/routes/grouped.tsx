// Routes of the grouped queues list, one grouped queue's groups page, and its dead letters: pages, confirmations and actions (the gate in middleware/state-changes checks role, origin and token first).
import type { Hono } from 'hono';
import { ENTRY_ID, form, HttpError, need, pageCount, pageQuery, param, query, type Ctx, type Env } from '../http.js';
import { noticeOf, noticeParams } from '../notices.js';
import type { Settings } from '../options.js';
import { ctxOf, done, refused } from '../respond.js';
import { resolveGroupedQueue, visibleGroupedQueues } from '../grouped.js';
import { cursorPaging } from '../views/components.js';
import { GroupedQueuePage, GroupedQueuesPage } from '../views/grouped.js';
import { ConfirmGroupedBulkPage, ConfirmGroupedDeletePage, GROUPED_BULK_MAX, GroupedDeadLettersPage } from '../views/grouped-dead-letters.js';
import { Name } from '../views/name.js';

/** A cursor of the in-flight page: a deadline in ms, a colon, then a deadlines member (the admin checks the member). */
const IN_FLIGHT_CURSOR = /^\d+:.+$/s;
/** Dead letters shown on a grouped queue's own page, newest first (the rest on its dead-letters page). */
const DEAD_LETTERS_ON_PAGE = 20;

export function groupedRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/grouped-queues', async (c) => {
    const { queues, discoveryTruncated } = await visibleGroupedQueues(s, c.get('principal'));
    return c.html(<GroupedQueuesPage ctx={ctxOf(s, c)} queues={queues} discoveryTruncated={discoveryTruncated} />);
  });

  routes.get('/grouped-queue', async (c) => {
    const q = query(c);
    const queue = await resolveGroupedQueue(s, c.get('principal'), q['id']);
    const cursor = param(q, 'cursor', { optional: true, pattern: IN_FLIGHT_CURSOR });
    const [heads, deadLetters] = await Promise.all([
      s.admin.groupsInFlight(queue.id, { count: pageCount(c, s.pageSize), ...(cursor ? { cursor } : {}) }),
      s.admin.groupedDeadLetters(queue.id, { count: DEAD_LETTERS_ON_PAGE }),
    ]);
    const paging = cursorPaging(ctxOf(s, c), '/grouped-queue', { id: queue.id }, heads, { first: cursor === undefined, last: true });
    return c.html(<GroupedQueuePage ctx={ctxOf(s, c)} queue={queue} heads={heads} paging={paging} deadLetters={deadLetters} notice={noticeOf(q)} />);
  });

  routes.get('/grouped-dead-letters', async (c) => {
    const q = query(c);
    const queue = await resolveGroupedQueue(s, c.get('principal'), q['id']);
    const page = await s.admin.groupedDeadLetters(queue.id, { count: pageCount(c, s.pageSize), ...pageQuery(q) });
    const paging = cursorPaging(ctxOf(s, c), '/grouped-dead-letters', { id: queue.id }, page);
    return c.html(<GroupedDeadLettersPage ctx={ctxOf(s, c)} queue={queue} records={page.items} paging={paging} notice={noticeOf(q)} />);
  });

  const queueOf = (c: Ctx, source: Record<string, unknown>) =>
    resolveGroupedQueue(s, c.get('principal'), typeof source['id'] === 'string' ? source['id'] : undefined);
  const alreadyGone = (record: string) => (
    <p>
      Dead letter <code>{record}</code> is no longer there: it was retried or deleted already. Nothing was done.
    </p>
  );

  // Retry: the message goes back to the end of its group (admin retryGroupedDeadLetter), so no confirmation, as the queue's Retry.
  routes.post('/actions/grouped-retry', async (c) => {
    const f = await form(c);
    const queue = await queueOf(c, f);
    const record = need(f, 'record', ENTRY_ID);
    const result = await s.admin.retryGroupedDeadLetter(c.get('principal'), queue.id, record);
    if (result.status === 'retried') return done(s, c, result, '/grouped-queue', { id: queue.id, ...noticeParams('retried', { record, newId: result.newId }) });
    if (result.status === 'missing') return refused(s, c, result, 'Already gone', alreadyGone(record));
    return refused(
      s,
      c,
      result,
      'Retry refused',
      <p>
        Dead letter <code>{record}</code> was not retried: <Name value={result.reason} />
      </p>,
    );
  });

  routes.get('/confirm/grouped-delete', async (c) => {
    const q = query(c);
    const queue = await queueOf(c, q);
    const record = need(q, 'record', ENTRY_ID);
    return c.html(<ConfirmGroupedDeletePage ctx={ctxOf(s, c)} queue={queue} record={record} />);
  });

  routes.post('/actions/grouped-delete', async (c) => {
    const f = await form(c);
    const queue = await queueOf(c, f);
    const record = need(f, 'record', ENTRY_ID);
    const result = await s.admin.deleteGroupedDeadLetter(c.get('principal'), queue.id, record);
    if (result.status === 'deleted') return done(s, c, result, '/grouped-queue', { id: queue.id, ...noticeParams('deleted', { record }) });
    return refused(s, c, result, 'Already gone', alreadyGone(record));
  });

  // Retry all… and Delete all…: the admin's bounded bulk functions, run within the request (audited as retry-all / delete-all).
  routes.get('/confirm/grouped-bulk', async (c) => {
    const q = query(c);
    const action = q['action'];
    if (action !== 'retry' && action !== 'delete') throw new HttpError(400, "The action is 'retry' or 'delete'.");
    const queue = await queueOf(c, q);
    return c.html(<ConfirmGroupedBulkPage ctx={ctxOf(s, c)} queue={queue} action={action} />);
  });

  for (const action of ['retry', 'delete'] as const) {
    routes.post(`/actions/grouped-${action}-all`, async (c) => {
      const f = await form(c);
      const n = Number(need(f, 'limit', /^\d{1,9}$/));
      if (n < 1 || n > GROUPED_BULK_MAX) throw new HttpError(400, `Retry or delete 1 to ${GROUPED_BULK_MAX} dead letters at a time.`);
      const queue = await queueOf(c, f);
      const principal = c.get('principal');
      // The records confirmed are the oldest `limit` ones; a confirmed action runs to that bound even if the browser goes away.
      const options = { limit: n, pageSize: 500 };
      const result =
        action === 'retry'
          ? await s.admin.retryAllGroupedDeadLetters(principal, queue.id, options)
          : await s.admin.deleteAllGroupedDeadLetters(principal, queue.id, options);
      return done(s, c, result, '/grouped-queue', { id: queue.id, ...noticeParams(`grouped-${action}-all`, { done: result.done, failed: result.failed }) });
    });
  }
}
