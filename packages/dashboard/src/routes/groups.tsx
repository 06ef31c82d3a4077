// Routes of a consumer group's page and its confirmation steps.
import type { Hono } from 'hono';
import { ENTRY_ID, intParam, need, pageCount, param, query, type Env } from '../http.js';
import { noticeOf } from '../notices.js';
import type { Settings } from '../options.js';
import { resolveStream } from '../resources.js';
import { ctxOf, cursorPager } from '../respond.js';
import { ConfirmAckPage, ConfirmIdleConsumersPage } from '../views/confirm.js';
import { GroupPage, MAX_CONSUMERS } from '../views/group.js';

/** A consumer group's page and the confirmation steps of its actions. */
export function groupRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/group', async (c) => {
    const q = query(c);
    const stream = await resolveStream(s, c, need(q, 'id'));
    const group = need(q, 'group');
    const consumerFilter = param(q, 'consumer', { optional: true });
    const cursor = param(q, 'cursor', { optional: true });
    const bodyId = param(q, 'body', { optional: true, pattern: ENTRY_ID });
    const [consumers, pending, body] = await Promise.all([
      s.admin.consumers(stream.id, group, { limit: MAX_CONSUMERS }),
      s.admin.pending(stream.id, group, {
        count: pageCount(c, s.pageSize),
        ...(cursor ? { cursor } : {}),
        ...(consumerFilter !== undefined ? { consumer: consumerFilter } : {}),
      }),
      bodyId ? s.admin.entry(stream.id, bodyId) : Promise.resolve(undefined),
    ]);
    const ctx = ctxOf(s, c);
    const pager = cursorPager(ctx, '/group', { id: stream.id, group, consumer: consumerFilter, refresh: q['refresh'] }, cursor, pending.next);
    return c.html(
      <GroupPage
        ctx={ctx}
        stream={stream}
        group={group}
        consumers={consumers}
        pending={pending.items}
        pager={pager}
        consumerFilter={consumerFilter}
        body={bodyId ? { id: bodyId, entry: body ?? null } : undefined}
        notice={noticeOf(q)}
      />,
    );
  });

  routes.get('/confirm/ack', async (c) => {
    const q = query(c);
    const stream = await resolveStream(s, c, need(q, 'id'));
    const group = need(q, 'group');
    const entry = need(q, 'entry', ENTRY_ID);
    const deliveryCount = intParam(q, 'deliveryCount', 1, Number.MAX_SAFE_INTEGER);
    const consumer = need(q, 'consumer');
    return c.html(<ConfirmAckPage ctx={ctxOf(s, c)} stream={stream} group={group} entry={entry} deliveryCount={deliveryCount} consumer={consumer} />);
  });

  routes.get('/confirm/remove-idle-consumers', async (c) => {
    const q = query(c);
    const stream = await resolveStream(s, c, need(q, 'id'));
    const group = need(q, 'group');
    const minIdleMs = intParam(q, 'minIdleMinutes', 1, 525_600) * 60_000;
    const consumers = await s.admin.consumers(stream.id, group, { limit: MAX_CONSUMERS });
    return c.html(<ConfirmIdleConsumersPage ctx={ctxOf(s, c)} stream={stream} group={group} minIdleMs={minIdleMs} consumers={consumers} />);
  });
}
