// A queue's messages: the ready ones, the leased and delayed ones, and one message with its payload and the actions the contract allows.
import type { QueueDelivery, QueueMessage, QueueResource } from '@respire/admin';
import { count, duration, maybeCount, preview, serverTime, shown } from '../format.js';
import { renderBytes } from '../payload.js';
import { ref } from '../refs.js';
import { ActionForm, isOperator, num, Pager, queueCrumbs, Table, type Paging } from './components.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Fields, Rendered } from './payload.js';

function Tabs({
  ctx,
  queue,
  view,
  ready,
  inFlight,
}: {
  ctx: PageContext;
  queue: QueueResource;
  view: 'ready' | 'in-flight';
  ready: number | null;
  inFlight: number;
}) {
  const id = ref('id', queue.id);
  return (
    <nav class="tabs" aria-label="Messages">
      {view === 'ready' ? (
        <strong aria-current="page">Ready ({maybeCount(ready)})</strong>
      ) : (
        <a href={href(ctx, '/messages', id)}>Ready ({maybeCount(ready)})</a>
      )}
      {view === 'in-flight' ? (
        <strong aria-current="page">Leased and delayed ({count(inFlight)})</strong>
      ) : (
        <a href={href(ctx, '/messages', { ...id, view: 'in-flight' })}>Leased and delayed ({count(inFlight)})</a>
      )}
    </nav>
  );
}

const payloadPreview = (payload: Buffer) => {
  const r = renderBytes(payload, 512);
  return r.kind === 'hex' ? `(${payload.length} bytes of binary data)` : shown(preview(r.text));
};

export function ReadyMessagesPage({
  ctx,
  queue,
  items,
  total,
  inFlight,
  paging,
  serverTimeMs,
  notice,
}: {
  ctx: PageContext;
  queue: QueueResource;
  items: readonly QueueMessage[];
  total: number | null;
  inFlight: number;
  paging: Paging;
  serverTimeMs: number;
  notice?: Notice | undefined;
}) {
  return (
    <Layout ctx={ctx} title="Messages" crumbs={[...queueCrumbs(ctx, queue), { label: 'Messages' }]} serverTimeMs={serverTimeMs} notice={notice}>
      <Tabs ctx={ctx} queue={queue} view="ready" ready={total} inFlight={inFlight} />
      <p class="muted">Not yet delivered, oldest first: the next receives take them in this order (after any redeliveries due).</p>
      {items.length === 0 ? (
        <p class="empty">No ready messages{paging.first ? ' on this page' : ''}.</p>
      ) : (
        <Table columns={['Entry ID', 'Sent (server time)', 'Payload']}>
          <tbody>
            {items.map((m) => (
              <tr>
                <th scope="row">
                  <a href={href(ctx, '/message', { ...ref('id', queue.id), entry: m.id })}>
                    <code>{m.id}</code>
                  </a>
                </th>
                <td>{serverTime(Number(m.id.split('-')[0]))}</td>
                <td class="preview">
                  <code>{payloadPreview(m.payload)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pager label="Ready messages" paging={paging} />
    </Layout>
  );
}

export function InFlightPage({
  ctx,
  queue,
  items,
  ready,
  total,
  serverTimeMs,
  paging,
  notice,
}: {
  ctx: PageContext;
  queue: QueueResource;
  items: readonly QueueDelivery[];
  ready: number | null;
  total: number;
  serverTimeMs: number;
  paging: Paging;
  notice?: Notice | undefined;
}) {
  return (
    <Layout
      ctx={ctx}
      title="Leased and delayed messages"
      crumbs={[...queueCrumbs(ctx, queue), { label: 'Leased and delayed' }]}
      serverTimeMs={serverTimeMs}
      notice={notice}
    >
      <Tabs ctx={ctx} queue={queue} view="in-flight" ready={ready} inFlight={total} />
      <p class="muted">Soonest deadline first. Receipts are never shown. Times are the Redis server's clock.</p>
      {items.length === 0 ? (
        <p class="empty">Nothing leased or delayed{paging.first ? ' on this page' : ''}.</p>
      ) : (
        <Table columns={['Entry ID', 'State', num('Deliveries'), 'Until (server time)', num('Remaining')]}>
          <tbody>
            {items.map((d) => (
              <tr>
                <th scope="row">
                  <a href={href(ctx, '/message', { ...ref('id', queue.id), entry: d.id })}>
                    <code>{d.id}</code>
                  </a>
                </th>
                <td>{d.state === 'leased' ? 'leased' : 'delayed after NACK or release'}</td>
                <td class="num">{count(d.deliveryCount)}</td>
                <td>{serverTime(d.untilMs)}</td>
                <td class={d.due ? 'num warn' : 'num'}>{d.due ? `due ${duration(serverTimeMs - d.untilMs)} ago` : duration(d.untilMs - serverTimeMs)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pager label="Leased and delayed messages" paging={paging} />
    </Layout>
  );
}

const STATES = {
  ready: 'Ready: not yet delivered',
  leased: 'Leased: a consumer holds it under a receipt',
  delayed: 'Delayed: NACKed or released, waiting for its due time',
  delivered: 'Delivered and not completed (its deadline was not found in a bounded search)',
} as const;

export function MessagePage({
  ctx,
  queue,
  message,
  notice,
}: {
  ctx: PageContext;
  queue: QueueResource;
  message: QueueMessage & { serverTimeMs: number };
  notice?: Notice;
}) {
  const m = message;
  const id = ref('id', queue.id);
  const fence = m.state === 'leased' || m.state === 'delayed' ? { ...id, entry: m.id, deliveryCount: m.deliveryCount!, untilMs: m.untilMs! } : undefined;
  return (
    <Layout
      ctx={ctx}
      title={`Message ${m.id}`}
      crumbs={[...queueCrumbs(ctx, queue), { label: 'Messages', href: href(ctx, '/messages', id) }, { label: m.id }]}
      serverTimeMs={m.serverTimeMs}
      notice={notice}
    >
      <dl class="facts">
        <dt>Entry ID</dt>
        <dd>
          <code>{m.id}</code> (sent {serverTime(Number(m.id.split('-')[0]))})
        </dd>
        <dt>State</dt>
        <dd>{STATES[m.state]}</dd>
        <dt>Deliveries</dt>
        <dd>{m.deliveryCount === null ? 'unknown' : count(m.deliveryCount)}</dd>
        {m.untilMs !== null ? (
          <>
            <dt>{m.state === 'leased' ? 'Lease deadline' : 'Due'}</dt>
            <dd class={m.due ? 'warn' : ''}>
              {serverTime(m.untilMs)} (
              {m.due ? `due ${duration(m.serverTimeMs - m.untilMs)} ago: the next receive takes it` : `in ${duration(m.untilMs - m.serverTimeMs)}`})
            </dd>
          </>
        ) : null}
      </dl>
      {fence && isOperator(ctx) ? (
        <div class="bulk">
          <ActionForm ctx={ctx} action="release-message" fields={fence}>
            <button type="submit" class="button primary">
              Release now
            </button>
          </ActionForm>
          <a class="button danger" href={href(ctx, '/confirm/delete-message', fence)}>
            Delete…
          </a>
          <span class="muted small">
            Release: due now, like a NACK without delay (its holder can no longer ack it). Delete: acknowledged for good, like an ACK.
          </span>
        </div>
      ) : null}
      <h2>Payload</h2>
      <Rendered rendered={renderBytes(m.payload)} label="Payload" download={href(ctx, '/download', { ...id, entry: m.id })} />
      {m.fields.length > 1 ? (
        <>
          <h2>All fields</h2>
          <Fields fields={m.fields} download={(i) => href(ctx, '/download', { ...id, entry: m.id, field: i })} />
        </>
      ) : null}
    </Layout>
  );
}
