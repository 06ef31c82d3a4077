// Routes of a consumer group's page and the confirmation steps of its actions.
import type { Hono } from 'hono';
import type { StreamResource } from '@respire/admin';
import { ENTRY_ID, HttpError, intParam, need, pageCount, pageQuery, param, query, type Env } from '../http.js';
import { noticeOf } from '../notices.js';
import type { Settings } from '../options.js';
import { DIGEST, digestOf } from '../refs.js';
import { resolveGroup, resolveStream } from '../resources.js';
import { ctxOf } from '../respond.js';
import { cursorPaging } from '../views/components.js';
import { ConfirmAckPage, ConfirmIdleConsumersPage } from '../views/confirm.js';
import { filterParams, GroupPage, groupParams, MAX_CONSUMERS } from '../views/group.js';

export function groupRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/group', async (c) => {
    const q = query(c);
    const stream = await resolveStream(s, c, q);
    const group = await resolveGroup(s, stream, q);
    const minutes = q['minIdleMinutes'] ? intParam(q, 'minIdleMinutes', 0, 35_791) : 0;
    const minIdleMs = minutes > 0 ? minutes * 60_000 : undefined;
    const bodyId = param(q, 'body', { optional: true, pattern: ENTRY_ID });
    const at = pageQuery(q);
    const [status, consumers, body] = await Promise.all([
      s.admin.group(stream.id, group),
      s.admin.consumers(stream.id, group, { limit: MAX_CONSUMERS }),
      bodyId ? s.admin.entry(stream.id, bodyId) : Promise.resolve(undefined),
    ]);
    const consumerFilter = consumerOf(
      q,
      consumers.items.map((x) => x.name),
    );
    const pending = await s.admin.pending(stream.id, group, {
      count: pageCount(c, s.pageSize),
      ...at,
      ...(consumerFilter !== undefined ? { consumer: consumerFilter } : {}),
      ...(minIdleMs ? { minIdleMs } : {}),
    });
    const ctx = ctxOf(s, c);
    const keep = groupParams(stream, group, { ...filterParams({ consumerFilter, minIdleMs }), refresh: q['refresh'] });
    const paging = cursorPaging(ctx, '/group', keep, pending);
    return c.html(
      <GroupPage
        ctx={ctx}
        stream={stream}
        group={status}
        consumers={consumers}
        pending={pending.items}
        paging={paging}
        consumerFilter={consumerFilter}
        minIdleMs={minIdleMs}
        body={bodyId ? { id: bodyId, entry: body ?? null } : undefined}
        activeMs={s.consumerActiveMs}
        notice={noticeOf(q)}
      />,
    );
  });

  routes.get('/confirm/ack', async (c) => {
    const q = query(c);
    const stream = await resolveStream(s, c, q);
    const group = await resolveGroup(s, stream, q);
    const entry = need(q, 'entry', ENTRY_ID);
    const deliveryCount = intParam(q, 'deliveryCount', 1, Number.MAX_SAFE_INTEGER);
    const consumer = await fencedConsumer(s, stream, group, entry, q);
    return c.html(<ConfirmAckPage ctx={ctxOf(s, c)} stream={stream} group={group} entry={entry} deliveryCount={deliveryCount} consumer={consumer} />);
  });

  routes.get('/confirm/remove-idle-consumers', async (c) => {
    const q = query(c);
    const stream = await resolveStream(s, c, q);
    const group = await resolveGroup(s, stream, q);
    const minIdleMs = intParam(q, 'minIdleMinutes', 1, 525_600) * 60_000;
    const consumers = await s.admin.consumers(stream.id, group, { limit: MAX_CONSUMERS });
    return c.html(<ConfirmIdleConsumersPage ctx={ctxOf(s, c)} stream={stream} group={group} minIdleMs={minIdleMs} consumers={consumers} />);
  });
}

/** The consumer filter: `consumer`, or `consumerh` (the digest of a long name) among the group's consumers. */
function consumerOf(q: Record<string, string>, names: readonly string[]): string | undefined {
  const digest = param(q, 'consumerh', { optional: true, pattern: DIGEST });
  if (digest === undefined) return param(q, 'consumer', { optional: true });
  const found = names.find((n) => digestOf(n) === digest);
  if (found === undefined) throw new HttpError(404, 'No consumer by that name in this group (or too many consumers to look it up).');
  return found;
}

/**
 * The owner an ack's confirmation names: `consumer`, or for a long name its digest, checked
 * against the entry's owner now (a different owner is a changed entry: the ack would be refused).
 */
async function fencedConsumer(s: Settings, stream: StreamResource, group: string, entry: string, q: Record<string, string>): Promise<string> {
  const digest = param(q, 'consumerh', { optional: true, pattern: DIGEST });
  if (digest === undefined) return param(q, 'consumer', { optional: true }) ?? '';
  const row = (await s.admin.find(stream.id, entry)).groups?.find((g) => g.group === group)?.pending;
  if (!row || digestOf(row.consumer) !== digest)
    throw new HttpError(409, `Entry ${entry} changed since the page was rendered: reload the group and decide again.`);
  return row.consumer;
}
