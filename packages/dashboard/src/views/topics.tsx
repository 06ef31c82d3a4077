// Reliable topics: the list of topics, and one topic's subscriptions with their backlogs.
import type { TopicStatus, TopicSummary } from '@respire/admin';
import { count, duration, serverTime } from '../format.js';
import { Count, num, Table } from './components.js';
import { href, Layout, type PageContext } from './layout.js';
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

/** One topic: each subscription's position, lag, pending deliveries, oldest unacknowledged age, dead letters and trimmed count. */
export function TopicPage({ ctx, topic }: { ctx: PageContext; topic: TopicStatus }) {
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
    >
      <p class="muted">
        {count(topic.publications)} publications retained in <code>{topic.stream}</code>; {count(topic.subscriptions)} subscriptions. Read at{' '}
        {serverTime(topic.serverTimeMs)} (server time).
      </p>
      {topic.subscriptionList.length === 0 ? (
        <p class="empty">No subscriptions.</p>
      ) : (
        <Table
          columns={['Subscription', 'Position', num('Lag'), num('Pending'), num('Oldest unacknowledged'), num('Dead letters'), num('Trimmed')]}
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
                <td class="num">{s.oldestUnacknowledgedAgeMs === null ? '—' : duration(s.oldestUnacknowledgedAgeMs)}</td>
                <Count value={s.deadLetters} alert="danger" />
                <Count value={s.trimmed} alert="warn" />
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <p class="muted">
        Lag: publications not yet delivered to the subscription. Pending: delivered and not yet acknowledged. Trimmed: publications a retention bound removed
        before the subscription completed them. To replay or skip, seek the subscription with <code>respire topics seek</code> or the admin API's{' '}
        <code>seekSubscription</code>.
      </p>
    </Layout>
  );
}
