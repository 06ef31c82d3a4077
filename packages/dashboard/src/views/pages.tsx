import type {
  ConsumerInfo,
  DeadLetterRecord,
  EntryBody,
  PendingEntry,
  QueueDelivery,
  QueueResource,
  QueueStatus,
  StreamResource,
  StreamStatus,
} from '@respire/admin';
import type { Child } from 'hono/jsx';
import { bytes, count, duration, entryTime, maybeCount, preview, serverTime } from '../format.js';
import { renderBytes, type RenderedBytes } from '../payload.js';
import { ActionForm, href, Layout, Pager, type Crumb, type PageContext } from './layout.js';

type Notice = { readonly kind: 'ok' | 'warn' | 'error'; readonly text: string } | undefined;

const isOperator = (ctx: PageContext) => ctx.principal.role === 'operator';

/** A count cell that draws the eye when it is not zero. */
function Count({ value, alert }: { value: number | null; alert?: 'warn' | 'danger' }) {
  const cls = value === null ? 'num unknown' : alert && value > 0 ? `num ${alert}` : 'num';
  return <td class={cls}>{maybeCount(value)}</td>;
}

export function queueCrumbs(ctx: PageContext, queue: QueueResource): Crumb[] {
  return [{ label: `Queue ${queue.name}`, href: href(ctx, '/queue', { id: queue.id }) }];
}

export function streamCrumbs(ctx: PageContext, stream: StreamResource): Crumb[] {
  return [{ label: `Stream ${stream.label}`, href: href(ctx, '/stream', { id: stream.id }) }];
}

// ---------------------------------------------------------------------------------------------
// Overview

export interface OverviewProps {
  ctx: PageContext;
  serverTimeMs: number;
  queues: readonly QueueStatus[];
  streams: readonly StreamStatus[];
  discoveryTruncated: boolean;
  queuePage: { first?: string | undefined; next?: string | undefined; from: number; total: number };
  streamPage: { first?: string | undefined; next?: string | undefined; from: number; total: number };
}

export function OverviewPage(p: OverviewProps) {
  const { ctx } = p;
  const deadTotal = p.queues.reduce((n, q) => n + q.deadLetters, 0) + p.streams.reduce((n, s) => n + (s.deadLetters ?? 0), 0);
  const pendingTotal = p.streams.reduce((n, s) => n + s.groups.reduce((m, g) => m + g.pending, 0), 0);
  const dueTotal = p.queues.reduce((n, q) => n + q.due, 0);
  return (
    <Layout ctx={ctx} title="Overview" serverTimeMs={p.serverTimeMs}>
      <ul class="cards" aria-label="Totals on this page">
        <li class={deadTotal > 0 ? 'card danger' : 'card'}>
          <span class="card-value">{count(deadTotal)}</span> <span class="card-label">dead letters</span>
        </li>
        <li class="card">
          <span class="card-value">{count(pendingTotal)}</span> <span class="card-label">pending stream entries</span>
        </li>
        <li class={dueTotal > 0 ? 'card warn' : 'card'}>
          <span class="card-value">{count(dueTotal)}</span> <span class="card-label">queue messages due</span>
        </li>
      </ul>

      <section aria-labelledby="queues-heading">
        <h2 id="queues-heading">Reliable queues</h2>
        {p.queuePage.total === 0 ? (
          <p class="empty">No queues configured or discovered.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Reliable queues, {p.queuePage.from + 1} to {p.queuePage.from + p.queues.length} of {p.queuePage.total}</caption>
              <thead>
                <tr>
                  <th scope="col">Queue</th>
                  <th scope="col" class="num">Ready</th>
                  <th scope="col" class="num">In flight</th>
                  <th scope="col" class="num">Due</th>
                  <th scope="col" class="num">Dead letters</th>
                  <th scope="col" class="num">Stream length</th>
                </tr>
              </thead>
              <tbody>
                {p.queues.map((q) => (
                  <tr>
                    <th scope="row">
                      <a href={href(ctx, '/queue', { id: q.resource.id })}>{q.resource.name}</a>
                      {q.resource.keyPrefix ? <span class="muted small"> prefix {q.resource.keyPrefix}</span> : null}
                      {q.resource.discovered ? <span class="tag">discovered</span> : null}
                    </th>
                    <Count value={q.ready} />
                    <td class="num">
                      <a href={href(ctx, '/deliveries', { id: q.resource.id })}>{count(q.inFlight)}</a>
                    </td>
                    <Count value={q.due} alert="warn" />
                    <td class={q.deadLetters > 0 ? 'num danger' : 'num'}>
                      <a href={href(ctx, '/dead-letters', { id: q.resource.id })}>{count(q.deadLetters)}</a>
                    </td>
                    <Count value={q.length} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {p.discoveryTruncated ? <p class="notice warn">Discovery stopped at its page limit: more queues may exist.</p> : null}
        <Pager label="Queues" first={p.queuePage.first} next={p.queuePage.next} />
      </section>

      <section aria-labelledby="streams-heading">
        <h2 id="streams-heading">Worker streams</h2>
        {p.streamPage.total === 0 ? (
          <p class="empty">No worker streams configured.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Worker streams and their consumer groups</caption>
              <thead>
                <tr>
                  <th scope="col">Stream</th>
                  <th scope="col" class="num">Length</th>
                  <th scope="col" class="num">Dead letters</th>
                  <th scope="col">Consumer group</th>
                  <th scope="col" class="num">Lag</th>
                  <th scope="col" class="num">Pending</th>
                  <th scope="col" class="num">Consumers</th>
                </tr>
              </thead>
              {p.streams.map((s) => {
                const rows = Math.max(1, s.groups.length);
                const head = (
                  <>
                    <th scope="rowgroup" rowspan={rows}>
                      <a href={href(ctx, '/stream', { id: s.resource.id })}>{s.resource.label}</a>
                      {s.resource.label !== s.resource.stream ? <span class="muted small"> {s.resource.stream}</span> : null}
                      {!s.exists ? <span class="tag">missing</span> : null}
                    </th>
                    <td class="num" rowspan={rows}>{count(s.length)}</td>
                    <td class={s.deadLetters ? 'num danger' : 'num'} rowspan={rows}>
                      {s.deadLetters === null ? (
                        <span class="muted">none configured</span>
                      ) : (
                        <a href={href(ctx, '/dead-letters', { id: s.resource.id })}>{count(s.deadLetters)}</a>
                      )}
                    </td>
                  </>
                );
                return (
                  <tbody class="group-rows">
                    {s.groups.length === 0 ? (
                      <tr>
                        {head}
                        <td colspan={4} class="muted">no consumer groups</td>
                      </tr>
                    ) : (
                      s.groups.map((g, i) => (
                        <tr>
                          {i === 0 ? head : null}
                          <td>
                            <a href={href(ctx, '/group', { id: s.resource.id, group: g.name })}>{g.name}</a>
                          </td>
                          <Count value={g.lag} alert="warn" />
                          <Count value={g.pending} />
                          <Count value={g.consumers} />
                        </tr>
                      ))
                    )}
                  </tbody>
                );
              })}
            </table>
          </div>
        )}
        <Pager label="Streams" first={p.streamPage.first} next={p.streamPage.next} />
      </section>
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------
// Queue and stream pages

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
        <li><a href={href(ctx, '/dead-letters', { id: q.id })}>Dead letters ({count(status.deadLetters)})</a></li>
        <li><a href={href(ctx, '/deliveries', { id: q.id })}>Leased and delayed messages ({count(status.inFlight)})</a></li>
      </ul>
      <h2>Keys</h2>
      <dl class="facts keys">
        <dt>Stream</dt><dd><code>{q.keys.stream}</code></dd>
        <dt>Deadlines</dt><dd><code>{q.keys.deadlines}</code></dd>
        <dt>Dead letters</dt><dd><code>{q.keys.deadLetter}</code></dd>
      </dl>
    </Layout>
  );
}

export function StreamPage({ ctx, status }: { ctx: PageContext; status: StreamStatus }) {
  const s = status.resource;
  return (
    <Layout ctx={ctx} title={`Stream ${s.label}`} crumbs={[{ label: `Stream ${s.label}` }]}>
      <dl class="facts">
        <dt>Stream key</dt><dd><code>{s.stream}</code></dd>
        <dt>Length</dt><dd>{status.exists ? count(status.length) : 'the stream does not exist'}</dd>
        <dt>Dead-letter stream</dt>
        <dd>
          {s.deadLetterStream === undefined ? (
            'none configured'
          ) : (
            <>
              <code>{s.deadLetterStream}</code>{' '}
              <a href={href(ctx, '/dead-letters', { id: s.id })}>{count(status.deadLetters ?? 0)} dead letters</a>
            </>
          )}
        </dd>
      </dl>
      <h2>Consumer groups</h2>
      {status.groups.length === 0 ? (
        <p class="empty">No consumer groups.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col" class="num">Lag</th>
                <th scope="col" class="num">Pending</th>
                <th scope="col" class="num">Consumers</th>
                <th scope="col">Last delivered ID</th>
              </tr>
            </thead>
            <tbody>
              {status.groups.map((g) => (
                <tr>
                  <th scope="row"><a href={href(ctx, '/group', { id: s.id, group: g.name })}>{g.name}</a></th>
                  <Count value={g.lag} alert="warn" />
                  <Count value={g.pending} />
                  <Count value={g.consumers} />
                  <td><code>{g.lastDeliveredId}</code></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------
// Consumer group

export interface GroupPageProps {
  ctx: PageContext;
  stream: StreamResource;
  group: string;
  serverTimeMs?: number;
  consumers: readonly ConsumerInfo[];
  pending: readonly PendingEntry[];
  pager: { first?: string | undefined; next?: string | undefined };
  consumerFilter: string | undefined;
  body: { id: string; entry: EntryBody | null } | undefined;
  notice?: Notice;
}

export function GroupPage(p: GroupPageProps) {
  const { ctx, stream, group } = p;
  const base = { id: stream.id, group };
  return (
    <Layout ctx={ctx} title={`Group ${group}`} crumbs={[...streamCrumbs(ctx, stream), { label: `Group ${group}` }]} serverTimeMs={p.serverTimeMs} notice={p.notice}>
      <section aria-labelledby="consumers-heading">
        <h2 id="consumers-heading">Consumers ({count(p.consumers.length)})</h2>
        {p.consumers.length === 0 ? (
          <p class="empty">No consumers.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Consumer</th>
                  <th scope="col" class="num">Pending</th>
                  <th scope="col" class="num">Idle</th>
                  <th scope="col" class="num">Inactive</th>
                </tr>
              </thead>
              <tbody>
                {p.consumers.map((c) => (
                  <tr>
                    <th scope="row">
                      <a href={href(ctx, '/group', { ...base, consumer: c.name })}>{c.name}</a>
                    </th>
                    <td class="num">{count(c.pending)}</td>
                    <td class="num">{duration(c.idleMs)}</td>
                    <td class={c.inactiveMs === null ? 'num unknown' : 'num'}>{c.inactiveMs === null ? 'unknown' : duration(c.inactiveMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {isOperator(ctx) && p.consumers.length > 0 ? (
          <form method="get" action={`${ctx.base}/confirm/remove-idle-consumers`} class="row-form">
            <input type="hidden" name="id" value={stream.id} />
            <input type="hidden" name="group" value={group} />
            <label for="min-idle">Remove consumers with no pending entries, idle for at least (minutes)</label>
            <input id="min-idle" name="minIdleMinutes" type="number" min="1" max="525600" value="60" required />
            <button type="submit" class="button secondary">Review idle consumers…</button>
          </form>
        ) : null}
      </section>

      {p.body ? <EntryPanel ctx={ctx} entryId={p.body.id} entry={p.body.entry} closeHref={href(ctx, '/group', { ...base, consumer: p.consumerFilter })} /> : null}

      <section aria-labelledby="pending-heading">
        <h2 id="pending-heading">
          Pending entries{p.consumerFilter !== undefined ? <> of consumer <span class="name">{p.consumerFilter}</span></> : null}
        </h2>
        {p.consumerFilter !== undefined ? (
          <p><a href={href(ctx, '/group', base)}>Show every consumer's pending entries</a></p>
        ) : null}
        {p.pending.length === 0 ? (
          <p class="empty">No pending entries{p.pager.first ? ' on this page' : ''}.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Entry ID</th>
                  <th scope="col">Owner</th>
                  <th scope="col" class="num">Idle</th>
                  <th scope="col" class="num">Deliveries</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {p.pending.map((e) => (
                  <tr>
                    <th scope="row"><code>{e.id}</code></th>
                    <td>{e.consumer}</td>
                    <td class="num">{duration(e.idleMs)}</td>
                    <td class="num">{count(e.deliveryCount)}</td>
                    <td class="actions">
                      <a href={href(ctx, '/group', { ...base, consumer: p.consumerFilter, cursor: ctx.query.get('cursor') ?? undefined, body: e.id })} aria-label={`Show the body of entry ${e.id}`}>
                        Body
                      </a>
                      {isOperator(ctx) ? (
                        <>
                          <ActionForm ctx={ctx} action="release" fields={{ id: stream.id, group, entry: e.id, deliveryCount: e.deliveryCount, consumer: e.consumer }}>
                            <button type="submit" class="button secondary small" aria-label={`Release entry ${e.id} for redelivery`}>Release</button>
                          </ActionForm>
                          <a class="button danger small" href={href(ctx, '/confirm/ack', { id: stream.id, group, entry: e.id, deliveryCount: e.deliveryCount, consumer: e.consumer })} aria-label={`Ack entry ${e.id}…`}>
                            Ack…
                          </a>
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager label="Pending entries" first={p.pager.first} next={p.pager.next} />
      </section>
    </Layout>
  );
}

function EntryPanel({ ctx, entryId, entry, closeHref }: { ctx: PageContext; entryId: string; entry: EntryBody | null; closeHref: string }) {
  void ctx;
  return (
    <section class="panel" aria-labelledby="body-heading">
      <h2 id="body-heading">
        Entry <code>{entryId}</code>
      </h2>
      {entry === null ? (
        <p class="notice warn">The entry's body was deleted or trimmed from the stream: only its pending-list record remains.</p>
      ) : (
        <Fields fields={entry.fields} />
      )}
      <p><a href={closeHref}>Close</a></p>
    </section>
  );
}

// ---------------------------------------------------------------------------------------------
// Payloads and fields

export function Rendered({ rendered, label }: { rendered: RenderedBytes; label?: string }) {
  return (
    <div class="payload">
      <div class="payload-meta">
        <span class="tag">{rendered.kind === 'json' ? 'JSON' : rendered.kind === 'text' ? 'UTF-8 text' : 'hex (not valid UTF-8)'}</span>
        <span class="muted small">{bytes(rendered.totalBytes)}</span>
        {rendered.truncated ? (
          <span class="notice-inline warn">
            Showing the first {bytes(rendered.shownBytes)} of {bytes(rendered.totalBytes)}
          </span>
        ) : null}
      </div>
      <pre aria-label={label}>{rendered.text}</pre>
    </div>
  );
}

function fieldName(name: Buffer): string {
  const r = renderBytes(name, 1024);
  return r.kind === 'hex' ? `0x${name.subarray(0, 256).toString('hex')}` : r.text;
}

export function Fields({ fields }: { fields: readonly (readonly [Buffer, Buffer])[] }) {
  if (fields.length === 0) return <p class="empty">No fields.</p>;
  return (
    <table class="fields">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {fields.map(([name, value]) => (
          <tr>
            <th scope="row"><code>{fieldName(name)}</code></th>
            <td><Rendered rendered={renderBytes(value)} /></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function recordPreview(record: DeadLetterRecord): string {
  if (record.kind === 'queue') {
    const r = renderBytes(record.payload, 512);
    return r.kind === 'hex' ? `${bytes(record.payload.length)} of binary data` : preview(r.text);
  }
  return preview(
    record.fields
      .slice(0, 4)
      .map(([name, value]) => {
        const r = renderBytes(value, 128);
        return `${fieldName(name)}=${r.kind === 'hex' ? `(${bytes(value.length)} binary)` : r.text}`;
      })
      .join('  '),
  );
}

// ---------------------------------------------------------------------------------------------
// Dead letters

export interface DeadLettersProps {
  ctx: PageContext;
  resource: QueueResource | StreamResource;
  total: number;
  records: readonly DeadLetterRecord[];
  order: 'newest' | 'oldest';
  pager: { first?: string | undefined; next?: string | undefined };
  notice?: Notice;
}

function resourceCrumbs(ctx: PageContext, resource: QueueResource | StreamResource): Crumb[] {
  return resource.kind === 'queue' ? queueCrumbs(ctx, resource) : streamCrumbs(ctx, resource);
}

export function DeadLettersPage(p: DeadLettersProps) {
  const { ctx, resource } = p;
  const retryable = (r: DeadLetterRecord) => r.kind === 'queue' || (r.kind === 'worker' && resource.kind === 'stream');
  return (
    <Layout ctx={ctx} title="Dead letters" crumbs={[...resourceCrumbs(ctx, resource), { label: 'Dead letters' }]} notice={p.notice}>
      <div class="toolbar">
        <p>
          <strong>{count(p.total)}</strong> dead letters, {p.order} first.{' '}
          <a href={href(ctx, '/dead-letters', { id: resource.id, order: p.order === 'newest' ? 'oldest' : 'newest' })}>
            Show {p.order === 'newest' ? 'oldest' : 'newest'} first
          </a>
        </p>
        {isOperator(ctx) && p.total > 0 ? (
          <div class="bulk">
            <a class="button secondary" href={href(ctx, '/confirm/retry-all', { id: resource.id })}>Retry all…</a>
            <a class="button danger" href={href(ctx, '/confirm/delete-all', { id: resource.id })}>Delete all…</a>
          </div>
        ) : null}
      </div>
      {p.records.length === 0 ? (
        <p class="empty">No dead letters{p.pager.first ? ' on this page' : ''}.</p>
      ) : (
        <div class="table-wrap">
          <table class="dead-letters">
            <thead>
              <tr>
                <th scope="col">Record</th>
                <th scope="col">Source entry</th>
                <th scope="col">Why</th>
                <th scope="col" class="num">Deliveries</th>
                <th scope="col">Payload</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {p.records.map((r) => (
                <tr>
                  <th scope="row">
                    <a href={href(ctx, '/dead-letter', { id: resource.id, record: r.id })}><code>{r.id}</code></a>
                    <div class="muted small">{serverTime(entryTime(r.id))}</div>
                  </th>
                  <td>{r.kind === 'foreign' ? <span class="muted">unknown</span> : <code>{r.sourceId}</code>}</td>
                  <td>
                    {r.kind === 'worker' ? (
                      <>
                        <span class={`reason reason-${r.reason.replace(/[^a-z-]/g, '')}`}>{r.reason}</span>
                        {r.exceptionType ? <div class="small"><code>{r.exceptionType}</code></div> : null}
                        <div class="muted small">group {r.group}</div>
                      </>
                    ) : r.kind === 'queue' ? (
                      <span class="reason">delivery limit</span>
                    ) : (
                      <span class="tag">unrecognised record</span>
                    )}
                  </td>
                  <td class="num">{r.kind === 'worker' ? count(r.attempt) : r.kind === 'queue' ? count(r.deliveryCount) : ''}</td>
                  <td class="preview"><code>{recordPreview(r)}</code></td>
                  <td class="actions">
                    <a href={href(ctx, '/dead-letter', { id: resource.id, record: r.id })} aria-label={`View dead letter ${r.id}`}>View</a>
                    {isOperator(ctx) ? (
                      <>
                        {retryable(r) ? (
                          <ActionForm ctx={ctx} action="retry" fields={{ id: resource.id, record: r.id }}>
                            <button type="submit" class="button primary small" aria-label={`Retry dead letter ${r.id}`}>Retry</button>
                          </ActionForm>
                        ) : null}
                        <a class="button danger small" href={href(ctx, '/confirm/delete', { id: resource.id, record: r.id })} aria-label={`Delete dead letter ${r.id}`}>
                          Delete…
                        </a>
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager label="Dead letters" first={p.pager.first} next={p.pager.next} />
    </Layout>
  );
}

export function DeadLetterPage({ ctx, resource, record }: { ctx: PageContext; resource: QueueResource | StreamResource; record: DeadLetterRecord }) {
  const retryable = record.kind === 'queue' || (record.kind === 'worker' && resource.kind === 'stream');
  return (
    <Layout
      ctx={ctx}
      title={`Dead letter ${record.id}`}
      crumbs={[...resourceCrumbs(ctx, resource), { label: 'Dead letters', href: href(ctx, '/dead-letters', { id: resource.id }) }, { label: record.id }]}
    >
      <dl class="facts">
        <dt>Record ID</dt><dd><code>{record.id}</code> ({serverTime(entryTime(record.id))})</dd>
        {record.kind === 'worker' ? (
          <>
            <dt>Source entry</dt><dd><code>{record.sourceId}</code></dd>
            <dt>Group</dt><dd>{record.group}</dd>
            <dt>Attempt</dt><dd>{count(record.attempt)}</dd>
            <dt>Reason</dt><dd>{record.reason}</dd>
            <dt>Exception type</dt><dd>{record.exceptionType ? <code>{record.exceptionType}</code> : <span class="muted">none</span>}</dd>
          </>
        ) : record.kind === 'queue' ? (
          <>
            <dt>Source entry</dt><dd><code>{record.sourceId}</code></dd>
            <dt>Delivery count</dt><dd>{count(record.deliveryCount)}</dd>
          </>
        ) : (
          <>
            <dt>Shape</dt><dd>Not a record Respire writes: shown raw, never retried.</dd>
          </>
        )}
      </dl>
      {isOperator(ctx) ? (
        <div class="bulk">
          {retryable ? (
            <ActionForm ctx={ctx} action="retry" fields={{ id: resource.id, record: record.id }}>
              <button type="submit" class="button primary">Retry</button>
            </ActionForm>
          ) : null}
          <a class="button danger" href={href(ctx, '/confirm/delete', { id: resource.id, record: record.id })}>Delete…</a>
        </div>
      ) : null}
      {record.kind === 'queue' ? (
        <>
          <h2>Payload</h2>
          <Rendered rendered={renderBytes(record.payload)} label="Payload" />
        </>
      ) : (
        <>
          <h2>{record.kind === 'worker' ? 'Original fields' : 'Fields'}</h2>
          <Fields fields={record.fields} />
        </>
      )}
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------
// Leased queue messages

export function DeliveriesPage({ ctx, queue, items, serverTimeMs, pager }: {
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
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Entry ID</th>
                <th scope="col">State</th>
                <th scope="col" class="num">Deliveries</th>
                <th scope="col">Until (server time)</th>
                <th scope="col" class="num">Remaining</th>
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <tr>
                  <th scope="row"><code>{d.id}</code></th>
                  <td>{d.state === 'leased' ? 'leased' : 'delayed after NACK'}</td>
                  <td class="num">{count(d.deliveryCount)}</td>
                  <td>{serverTime(d.untilMs)}</td>
                  <td class={d.due ? 'num warn' : 'num'}>{d.due ? `due ${duration(serverTimeMs - d.untilMs)} ago` : duration(d.untilMs - serverTimeMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager label="Leased messages" first={pager.first} next={pager.next} />
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------
// Confirmation and results

export function ConfirmPage({ ctx, title, crumbs, action, fields, danger, children, cancelHref, submitLabel, formExtra }: {
  ctx: PageContext;
  formExtra?: Child;
  title: string;
  crumbs: Crumb[];
  action: string;
  fields: Readonly<Record<string, string | number>>;
  danger: boolean;
  cancelHref: string;
  submitLabel: string;
  children?: Child;
}) {
  return (
    <Layout ctx={{ ...ctx, pollIntervalMs: 0 }} title={title} crumbs={crumbs}>
      <section class="confirm">
        {children}
        <div class="bulk">
          <ActionForm ctx={ctx} action={action} fields={fields} class="confirm-form">
            {formExtra}
            <button type="submit" class={danger ? 'button danger' : 'button primary'}>{submitLabel}</button>
          </ActionForm>
          <a class="button secondary" href={cancelHref}>Cancel</a>
        </div>
      </section>
    </Layout>
  );
}
