// A queue's messages: the ready ones, the leased and delayed ones, and one message with its due time, headers, payload and the actions the contract allows.
import type { QueueDelivery, QueueMessage, QueueResource } from '@respire/admin';
import { count, duration, maybeCount, preview, serverTime, shown } from '../format.js';
import { renderBytes } from '../payload.js';
import { ref } from '../refs.js';
import { ActionForm, isOperator, num, Pager, queueCrumbs, Table, type Paging } from './components.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Fields, headerNames, HeadersTable, Rendered } from './payload.js';

/** A delayed send that no receive has met yet: `ready` in the admin API, but not receivable before `dueMs`. */
const waitsForDue = (m: QueueMessage, nowMs: number) => m.state === 'ready' && m.dueMs !== null && m.dueMs > nowMs;

/** `in 9 min 59 s` ahead, `due 3 s ago` past. */
const fromNow = (ms: number, nowMs: number) => (ms > nowMs ? `in ${duration(ms - nowMs)}` : `due ${duration(nowMs - ms)} ago`);

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
      <p class="muted">
        Not yet delivered, oldest first: the next receives take them in this order (after any redeliveries due). A delayed send waits for its due time; a
        receive that meets it earlier parks it under Leased and delayed.
      </p>
      {items.length === 0 ? (
        <p class="empty">No ready messages{paging.first ? ' on this page' : ''}.</p>
      ) : (
        <Table columns={['Entry ID', 'Sent (server time)', 'State', 'Headers', 'Payload']}>
          <tbody>
            {items.map((m) => (
              <tr>
                <th scope="row">
                  <a href={href(ctx, '/message', { ...ref('id', queue.id), entry: m.id })}>
                    <code>{m.id}</code>
                  </a>
                </th>
                <td>{serverTime(Number(m.id.split('-')[0]))}</td>
                <td>
                  {waitsForDue(m, serverTimeMs) ? (
                    <>
                      delayed until {serverTime(m.dueMs!)} <span class="muted small">({fromNow(m.dueMs!, serverTimeMs)})</span>
                    </>
                  ) : (
                    'ready'
                  )}
                </td>
                <td class={m.headers === null ? 'preview warn' : 'preview'}>
                  <code>{headerNames(m.headers)}</code>
                </td>
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
                <td>{d.state === 'leased' ? 'leased' : d.deliveryCount === 0 ? 'delayed send, not yet delivered' : 'delayed after NACK or release'}</td>
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
  waiting: 'Delayed send: not yet delivered, not receivable before its due time',
  parked: 'Delayed send: not yet delivered, waiting for its due time',
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
  const state = waitsForDue(m, m.serverTimeMs) ? 'waiting' : m.state === 'delayed' && m.deliveryCount === 0 ? 'parked' : m.state;
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
        <dd>{STATES[state]}</dd>
        <dt>Deliveries</dt>
        <dd>{m.deliveryCount === null ? 'unknown' : count(m.deliveryCount)}</dd>
        {m.dueMs !== null ? (
          <>
            <dt>Delayed until</dt>
            <dd class={state === 'parked' && m.due ? 'warn' : ''}>
              {serverTime(m.dueMs)} ({state === 'parked' && m.due ? 'due: the next receive takes it' : fromNow(m.dueMs, m.serverTimeMs)}; sent with a delay)
            </dd>
          </>
        ) : null}
        {/* A parked delayed send's deadline is its due time, shown above. */}
        {m.untilMs !== null && !(state === 'parked' && m.untilMs === m.dueMs) ? (
          <>
            <dt>{m.state === 'leased' ? 'Lease deadline' : 'Due'}</dt>
            <dd class={m.due ? 'warn' : ''}>
              {serverTime(m.untilMs)} (
              {m.due ? `due ${duration(m.serverTimeMs - m.untilMs)} ago: the next receive takes it` : `in ${duration(m.untilMs - m.serverTimeMs)}`})
            </dd>
          </>
        ) : null}
        <dt>Headers</dt>
        <dd class={m.headers === null ? 'warn' : ''}>
          {m.headers === null
            ? "Unreadable: its headers field is not in the queue's format (shown raw under All fields)"
            : Object.keys(m.headers).length === 0
              ? 'none'
              : `${count(Object.keys(m.headers).length)} (below)`}
        </dd>
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
      {m.headers !== null && Object.keys(m.headers).length > 0 ? (
        <>
          <h2>Headers</h2>
          <HeadersTable headers={m.headers} />
        </>
      ) : null}
      <h2>Payload</h2>
      <Rendered rendered={renderBytes(m.payload)} label="Payload" download={href(ctx, '/download', { ...id, entry: m.id })} />
      {rawFieldsWorthShowing(m) ? (
        <>
          <h2>All fields</h2>
          <Fields fields={m.fields} download={(i) => href(ctx, '/download', { ...id, entry: m.id, field: i })} />
        </>
      ) : null}
    </Layout>
  );
}

/** The entry's fields are shown raw only when they hold more than the page shows decoded (payload, due time, headers). */
function rawFieldsWorthShowing(m: QueueMessage): boolean {
  if (m.headers === null || (m.dueMs === null && m.fields.some(([name]) => name.toString('latin1') === 'due'))) return true;
  const own = new Set(['payload', 'due', 'headers']);
  const names = m.fields.map(([name]) => name.toString('latin1'));
  return names.some((name) => !own.has(name)) || new Set(names).size !== names.length;
}
