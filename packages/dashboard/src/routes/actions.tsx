// The state-changing actions (POST; the gate in middleware/state-changes checks role, origin and token first): a page or, for scripted clients, JSON.
import type { Hono } from 'hono';
import type { PendingActionResult } from '@respire/admin';
import { count } from '../format.js';
import { ENTRY_ID, form, HttpError, intParam, need, type Env } from '../http.js';
import { noticeParams } from '../notices.js';
import type { Settings } from '../options.js';
import { ref } from '../refs.js';
import { resolveDeadLetterOwner, resolveQueue, resolveStream } from '../resources.js';
import { done, refused } from '../respond.js';
import { href } from '../views/layout.js';
import { Name } from '../views/name.js';
import { filterOf } from './dead-letters.js';
import { JOB_ID } from './jobs.js';

export function actionRoutes(routes: Hono<Env>, s: Settings): void {
  const alreadyGone = (record: string) => (
    <p>
      Dead letter <code>{record}</code> is no longer there: it was retried or deleted already. Nothing was done.
    </p>
  );

  routes.post('/actions/retry', async (c) => {
    const f = await form(c);
    const resource = await resolveDeadLetterOwner(s, c, f);
    const record = need(f, 'record', ENTRY_ID);
    const result = await s.admin.retryDeadLetter(c.get('principal'), resource.id, record);
    if (result.status === 'retried')
      return done(s, c, result, '/dead-letters', { ...ref('id', resource.id), ...noticeParams('retried', { record, newId: result.newId }) });
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

  routes.post('/actions/delete', async (c) => {
    const f = await form(c);
    const resource = await resolveDeadLetterOwner(s, c, f);
    const record = need(f, 'record', ENTRY_ID);
    const result = await s.admin.deleteDeadLetter(c.get('principal'), resource.id, record);
    if (result.status === 'deleted') return done(s, c, result, '/dead-letters', { ...ref('id', resource.id), ...noticeParams('deleted', { record }) });
    return refused(s, c, result, 'Already gone', alreadyGone(record));
  });

  // A bulk job: the selected records, or every record matching the search, retried or deleted in the background.
  routes.post('/actions/job', async (c) => {
    const f = await form(c);
    const resource = await resolveDeadLetterOwner(s, c, f);
    const action = f['action'];
    if (action !== 'retry' && action !== 'delete') throw new HttpError(400, 'Invalid action.');
    const records = typeof f['records'] === 'string' && f['records'] !== '' ? f['records'].split(',') : undefined;
    if (records && (records.length > 1000 || !records.every((r) => ENTRY_ID.test(r)))) throw new HttpError(400, 'Invalid records.');
    const { filter } = filterOf(f);
    const running = await s.admin.startJob(c.get('principal'), resource.id, { action, ...(records ? { recordIds: records } : filter ? { filter } : {}) });
    return done(s, c, { job: running.job }, '/job', { job: running.job.id });
  });

  routes.post('/actions/job-cancel', async (c) => {
    const f = await form(c);
    const id = need(f, 'job', JOB_ID);
    await jobOfVisible(s, c, id);
    const result = await s.admin.cancelJob(c.get('principal'), id);
    return done(s, c, result, '/job', { job: id, ...(result.status === 'asked' ? noticeParams('job-cancel') : {}) });
  });

  routes.post('/actions/job-resume', async (c) => {
    const f = await form(c);
    const id = need(f, 'job', JOB_ID);
    await jobOfVisible(s, c, id);
    const running = await s.admin.resumeJob(c.get('principal'), id);
    return done(s, c, { job: running.job }, '/job', { job: id, ...noticeParams('job-resumed') });
  });

  for (const pendingAction of ['release', 'ack'] as const) {
    routes.post(`/actions/${pendingAction}`, async (c) => {
      const f = await form(c);
      const stream = await resolveStream(s, c, f);
      const group = need(f, 'group');
      const entry = need(f, 'entry', ENTRY_ID);
      const consumer = typeof f['consumer'] === 'string' ? f['consumer'] : undefined;
      if (consumer === undefined || consumer.length > 65_536) throw new HttpError(400, 'Invalid consumer.');
      const expected = { deliveryCount: intParam(f, 'deliveryCount', 0, Number.MAX_SAFE_INTEGER), consumer };
      const deleteEntry = f['deleteEntry'] === '1';
      const principal = c.get('principal');
      const result =
        pendingAction === 'release'
          ? await s.admin.releasePending(principal, stream.id, group, entry, expected)
          : await s.admin.ackPending(principal, stream.id, group, entry, expected, { deleteEntry });
      const back = href({ base: s.base }, '/group', { ...ref('id', stream.id), ...ref('group', group) });
      if (result.status === 'missing') return refused(s, c, result, 'No longer pending', <NoLongerPending entry={entry} group={group} back={back} />);
      if (result.status === 'changed')
        return refused(s, c, result, 'Changed since the page was rendered', <Changed entry={entry} expected={expected} now={result} back={back} />);
      const kept = 'entryKeptFor' in result ? (result.entryKeptFor?.length ?? 0) : 0;
      return done(s, c, result, '/group', {
        ...ref('id', stream.id),
        ...ref('group', group),
        ...noticeParams(result.status === 'released' ? 'released' : 'acked', {
          entry,
          deleted: 'entryDeleted' in result && result.entryDeleted ? '1' : undefined,
          kept: kept > 0 ? kept : undefined,
        }),
      });
    });
  }

  routes.post('/actions/remove-idle-consumers', async (c) => {
    const f = await form(c);
    const stream = await resolveStream(s, c, f);
    const group = need(f, 'group');
    const minIdleMs = intParam(f, 'minIdleMs', 1000, 525_600 * 60_000);
    const result = await s.admin.removeIdleConsumers(c.get('principal'), stream.id, group, minIdleMs);
    return done(s, c, result, '/group', {
      ...ref('id', stream.id),
      ...ref('group', group),
      ...noticeParams('removed-consumers', { n: result.removed.length, kept: result.keptWithPending.length }),
    });
  });

  for (const messageAction of ['release-message', 'delete-message'] as const) {
    routes.post(`/actions/${messageAction}`, async (c) => {
      const f = await form(c);
      const queue = await resolveQueue(s, c, f);
      const entry = need(f, 'entry', ENTRY_ID);
      const expected = { deliveryCount: intParam(f, 'deliveryCount', 0, Number.MAX_SAFE_INTEGER), untilMs: intParam(f, 'untilMs', 0, Number.MAX_SAFE_INTEGER) };
      const principal = c.get('principal');
      const result =
        messageAction === 'release-message'
          ? await s.admin.releaseQueueMessage(principal, queue.id, entry, expected)
          : await s.admin.deleteQueueMessage(principal, queue.id, entry, expected);
      const back = href({ base: s.base }, '/message', { ...ref('id', queue.id), entry });
      if (result.status === 'missing') {
        return refused(
          s,
          c,
          result,
          'No longer in flight',
          <p>
            Message <code>{entry}</code> is no longer leased or delayed: it was acknowledged or dead-lettered meanwhile. Nothing was done.{' '}
            <a href={href({ base: s.base }, '/messages', ref('id', queue.id))}>Back to the messages</a>
          </p>,
        );
      }
      if (result.status === 'changed') {
        return refused(
          s,
          c,
          result,
          'Changed since the page was rendered',
          <p>
            Message <code>{entry}</code> was delivered again, NACKed, released or completed since the page showed delivery {count(expected.deliveryCount)}.
            Nothing was done. <a href={back}>Reload the message and decide again</a>
          </p>,
        );
      }
      if (result.status === 'deleted')
        return done(s, c, result, '/messages', { ...ref('id', queue.id), view: 'in-flight', ...noticeParams('message-deleted', { entry }) });
      return done(s, c, result, '/message', { ...ref('id', queue.id), entry, ...noticeParams('message-released', { entry }) });
    });
  }
}

/** The job, if its resource is visible to this principal; else 404 (like an unknown job). */
async function jobOfVisible(s: Settings, c: Parameters<typeof resolveStream>[1], id: string) {
  const job = await s.admin.job(id);
  if (!job) throw new HttpError(404, 'No such job.');
  try {
    await resolveDeadLetterOwner(s, c, { id: job.resource });
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) throw new HttpError(404, 'No such job.');
    throw error;
  }
  return job;
}

function NoLongerPending({ entry, group, back }: { entry: string; group: string; back: string }) {
  return (
    <>
      <p>
        Entry <code>{entry}</code> is no longer pending in group <Name value={group} />: it was acknowledged or released already, or its body was deleted from
        the stream (a release then drops the dangling pending record). Nothing else was done.
      </p>
      <p>
        <a href={back}>Back to the group</a>
      </p>
    </>
  );
}

type Fence = { readonly deliveryCount: number; readonly consumer: string };

function Changed({ entry, expected, now, back }: { entry: string; expected: Fence; now: Extract<PendingActionResult, { status: 'changed' }>; back: string }) {
  return (
    <>
      <p class="notice error" role="alert">
        Nothing was done: entry <code>{entry}</code> changed since the page was rendered.
      </p>
      <dl class="facts">
        <dt>Shown on the page</dt>
        <dd>
          owner <Name value={expected.consumer} />, {count(expected.deliveryCount)} deliveries
        </dd>
        <dt>Now</dt>
        <dd>
          owner <Name value={now.consumer} />, {count(now.deliveryCount)} deliveries
        </dd>
      </dl>
      <p>
        <a href={back}>Reload the group and decide again</a>
      </p>
    </>
  );
}
