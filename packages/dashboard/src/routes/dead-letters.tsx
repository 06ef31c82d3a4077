// Routes of dead-letter pages and their confirmation steps.
import type { Hono } from 'hono';
import type { DeadLetterRecord, QueueResource, StreamResource } from '@respire/admin';
import { ENTRY_ID, HttpError, need, pageCount, param, query, type Ctx, type Env } from '../http.js';
import { noticeOf } from '../notices.js';
import type { Settings } from '../options.js';
import { deadLetterCount, resolveDeadLetterOwner } from '../resources.js';
import { ctxOf, cursorPager } from '../respond.js';
import { ConfirmBulkPage, ConfirmDeletePage } from '../views/confirm.js';
import { DeadLetterPage, DeadLettersPage } from '../views/dead-letters.js';

/** The dead letters of a queue or stream, one dead letter, and the confirmation steps of deleting them. */
export function deadLetterRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/dead-letters', async (c) => {
    const q = query(c);
    const resource = await resolveDeadLetterOwner(s, c, need(q, 'id'));
    const cursor = param(q, 'cursor', { optional: true });
    const order = q['order'] === 'oldest' ? 'oldest' : 'newest';
    const [records, total] = await Promise.all([
      s.admin.deadLetters(resource.id, { count: pageCount(c, s.pageSize), order, ...(cursor ? { cursor } : {}) }),
      deadLetterCount(s, resource),
    ]);
    const ctx = ctxOf(s, c);
    const pager = cursorPager(
      ctx,
      '/dead-letters',
      { id: resource.id, order: order === 'oldest' ? 'oldest' : undefined, refresh: q['refresh'] },
      cursor,
      records.next,
    );
    return c.html(<DeadLettersPage ctx={ctx} resource={resource} total={total} records={records.items} order={order} pager={pager} notice={noticeOf(q)} />);
  });

  routes.get('/dead-letter', async (c) => {
    const { resource, record } = await deadLetterOf(s, c);
    return c.html(<DeadLetterPage ctx={ctxOf(s, c)} resource={resource} record={record} />);
  });

  routes.get('/confirm/delete', async (c) => {
    const { resource, record } = await deadLetterOf(s, c);
    return c.html(<ConfirmDeletePage ctx={ctxOf(s, c)} resource={resource} record={record} />);
  });

  for (const bulk of ['retry-all', 'delete-all'] as const) {
    routes.get(`/confirm/${bulk}`, async (c) => {
      const resource = await resolveDeadLetterOwner(s, c, need(query(c), 'id'));
      const total = await deadLetterCount(s, resource);
      return c.html(<ConfirmBulkPage ctx={ctxOf(s, c)} resource={resource} bulk={bulk} total={total} bulkLimit={s.bulkLimit} />);
    });
  }
}

/** The dead letter `?id=&record=` names; 404 when it is gone. */
async function deadLetterOf(s: Settings, c: Ctx): Promise<{ resource: QueueResource | StreamResource; record: DeadLetterRecord }> {
  const q = query(c);
  const resource = await resolveDeadLetterOwner(s, c, need(q, 'id'));
  const recordId = need(q, 'record', ENTRY_ID);
  const record = await s.admin.deadLetter(resource.id, recordId);
  if (!record) throw new HttpError(404, `Dead letter ${recordId} is gone (retried or deleted).`);
  return { resource, record };
}
