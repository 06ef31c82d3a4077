// A queue's and a stream's own pages, and a queue's leased messages.
import type { QueueDelivery, QueueResource, QueueStatus, StreamStatus } from '@respire/admin';
import { count, duration, maybeCount, serverTime, shown } from '../format.js';
import { Count, num, Pager, queueCrumbs, Table } from './components.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';

/** A queue's and a stream's own pages, and a queue's leased messages. */

export function QueuePage({ ctx, status, notice }: { ctx: PageContext; status: QueueStatus; notice?: Notice }) {
  const q = status.resource;
  return (
    <Layout ctx={ctx} title={`Queue ${q.name}`} crumbs={[{ label: `Queue ${q.name}` }]} notice={notice}>
      <dl class="facts">
        <dt>Ready (not yet delivered)</dt>
        <dd class={status.ready === null ? 'unknown' : ''}>{maybeCount(status.ready)}</dd>
        <dt>In flight (leased or delayed)</dt>
        <dd>{count(status.inFlight)}</dd>
        <dt>Due now</dt>
        <dd class={status.due > 0 ? 'warn' : ''}>{count(status.due)}</dd>
        <dt>Dead letters</dt>
        <dd class={status.deadLetters > 0 ? 'danger' : ''}>{count(status.deadLetters)}</dd>
        <dt>Stream length</dt>
        <dd>{count(status.length)}</dd>
      </dl>
      <ul class="links">
        <li>
          <a href={href(ctx, '/dead-letters', { id: q.id })}>Dead letters ({count(status.deadLetters)})</a>
        </li>
        <li>
          <a href={href(ctx, '/deliveries', { id: q.id })}>Leased and delayed messages ({count(status.inFlight)})</a>
        </li>
      </ul>
      <h2>Keys</h2>
      <dl class="facts keys">
        <dt>Stream</dt>
        <dd>
          <code>{shown(q.keys.stream)}</code>
        </dd>
        <dt>Deadlines</dt>
        <dd>
          <code>{shown(q.keys.deadlines)}</code>
        </dd>
        <dt>Dead letters</dt>
        <dd>
          <code>{shown(q.keys.deadLetter)}</code>
        </dd>
      </dl>
    </Layout>
  );
}

export function StreamPage({ ctx, status }: { ctx: PageContext; status: StreamStatus }) {
  const s = status.resource;
  return (
    <Layout ctx={ctx} title={`Stream ${s.label}`} crumbs={[{ label: `Stream ${s.label}` }]}>
      <dl class="facts">
        <dt>Stream key</dt>
        <dd>
          <code>{shown(s.stream)}</code>
        </dd>
        <dt>Length</dt>
        <dd>{status.exists ? count(status.length) : 'the stream does not exist'}</dd>
        <dt>Dead-letter stream</dt>
        <dd>
          {s.deadLetterStream === undefined ? (
            'none configured'
          ) : (
            <>
              <code>{shown(s.deadLetterStream)}</code> <a href={href(ctx, '/dead-letters', { id: s.id })}>{count(status.deadLetters ?? 0)} dead letters</a>
            </>
          )}
        </dd>
      </dl>
      <h2>Consumer groups</h2>
      {status.groups.length === 0 ? (
        <p class="empty">No consumer groups.</p>
      ) : (
        <Table columns={['Group', num('Lag'), num('Pending'), num('Consumers'), 'Last delivered ID']}>
          <tbody>
            {status.groups.map((g) => (
              <tr>
                <th scope="row">
                  <a href={href(ctx, '/group', { id: s.id, group: g.name })}>{shown(g.name)}</a>
                </th>
                <Count value={g.lag} alert="warn" />
                <Count value={g.pending} />
                <Count value={g.consumers} />
                <td>
                  <code>{g.lastDeliveredId}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Layout>
  );
}

export function DeliveriesPage({
  ctx,
  queue,
  items,
  serverTimeMs,
  pager,
}: {
  ctx: PageContext;
  queue: QueueResource;
  items: readonly QueueDelivery[];
  serverTimeMs: number;
  pager: { first?: string | undefined; next?: string | undefined };
}) {
  return (
    <Layout ctx={ctx} title="Leased and delayed messages" crumbs={[...queueCrumbs(ctx, queue), { label: 'Leased messages' }]} serverTimeMs={serverTimeMs}>
      <p class="muted">Receipts are never shown. Times are the Redis server's clock.</p>
      {items.length === 0 ? (
        <p class="empty">Nothing leased or delayed{pager.first ? ' on this page' : ''}.</p>
      ) : (
        <Table columns={['Entry ID', 'State', num('Deliveries'), 'Until (server time)', num('Remaining')]}>
          <tbody>
            {items.map((d) => (
              <tr>
                <th scope="row">
                  <code>{d.id}</code>
                </th>
                <td>{d.state === 'leased' ? 'leased' : 'delayed after NACK'}</td>
                <td class="num">{count(d.deliveryCount)}</td>
                <td>{serverTime(d.untilMs)}</td>
                <td class={d.due ? 'num warn' : 'num'}>{d.due ? `due ${duration(serverTimeMs - d.untilMs)} ago` : duration(d.untilMs - serverTimeMs)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pager label="Leased messages" first={pager.first} next={pager.next} />
    </Layout>
  );
}
