// The state-changing actions (POST).
import type { Hono } from 'hono';
import type { PendingActionResult } from '@respire/admin';
import { count, shown } from '../format.js';
import { ENTRY_ID, form, intParam, need, type Env } from '../http.js';
import type { Settings } from '../options.js';
import { deadLetterCount, resolveDeadLetterOwner, resolveStream } from '../resources.js';
import { page, redirect } from '../respond.js';
import { href } from '../views/layout.js';

/** The state changes (POST; the gate in middleware/state-changes checks role, origin and token first). */
export function actionRoutes(routes: Hono<Env>, s: Settings): void {
  const alreadyGone = (record: string) => (
    <p>
      Dead letter <code>{record}</code> is no longer there: it was retried or deleted already. Nothing was done.
    </p>
  );

  routes.post('/actions/retry', async (c) => {
    const f = await form(c);
    const resource = await resolveDeadLetterOwner(s, c, need(f, 'id'));
    const record = need(f, 'record', ENTRY_ID);
    const result = await s.admin.retryDeadLetter(c.get('principal'), resource.id, record);
    if (result.status === 'retried') return redirect(s, c, '/dead-letters', { id: resource.id, done: 'retried', record, newId: result.newId });
    if (result.status === 'missing') return page(s, c, 409, 'Already gone', alreadyGone(record));
    return page(
      s,
      c,
      409,
      'Retry refused',
      <p>
        Dead letter <code>{record}</code> was not retried: {shown(result.reason)}
      </p>,
    );
  });

  routes.post('/actions/delete', async (c) => {
    const f = await form(c);
    const resource = await resolveDeadLetterOwner(s, c, need(f, 'id'));
    const record = need(f, 'record', ENTRY_ID);
    const result = await s.admin.deleteDeadLetter(c.get('principal'), resource.id, record);
    if (result.status === 'deleted') return redirect(s, c, '/dead-letters', { id: resource.id, done: 'deleted', record });
    return page(s, c, 409, 'Already gone', alreadyGone(record));
  });

  for (const bulk of ['retry-all', 'delete-all'] as const) {
    routes.post(`/actions/${bulk}`, async (c) => {
      const f = await form(c);
      const resource = await resolveDeadLetterOwner(s, c, need(f, 'id'));
      const run = bulk === 'retry-all' ? s.admin.retryAllDeadLetters.bind(s.admin) : s.admin.deleteAllDeadLetters.bind(s.admin);
      const progress = await run(c.get('principal'), resource.id, { limit: s.bulkLimit, pageSize: Math.min(100, s.bulkLimit), signal: c.req.raw.signal });
      const remain = await deadLetterCount(s, resource);
      return redirect(s, c, '/dead-letters', {
        id: resource.id,
        done: bulk === 'retry-all' ? 'retried-all' : 'deleted-all',
        n: progress.done,
        failed: progress.failed,
        remain,
      });
    });
  }

  for (const pendingAction of ['release', 'ack'] as const) {
    routes.post(`/actions/${pendingAction}`, async (c) => {
      const f = await form(c);
      const stream = await resolveStream(s, c, need(f, 'id'));
      const group = need(f, 'group');
      const entry = need(f, 'entry', ENTRY_ID);
      const expected = { deliveryCount: intParam(f, 'deliveryCount', 1, Number.MAX_SAFE_INTEGER), consumer: need(f, 'consumer') };
      const deleteEntry = f['deleteEntry'] === '1';
      const principal = c.get('principal');
      const result =
        pendingAction === 'release'
          ? await s.admin.releasePending(principal, stream.id, group, entry, expected)
          : await s.admin.ackPending(principal, stream.id, group, entry, expected, { deleteEntry });
      const back = href({ base: s.base }, '/group', { id: stream.id, group });
      if (result.status === 'missing') return page(s, c, 409, 'No longer pending', <NoLongerPending entry={entry} group={group} back={back} />);
      if (result.status === 'changed')
        return page(s, c, 409, 'Changed since the page was rendered', <Changed entry={entry} expected={expected} now={result} back={back} />);
      return redirect(s, c, '/group', {
        id: stream.id,
        group,
        done: result.status === 'released' ? 'released' : 'acked',
        entry,
        deleted: deleteEntry ? '1' : undefined,
      });
    });
  }

  routes.post('/actions/remove-idle-consumers', async (c) => {
    const f = await form(c);
    const stream = await resolveStream(s, c, need(f, 'id'));
    const group = need(f, 'group');
    const minIdleMs = intParam(f, 'minIdleMs', 1000, 525_600 * 60_000);
    const result = await s.admin.removeIdleConsumers(c.get('principal'), stream.id, group, minIdleMs);
    return redirect(s, c, '/group', { id: stream.id, group, done: 'removed-consumers', n: result.removed.length, kept: result.keptWithPending.length });
  });
}

function NoLongerPending({ entry, group, back }: { entry: string; group: string; back: string }) {
  return (
    <>
      <p>
        Entry <code>{entry}</code> is no longer pending in group <span class="name">{shown(group)}</span>: it was acknowledged or released already, or its body
        was deleted from the stream (a release then drops the dangling pending record). Nothing else was done.
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
          owner <span class="name">{shown(expected.consumer)}</span>, {count(expected.deliveryCount)} deliveries
        </dd>
        <dt>Now</dt>
        <dd>
          owner <span class="name">{shown(now.consumer)}</span>, {count(now.deliveryCount)} deliveries
        </dd>
      </dl>
      <p>
        <a href={back}>Reload the group and decide again</a>
      </p>
    </>
  );
}
