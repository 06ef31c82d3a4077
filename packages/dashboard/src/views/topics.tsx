// Reliable topics: the list of topics, and one topic's subscriptions with their backlogs.
import type { DeadLetterRecord, SubscriptionStatus, TopicStatus, TopicSummary } from '@respire/admin';
import { count, duration, entryTime, preview, serverTime, shownText } from '../format.js';
import { ActionForm, Count, isOperator, num, Pager, Table, type Paging } from './components.js';
import { ConfirmPage } from './confirm.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Name } from './name.js';

/** Every topic this principal sees: publications retained and subscriptions. */
export function TopicsPage({ ctx, topics, discoveryTruncated }: { ctx: PageContext; topics: readonly TopicSummary[]; discoveryTruncated: boolean }) {
  return (
    <Layout ctx={ctx} title="Topics" crumbs={[{ label: 'Topics' }]}>
      <p class="muted">
        Reliable topics: every subscription receives each retained publication. A publication is kept until every subscription has completed it, or a retention
        bound trims it.
      </p>
      {discoveryTruncated ? <p class="notice warn">Discovery stopped at its page limit: some topics may be missing.</p> : null}
      {topics.length === 0 ? (
        <p class="empty">No topics.</p>
      ) : (
        <Table columns={['Topic', 'Key prefix', num('Publications'), num('Subscriptions')]} caption="Topics">
          <tbody>
            {topics.map((t) => (
              <tr>
                <th scope="row">
                  <Name value={t.name} href={href(ctx, '/topic', { id: t.id })} />
                </th>
                <td>
                  <code>{t.keyPrefix}</code>
                </td>
                <td class="num">{count(t.publications)}</td>
                <td class="num">{count(t.subscriptions)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Layout>
  );
}

/** One topic: each subscription's position, lag, pending deliveries, retried dead letters not yet completed, oldest unacknowledged age, dead letters and trimmed count. */
export function TopicPage({ ctx, topic, notice }: { ctx: PageContext; topic: TopicStatus; notice?: Notice }) {
  const operator = isOperator(ctx);
  return (
    <Layout
      ctx={ctx}
      title={`Topic ${topic.keyPrefix}${topic.name}`}
      heading={
        <>
          Topic <Name value={`${topic.keyPrefix}${topic.name}`} />
        </>
      }
      crumbs={[
        { label: 'Topics', href: href(ctx, '/topics') },
        { kind: 'Topic', label: `${topic.keyPrefix}${topic.name}` },
      ]}
      serverTimeMs={topic.serverTimeMs}
      notice={notice}
    >
      <p class="muted">
        {count(topic.publications)} publications retained in <code>{topic.stream}</code>; {count(topic.subscriptions)} subscriptions. Read at{' '}
        {serverTime(topic.serverTimeMs)} (server time).
      </p>
      {topic.subscriptionList.length === 0 ? (
        <p class="empty">No subscriptions.</p>
      ) : (
        <Table
          columns={[
            'Subscription',
            'Position',
            num('Lag'),
            num('Pending'),
            num('Retried'),
            num('Oldest unacknowledged'),
            num('Dead letters'),
            num('Trimmed'),
            ...(operator ? ['Seek'] : []),
          ]}
          caption="Subscriptions"
          class="subscriptions"
        >
          <tbody>
            {topic.subscriptionList.map((s) => (
              <tr>
                <th scope="row">
                  <Name value={s.name} />
                </th>
                <td>
                  <code>{s.lastDeliveredId}</code>
                </td>
                <Count value={s.lag} />
                <Count value={s.pending} />
                <Count value={s.retried} />
                <td class="num">{s.oldestUnacknowledgedAgeMs === null ? '—' : duration(s.oldestUnacknowledgedAgeMs)}</td>
                {s.deadLetters > 0 ? (
                  <td class="num danger">
                    <a href={href(ctx, '/subscription-dead-letters', { id: topic.id, subscription: s.name })}>{count(s.deadLetters)}</a>
                  </td>
                ) : (
                  <Count value={s.deadLetters} />
                )}
                <Count value={s.trimmed} alert="warn" />
                {operator ? (
                  <td>
                    <form method="get" action={`${ctx.base}/confirm/seek`} class="row-form">
                      <input type="hidden" name="id" value={topic.id} />
                      <input type="hidden" name="subscription" value={s.name} />
                      <label>
                        <span class="visually-hidden">Seek {s.name} to</span>
                        <input name="to" required size={16} placeholder="earliest, latest or an ID" aria-label={`Seek ${s.name} to`} />
                      </label>{' '}
                      <button type="submit" class="button secondary small">
                        Seek…
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <p class="muted">
        Lag: publications not yet delivered to the subscription. Pending: delivered and not yet acknowledged. Retried: dead letters retried for the subscription
        and not yet completed, due or leased (not counted in Pending). Trimmed: publications a retention bound removed before the subscription completed them.
        Seek replays or skips publications: it moves a subscription to the earliest retained publication, the latest, or after an entry ID (
        <code>respire topics seek</code> also takes a time).
      </p>
    </Layout>
  );
}

/** The confirmation of a seek: where the subscription is, where it goes, and what happens to its leased deliveries. */
export function ConfirmSeekPage({ ctx, topic, subscription, to }: { ctx: PageContext; topic: TopicStatus; subscription: SubscriptionStatus; to: string }) {
  const label = `${topic.keyPrefix}${topic.name}`;
  const where =
    to === 'earliest' ? 'the earliest retained publication' : to === 'latest' ? 'the latest publication (skipping all retained ones)' : `after entry ${to}`;
  return (
    <ConfirmPage
      ctx={ctx}
      title="Seek this subscription?"
      crumbs={[{ label: 'Topics', href: href(ctx, '/topics') }, { kind: 'Topic', label, href: href(ctx, '/topic', { id: topic.id }) }, { label: 'Seek' }]}
      action="seek"
      fields={{ id: topic.id, subscription: subscription.name, to }}
      danger
      submitLabel="Seek"
      cancelHref={href(ctx, '/topic', { id: topic.id })}
    >
      <p>
        Subscription <Name value={subscription.name} /> of topic <Name value={label} /> is at <code>{subscription.lastDeliveredId}</code>; it moves to {where}.
      </p>
      <p>
        Its {count(subscription.pending)} pending deliveries are discarded: their receipts go stale (an acknowledgement answers false), and the retained
        publications after the new position are delivered again, counting from 1. Publications already trimmed do not come back. Its dead letters and trimmed
        count stay.
      </p>
    </ConfirmPage>
  );
}

/** The confirmation of deleting one of a subscription's dead letters. */
export function ConfirmSubscriptionDeletePage({
  ctx,
  topic,
  subscription,
  record,
}: {
  ctx: PageContext;
  topic: TopicStatus;
  subscription: SubscriptionStatus;
  record: string;
}) {
  const label = `${topic.keyPrefix}${topic.name}`;
  const back = href(ctx, '/subscription-dead-letters', { id: topic.id, subscription: subscription.name });
  return (
    <ConfirmPage
      ctx={ctx}
      title="Delete this dead letter?"
      crumbs={[
        { label: 'Topics', href: href(ctx, '/topics') },
        { kind: 'Topic', label, href: href(ctx, '/topic', { id: topic.id }) },
        { kind: 'Dead letters of', label: subscription.name, href: back },
        { label: 'Delete' },
      ]}
      action="subscription-delete"
      fields={{ id: topic.id, subscription: subscription.name, record }}
      danger
      submitLabel="Delete dead letter"
      cancelHref={back}
    >
      <p>
        Dead letter <code>{record}</code> of subscription <Name value={subscription.name} /> of topic <Name value={label} /> will be removed from its
        dead-letter stream. Its payload is gone for good; the other subscriptions are not affected.
      </p>
    </ConfirmPage>
  );
}

/** The most dead letters one "Retry all…" or "Delete all…" of a subscription handles: the rest wait for the next one (or the CLI). */
export const SUBSCRIPTION_BULK_MAX = 10_000;

/** The confirmation of retrying or deleting every dead letter of a subscription: how many, and what happens to them. */
export function ConfirmSubscriptionBulkPage({
  ctx,
  topic,
  subscription,
  action,
}: {
  ctx: PageContext;
  topic: TopicStatus;
  subscription: SubscriptionStatus;
  action: 'retry' | 'delete';
}) {
  const label = `${topic.keyPrefix}${topic.name}`;
  const back = href(ctx, '/subscription-dead-letters', { id: topic.id, subscription: subscription.name });
  const retry = action === 'retry';
  const total = subscription.deadLetters;
  const limit = Math.min(total, SUBSCRIPTION_BULK_MAX);
  const what = `${count(limit)} dead letter${limit === 1 ? '' : 's'}`;
  return (
    <ConfirmPage
      ctx={ctx}
      title={retry ? 'Retry all dead letters?' : 'Delete all dead letters?'}
      crumbs={[
        { label: 'Topics', href: href(ctx, '/topics') },
        { kind: 'Topic', label, href: href(ctx, '/topic', { id: topic.id }) },
        { kind: 'Dead letters of', label: subscription.name, href: back },
        { label: retry ? 'Retry all' : 'Delete all' },
      ]}
      action={retry ? 'subscription-retry-all' : 'subscription-delete-all'}
      fields={{ id: topic.id, subscription: subscription.name, limit }}
      danger={!retry}
      submitLabel={`${retry ? 'Retry' : 'Delete'} ${what}`}
      cancelHref={back}
    >
      <p>
        Subscription <Name value={subscription.name} /> of topic <Name value={label} /> has {count(total)} dead letter{total === 1 ? '' : 's'} now.{' '}
        {retry ? 'Retry' : 'Delete'} {limit < total ? `the oldest ${what}` : `all ${what}`}, oldest first, in pages.
      </p>
      <p>
        {retry
          ? 'Each publication is delivered again to this subscription only, its delivery count starting again at 1, and its record is removed; the other subscriptions do not see it again. Records Respire did not write are left and counted as not retried.'
          : 'Each record is removed from the dead-letter stream for good, with its payload; the other subscriptions are not affected.'}{' '}
        Dead letters that arrive meanwhile are not touched.
        {limit < total ? ` The rest stay: run it again, or use respire topics ${retry ? 'retry-dead-letters' : 'delete-dead-letters'} --all.` : ''}
      </p>
    </ConfirmPage>
  );
}

/** One page of a subscription's dead letters (the queue's record format), newest first, with Retry and Delete… for operators. */
export function SubscriptionDeadLettersPage({
  ctx,
  topic,
  subscription,
  total,
  records,
  paging,
  notice,
}: {
  ctx: PageContext;
  topic: TopicStatus;
  subscription: string;
  /** Records in its dead-letter stream now (XLEN). */
  total: number;
  records: readonly DeadLetterRecord[];
  paging: Paging;
  notice?: Notice;
}) {
  const label = `${topic.keyPrefix}${topic.name}`;
  const operator = isOperator(ctx);
  return (
    <Layout
      ctx={ctx}
      title={`Dead letters of ${subscription} · ${label}`}
      heading={
        <>
          Dead letters of <Name value={subscription} />
        </>
      }
      crumbs={[
        { label: 'Topics', href: href(ctx, '/topics') },
        { kind: 'Topic', label, href: href(ctx, '/topic', { id: topic.id }) },
        { kind: 'Dead letters of', label: subscription },
      ]}
      serverTimeMs={topic.serverTimeMs}
      notice={notice}
    >
      <p class="muted">
        Publications this subscription gave up on at its delivery limit, newest first. The other subscriptions are not affected. Retry delivers a publication
        again to this subscription only (its delivery count starts again); it is kept for the subscription until completed, even once retention trimmed it.
        Retry all… and Delete all… handle up to {count(SUBSCRIPTION_BULK_MAX)} records at a time; more at once:{' '}
        <code>respire topics retry-dead-letters --all</code> and <code>delete-dead-letters --all</code>.
      </p>
      <div class="toolbar">
        <p>
          <strong>{count(total)}</strong> dead letters, newest first.
        </p>
        {operator && total > 0 ? (
          <div class="bulk">
            <a class="button secondary" href={href(ctx, '/confirm/subscription-bulk', { id: topic.id, subscription, action: 'retry' })}>
              Retry all…
            </a>
            <a class="button danger" href={href(ctx, '/confirm/subscription-bulk', { id: topic.id, subscription, action: 'delete' })}>
              Delete all…
            </a>
          </div>
        ) : null}
      </div>
      {records.length === 0 ? (
        <p class="empty">No dead letters.</p>
      ) : (
        <Table
          columns={['Record', 'Source publication', num('Deliveries'), 'Payload', ...(operator ? ['Actions'] : [])]}
          caption="Dead letters"
          class="subscription-dead-letters"
        >
          <tbody>
            {records.map((r) => (
              <tr>
                <th scope="row">
                  <code>{r.id}</code>
                  <div class="muted small">{serverTime(entryTime(r.id))}</div>
                </th>
                {r.kind === 'queue' ? (
                  <>
                    <td>
                      <code>{r.sourceId}</code>
                    </td>
                    <td class="num">{count(r.deliveryCount)}</td>
                    <td>
                      <code>{preview(shownText(r.payload.toString('utf8')))}</code>
                    </td>
                  </>
                ) : (
                  <td colspan={3} class="muted">
                    Not a record Respire wrote.
                  </td>
                )}
                {operator ? (
                  <td class="actions">
                    {r.kind === 'queue' ? (
                      <ActionForm ctx={ctx} action="subscription-retry" fields={{ id: topic.id, subscription, record: r.id }}>
                        <button type="submit" class="button primary small" aria-label={`Retry dead letter ${r.id}`}>
                          Retry
                        </button>
                      </ActionForm>
                    ) : null}{' '}
                    <a
                      class="button danger small"
                      href={href(ctx, '/confirm/subscription-delete', { id: topic.id, subscription, record: r.id })}
                      aria-label={`Delete dead letter ${r.id}`}
                    >
                      Delete…
                    </a>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pager label="Dead letter pages" paging={paging} />
    </Layout>
  );
}
