// A topic subscription's seek, and the retry and delete of its dead letters (one, or all of them): confirmation pages and actions (the gate in middleware/state-changes checks role, origin and token first).
import type { Hono } from 'hono';
import { isRespireError } from '@respire/admin';
import { ENTRY_ID, form, HttpError, need, query, type Ctx, type Env } from '../http.js';
import { noticeParams } from '../notices.js';
import type { Settings } from '../options.js';
import { ctxOf, done, refused } from '../respond.js';
import { resolveTopic } from '../topics.js';
import { Name } from '../views/name.js';
import { ConfirmSeekPage, ConfirmSubscriptionBulkPage, ConfirmSubscriptionDeletePage, SUBSCRIPTION_BULK_MAX } from '../views/topics.js';

/** Where a seek may go: 'earliest', 'latest' or an entry ID (a time is the CLI's and the API's). */
function seekTarget(source: Record<string, unknown>): string {
  const to = typeof source['to'] === 'string' ? source['to'].trim() : '';
  if (to !== 'earliest' && to !== 'latest' && !ENTRY_ID.test(to))
    throw new HttpError(400, "Seek to 'earliest', 'latest' or an entry ID (such as 1700000000000-0).");
  return to;
}

/** The topic and the subscription a request names; 404 when either is unknown or hidden. */
async function subscriptionOf(s: Settings, c: Ctx, source: Record<string, unknown>) {
  const topic = await resolveTopic(s, c.get('principal'), typeof source['id'] === 'string' ? source['id'] : undefined);
  const name = need(source, 'subscription');
  const subscription = topic.subscriptionList.find((x) => x.name === name);
  if (!subscription) throw new HttpError(404, 'No such subscription.');
  return { topic, subscription };
}

export function topicActionRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/confirm/seek', async (c) => {
    const q = query(c);
    const to = seekTarget(q);
    const { topic, subscription } = await subscriptionOf(s, c, q);
    return c.html(<ConfirmSeekPage ctx={ctxOf(s, c)} topic={topic} subscription={subscription} to={to} />);
  });

  routes.post('/actions/seek', async (c) => {
    const f = await form(c);
    const to = seekTarget(f);
    const { topic, subscription } = await subscriptionOf(s, c, f);
    const result = await s.admin.seekSubscription(c.get('principal'), topic.id, subscription.name, to);
    if (result.status === 'moved') {
      return done(s, c, result, '/topic', { id: topic.id, ...noticeParams('seeked', { position: result.position, discarded: result.discarded }) });
    }
    return refused(s, c, result, 'Already gone', <p>The subscription was removed meanwhile. Nothing was done.</p>);
  });

  const alreadyGone = (record: string) => (
    <p>
      Dead letter <code>{record}</code> is no longer there: it was retried or deleted already. Nothing was done.
    </p>
  );
  const backTo = (topic: { id: string }, subscription: { name: string }) => ({ id: topic.id, subscription: subscription.name });

  // Retry: the subscription only gets the publication again (admin retrySubscriptionDeadLetter), so no confirmation, as the queue's Retry.
  routes.post('/actions/subscription-retry', async (c) => {
    const f = await form(c);
    const { topic, subscription } = await subscriptionOf(s, c, f);
    const record = need(f, 'record', ENTRY_ID);
    const result = await s.admin.retrySubscriptionDeadLetter(c.get('principal'), topic.id, subscription.name, record);
    if (result.status === 'retried') {
      return done(s, c, result, '/subscription-dead-letters', {
        ...backTo(topic, subscription),
        ...noticeParams('subscription-retried', { record, publication: result.publicationId }),
      });
    }
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

  routes.get('/confirm/subscription-delete', async (c) => {
    const q = query(c);
    const { topic, subscription } = await subscriptionOf(s, c, q);
    const record = need(q, 'record', ENTRY_ID);
    return c.html(<ConfirmSubscriptionDeletePage ctx={ctxOf(s, c)} topic={topic} subscription={subscription} record={record} />);
  });

  routes.post('/actions/subscription-delete', async (c) => {
    const f = await form(c);
    const { topic, subscription } = await subscriptionOf(s, c, f);
    const record = need(f, 'record', ENTRY_ID);
    const result = await s.admin.deleteSubscriptionDeadLetter(c.get('principal'), topic.id, subscription.name, record);
    if (result.status === 'deleted')
      return done(s, c, result, '/subscription-dead-letters', { ...backTo(topic, subscription), ...noticeParams('deleted', { record }) });
    return refused(s, c, result, 'Already gone', alreadyGone(record));
  });

  // Retry all… and Delete all…: the admin's bounded bulk functions, run within the request (audited as retry-all / delete-all).
  routes.get('/confirm/subscription-bulk', async (c) => {
    const q = query(c);
    const action = bulkAction(q);
    const { topic, subscription } = await subscriptionOf(s, c, q);
    return c.html(<ConfirmSubscriptionBulkPage ctx={ctxOf(s, c)} topic={topic} subscription={subscription} action={action} />);
  });

  for (const action of ['retry', 'delete'] as const) {
    routes.post(`/actions/subscription-${action}-all`, async (c) => {
      const f = await form(c);
      const limit = need(f, 'limit', /^\d{1,9}$/);
      const n = Number(limit);
      if (n < 1 || n > SUBSCRIPTION_BULK_MAX) throw new HttpError(400, `Retry or delete 1 to ${SUBSCRIPTION_BULK_MAX} dead letters at a time.`);
      const { topic, subscription } = await subscriptionOf(s, c, f);
      const principal = c.get('principal');
      // The records confirmed are the oldest `limit` ones. A confirmed action runs to that bound even if
      // the browser goes away (a mount's request signal is not relied upon).
      const options = { limit: n, pageSize: 500 };
      let result;
      try {
        result =
          action === 'retry'
            ? await s.admin.retryAllSubscriptionDeadLetters(principal, topic.id, subscription.name, options)
            : await s.admin.deleteAllSubscriptionDeadLetters(principal, topic.id, subscription.name, options);
      } catch (error) {
        if (!isRespireError(error, 'INVALID_STATE')) throw error;
        return refused(s, c, { status: 'missing' }, 'Already gone', <p>The subscription was removed meanwhile. Nothing more was done.</p>);
      }
      return done(s, c, result, '/subscription-dead-letters', {
        ...backTo(topic, subscription),
        ...noticeParams(`subscription-${action}-all`, { done: result.done, failed: result.failed }),
      });
    });
  }
}

/** The bulk action a confirmation names: 'retry' or 'delete'. */
function bulkAction(source: Record<string, unknown>): 'retry' | 'delete' {
  const action = source['action'];
  if (action !== 'retry' && action !== 'delete') throw new HttpError(400, "The action is 'retry' or 'delete'.");
  return action;
}
