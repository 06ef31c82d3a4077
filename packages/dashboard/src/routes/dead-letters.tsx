// Routes of dead-letter pages (search, pages, one record) and the confirmation steps of deleting them and of bulk jobs.
import type { Hono } from 'hono';
import type { DeadLetterFilter, DeadLetterRecord, QueueResource, StreamResource } from '@respire/admin';
import { ENTRY_ID, form, HttpError, need, pageCount, pageQuery, query, type Ctx, type Env } from '../http.js';
import { noticeOf } from '../notices.js';
import type { Settings } from '../options.js';
import { ref } from '../refs.js';
import { deadLetterCount, resolveDeadLetterOwner } from '../resources.js';
import { ctxOf } from '../respond.js';
import { cursorPaging } from '../views/components.js';
import { ConfirmDeletePage, ConfirmJobPage } from '../views/confirm.js';
import { DeadLetterPage, DeadLettersPage } from '../views/dead-letters.js';

/** The search parameters of the dead-letter list, as the admin API's filter and as query parameters. */
export function filterOf(q: Record<string, unknown>): { filter: DeadLetterFilter | undefined; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const filter: { -readonly [K in keyof DeadLetterFilter]: DeadLetterFilter[K] } = {};
  const text = (name: 'reason' | 'group' | 'exceptionType', max: number) => {
    const v = q[name];
    if (typeof v !== 'string' || v === '') return;
    if (v.length > max) throw new HttpError(400, `Invalid ${name}.`);
    filter[name] = v;
    params[name] = v;
  };
  text('reason', 64);
  text('group', 65_536);
  text('exceptionType', 256);
  const source = q['sourceId'];
  if (typeof source === 'string' && source !== '') {
    if (!ENTRY_ID.test(source)) throw new HttpError(400, 'Invalid sourceId.');
    filter.sourceId = source;
    params.sourceId = source;
  }
  for (const [name, key] of [
    ['since', 'sinceMs'],
    ['until', 'untilMs'],
  ] as const) {
    const v = q[name];
    if (typeof v !== 'string' || v === '') continue;
    // A datetime-local value (UTC, the server time the pages show), or ms since the epoch.
    const ms = /^\d{1,16}$/.test(v) ? Number(v) : /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(v) ? Date.parse(`${v}Z`) : Number.NaN;
    if (!Number.isFinite(ms)) throw new HttpError(400, `Invalid ${name}.`);
    filter[key] = name === 'until' && !/^\d+$/.test(v) ? ms + 59_999 : ms;
    params[name] = v;
  }
  return { filter: Object.keys(filter).length === 0 ? undefined : filter, params };
}

export function deadLetterRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/dead-letters', async (c) => {
    const q = query(c);
    const resource = await resolveDeadLetterOwner(s, c, q);
    const order = q['order'] === 'oldest' ? 'oldest' : 'newest';
    const { filter, params } = filterOf(q);
    const at = pageQuery(q);
    const [records, total] = await Promise.all([
      s.admin.deadLetters(resource.id, { count: pageCount(c, s.pageSize), order, ...at, ...(filter ? { filter } : {}) }),
      deadLetterCount(s, resource),
    ]);
    const ctx = ctxOf(s, c);
    const keep = { ...ref('id', resource.id), ...params, order: order === 'oldest' ? 'oldest' : undefined, refresh: q['refresh'] };
    const paging = cursorPaging(ctx, '/dead-letters', keep, records);
    return c.html(
      <DeadLettersPage
        ctx={ctx}
        resource={resource}
        total={total}
        records={records.items}
        order={order}
        paging={paging}
        filter={filter}
        filterParams={params}
        search={filter ? { scanned: records.scanned, complete: records.complete } : undefined}
        notice={noticeOf(q)}
      />,
    );
  });

  routes.get('/dead-letter', async (c) => {
    const { resource, record } = await deadLetterOf(s, c);
    return c.html(<DeadLetterPage ctx={ctxOf(s, c)} resource={resource} record={record} />);
  });

  routes.get('/confirm/delete', async (c) => {
    const { resource, record } = await deadLetterOf(s, c);
    return c.html(<ConfirmDeletePage ctx={ctxOf(s, c)} resource={resource} record={record} />);
  });

  // The step before a job: from the list's buttons (GET, with the search) or its selection (POST: many IDs).
  const confirmJob = async (c: Ctx, source: Record<string, unknown>) => {
    const resource = await resolveDeadLetterOwner(s, c, source);
    const action = source['action'];
    if (action !== 'retry' && action !== 'delete') throw new HttpError(400, 'Invalid action.');
    const selected = source['record'];
    const recordIds = selected === undefined ? undefined : (Array.isArray(selected) ? selected : [selected]).map(String);
    if (recordIds !== undefined && (recordIds.length === 0 || recordIds.length > 1000 || !recordIds.every((r) => ENTRY_ID.test(r)))) {
      throw new HttpError(400, 'Select 1 to 1000 dead letters.');
    }
    const { filter, params } = filterOf(source);
    const total = await deadLetterCount(s, resource);
    return c.html(
      <ConfirmJobPage ctx={ctxOf(s, c)} resource={resource} action={action} filter={filter} recordIds={recordIds} total={total} filterFields={params} />,
    );
  };
  routes.get('/confirm/job', async (c) => {
    const records = c.req.queries('record');
    return confirmJob(c, { ...query(c), ...(records ? { record: records } : {}) });
  });
  routes.post('/confirm/job', async (c) => {
    const f = await form(c, true);
    if (f['record'] === undefined) throw new HttpError(400, 'Select the dead letters first.');
    return confirmJob(c, f);
  });
}

/** The dead letter `?id=&record=` names; 404 when it is gone. */
async function deadLetterOf(s: Settings, c: Ctx): Promise<{ resource: QueueResource | StreamResource; record: DeadLetterRecord }> {
  const q = query(c);
  const resource = await resolveDeadLetterOwner(s, c, q);
  const recordId = need(q, 'record', ENTRY_ID);
  const record = await s.admin.deadLetter(resource.id, recordId);
  if (!record) throw new HttpError(404, `Dead letter ${recordId} is gone (retried or deleted).`);
  return { resource, record };
}
