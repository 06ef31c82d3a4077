// A queue's and a stream's own pages, the find results of a resource, and its history charts.
import type { Child } from 'hono/jsx';
import type { FindResult, History, HistorySeries, QueueMessage, QueueResource, QueueStatus, StreamResource, StreamStatus } from '@respire/admin';
import { count, duration, maybeCount, serverTime } from '../format.js';
import { ref } from '../refs.js';
import { Chart } from './chart.js';
import { Count, FindBox, num, resourceCrumbs, resourceLabel, Table } from './components.js';
import { recordPreview } from './payload.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Name } from './name.js';

/** The frame of a queue's or a stream's page: its heading, a warning when its keys are missing, the find box. */
function ResourceFrame({
  ctx,
  kind,
  name,
  resource,
  missing,
  notice,
  children,
}: {
  ctx: PageContext;
  kind: 'Queue' | 'Stream';
  name: string;
  resource: QueueResource | StreamResource;
  missing: string | undefined;
  notice?: Notice | undefined;
  children?: Child;
}) {
  return (
    <Layout
      ctx={ctx}
      title={`${kind} ${name}`}
      heading={
        <>
          {kind} <Name value={name} full={false} />
        </>
      }
      crumbs={[{ kind, label: name }]}
      notice={notice}
    >
      {missing ? (
        <p class="notice warn" role="status">
          {missing}
        </p>
      ) : null}
      <FindBox ctx={ctx} resource={resource} />
      {children}
    </Layout>
  );
}

export function QueuePage({ ctx, status, notice }: { ctx: PageContext; status: QueueStatus; notice?: Notice }) {
  const q = status.resource;
  const id = ref('id', q.id);
  const missing = status.exists
    ? undefined
    : `No key of this queue exists under its name${q.keyPrefix ? ' and key prefix' : ''}: a mistyped name, or a queue never sent to.`;
  return (
    <ResourceFrame ctx={ctx} kind="Queue" name={q.name} resource={q} missing={missing} notice={notice}>
      <dl class="facts">
        <dt>Name</dt>
        <dd>
          <Name value={q.name} />
        </dd>
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
          <a href={href(ctx, '/messages', id)}>Ready messages ({maybeCount(status.ready)})</a>
        </li>
        <li>
          <a href={href(ctx, '/messages', { ...id, view: 'in-flight' })}>Leased and delayed ({count(status.inFlight)})</a>
        </li>
        <li>
          <a href={href(ctx, '/dead-letters', id)}>Dead letters ({count(status.deadLetters)})</a>
        </li>
        <li>
          <a href={href(ctx, '/history', id)}>History</a>
        </li>
      </ul>
      <h2>Keys</h2>
      <dl class="facts keys">
        <dt>Stream</dt>
        <dd>
          <code>
            <Name value={q.keys.stream} />
          </code>
        </dd>
        <dt>Deadlines</dt>
        <dd>
          <code>
            <Name value={q.keys.deadlines} />
          </code>
        </dd>
        <dt>Dead letters</dt>
        <dd>
          <code>
            <Name value={q.keys.deadLetter} />
          </code>
        </dd>
      </dl>
    </ResourceFrame>
  );
}

export function StreamPage({ ctx, status }: { ctx: PageContext; status: StreamStatus }) {
  const s = status.resource;
  const id = ref('id', s.id);
  const missing = status.exists ? undefined : `The stream key does not exist${status.deadLetters ? ', but its dead letters remain' : ''}.`;
  return (
    <ResourceFrame ctx={ctx} kind="Stream" name={s.label} resource={s} missing={missing}>
      <dl class="facts">
        <dt>Stream key</dt>
        <dd>
          <code>
            <Name value={s.stream} />
          </code>
        </dd>
        <dt>Length</dt>
        <dd>{status.exists ? count(status.length) : 'the stream does not exist'}</dd>
        <dt>Dead-letter stream</dt>
        <dd>
          {s.deadLetterStream === undefined ? (
            'none configured'
          ) : (
            <>
              <code>
                <Name value={s.deadLetterStream} />
              </code>{' '}
              <a href={href(ctx, '/dead-letters', id)}>{count(status.deadLetters ?? 0)} dead letters</a>
            </>
          )}
        </dd>
      </dl>
      <ul class="links">
        <li>
          <a href={href(ctx, '/history', id)}>History</a>
        </li>
      </ul>
      <h2>Consumer groups ({count(status.groups.length)})</h2>
      {status.groups.length === 0 ? (
        <p class="empty">No consumer groups.</p>
      ) : (
        <Table columns={['Group', num('Lag'), num('Pending'), num('Consumers'), 'Last delivered ID']}>
          <tbody>
            {status.groups.map((g) => (
              <tr>
                <th scope="row">
                  <Name value={g.name} href={href(ctx, '/group', { ...id, ...ref('group', g.name) })} />
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
    </ResourceFrame>
  );
}

/** What find found in one resource. */
export function FindPage({ ctx, resource, result }: { ctx: PageContext; resource: QueueResource | StreamResource; result: FindResult }) {
  const id = ref('id', resource.id);
  const nothing = !result.entry && !result.deadLetter && !result.bySource?.items.length && !result.deduplication;
  return (
    <Layout ctx={ctx} title="Find" crumbs={[...resourceCrumbs(ctx, resource), { label: 'Find' }]} serverTimeMs={result.serverTimeMs}>
      <FindBox ctx={ctx} resource={resource} value={result.query} />
      {nothing ? (
        <p class="notice warn" role="status">
          Nothing found for <Name value={result.query} /> in {resource.kind === 'queue' ? 'queue' : 'stream'} <Name value={resourceLabel(resource)} />: no entry
          or dead letter with that ID, no dead letter of that source entry
          {result.bySource && !result.bySource.complete ? ` among the ${count(result.bySource.scanned)} records searched` : ''}
          {resource.kind === 'queue' ? ', and no deduplication ID by that name within its window' : ''}.
        </p>
      ) : null}
      {result.deduplication ? (
        <section aria-labelledby="dedup-heading">
          <h2 id="dedup-heading">Deduplication ID</h2>
          <p>
            <Name value={result.query} /> names entry <code>{result.deduplication.entryId}</code>
            {result.deduplication.expiresInMs !== null ? ` for ${duration(result.deduplication.expiresInMs)} more` : ''}: a send with it appends nothing.
          </p>
        </section>
      ) : null}
      {result.entry ? (
        <section aria-labelledby="entry-heading">
          <h2 id="entry-heading">
            Entry <code>{result.entry.id}</code>
          </h2>
          {result.message ? (
            <p>
              <a href={href(ctx, '/message', { ...id, entry: result.entry.id })}>{messageWhere(result.message, result.serverTimeMs)}</a>
            </p>
          ) : null}
          {result.groups ? (
            <ul>
              {result.groups.map((g) => (
                <li>
                  Group <Name value={g.group} href={href(ctx, '/group', { ...id, ...ref('group', g.group) })} />:{' '}
                  {g.state === 'pending' ? (
                    <>
                      pending to <Name value={g.pending!.consumer} />, {g.pending!.released ? 'released, claimable now' : `idle ${duration(g.pending!.idleMs)}`}
                      , delivery {count(g.pending!.deliveryCount)}
                    </>
                  ) : g.state === 'done' ? (
                    'delivered and acknowledged'
                  ) : (
                    'not yet delivered'
                  )}
                </li>
              ))}
            </ul>
          ) : null}
        </section>
      ) : result.deduplication || result.bySource?.items.length ? (
        <p class="muted">
          No entry <code>{result.deduplication?.entryId ?? result.query}</code> in the stream now (acknowledged, dead-lettered or trimmed).
        </p>
      ) : null}
      {result.deadLetter ? (
        <section aria-labelledby="record-heading">
          <h2 id="record-heading">Dead-letter record</h2>
          <p>
            <a href={href(ctx, '/dead-letter', { ...id, record: result.deadLetter.id })}>
              <code>{result.deadLetter.id}</code>
            </a>{' '}
            <code>{recordPreview(result.deadLetter)}</code>
          </p>
        </section>
      ) : null}
      {result.bySource && result.bySource.items.length > 0 ? (
        <section aria-labelledby="source-heading">
          <h2 id="source-heading">Dead letters of this source entry</h2>
          <ul>
            {result.bySource.items.map((r) => (
              <li>
                <a href={href(ctx, '/dead-letter', { ...id, record: r.id })}>
                  <code>{r.id}</code>
                </a>{' '}
                {serverTime(Number(r.id.split('-')[0]))}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </Layout>
  );
}

/** The ranges the history page offers. */
export const HISTORY_RANGES = { '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000, '7d': 604_800_000 } as const;

export function HistoryPage({
  ctx,
  resource,
  history,
  range,
  sampling,
}: {
  ctx: PageContext;
  resource: QueueResource | StreamResource;
  history: History;
  range: keyof typeof HISTORY_RANGES;
  /** The interval this dashboard samples at, if it does. */
  sampling: number | undefined;
}) {
  const id = ref('id', resource.id);
  return (
    <Layout ctx={ctx} title="History" crumbs={[...resourceCrumbs(ctx, resource), { label: 'History' }]}>
      <nav class="ranges" aria-label="Time range">
        {Object.keys(HISTORY_RANGES).map((r) =>
          r === range ? <strong aria-current="true">{r}</strong> : <a href={href(ctx, '/history', { ...id, range: r })}>{r}</a>,
        )}
      </nav>
      <p class="muted small">
        {history.samples > 0
          ? `${count(history.samples)} samples from ${serverTime(history.fromMs!)} to ${serverTime(history.toMs!)} (server time). Rates are per second over each interval.`
          : 'No samples in this range.'}{' '}
        {sampling
          ? `This dashboard records a sample every ${duration(sampling)}.`
          : 'History is recorded by a sampler: a dashboard with history on, or `respire history record`.'}
      </p>
      {!history.kept ? <p class="notice warn">This stream can have no history: no history key shares its Cluster slot.</p> : null}
      {history.series.map((series) => (
        <SeriesCharts series={series} resource={resource} />
      ))}
    </Layout>
  );
}

function SeriesCharts({ series, resource }: { series: HistorySeries; resource: QueueResource | StreamResource }) {
  const times = series.points.map((p) => p.atMs);
  const pick = (key: keyof HistorySeries['points'][number]) => series.points.map((p) => p[key] as number | null);
  const title =
    series.kind === 'queue' ? `Queue ${resourceLabel(resource)}` : series.kind === 'stream' ? `Stream ${resourceLabel(resource)}` : `Group ${series.name}`;
  return (
    <section class="series-charts">
      <h2>
        {series.kind === 'group' ? (
          <>
            Group <Name value={series.name} />
          </>
        ) : (
          title
        )}
      </h2>
      <Chart
        title="Per second"
        unit="rate"
        times={times}
        lines={
          series.kind === 'stream'
            ? [
                { label: 'sent', values: pick('sent') },
                { label: 'dead-lettered', values: pick('deadLettered') },
              ]
            : [
                { label: 'sent', values: pick('sent') },
                { label: 'delivered', values: pick('delivered') },
                { label: series.kind === 'queue' ? 'acknowledged' : 'completed (acked or dead-lettered)', values: pick('acknowledged') },
                ...(series.kind === 'queue' ? [{ label: 'dead-lettered', values: pick('deadLettered') }] : []),
              ]
        }
      />
      {series.kind === 'stream' ? null : (
        <>
          <Chart
            title="Backlog"
            unit="count"
            times={times}
            lines={[
              { label: series.kind === 'queue' ? 'ready' : 'lag', values: pick('lag') },
              { label: series.kind === 'queue' ? 'in flight' : 'pending', values: pick('pending') },
            ]}
          />
          <Chart title="Oldest unacknowledged" unit="ms" times={times} lines={[{ label: 'age', values: pick('oldestAgeMs') }]} />
        </>
      )}
      {series.kind !== 'group' ? (
        <Chart title="Dead letters" unit="count" times={times} lines={[{ label: 'dead letters', values: pick('deadLetters') }]} />
      ) : null}
    </section>
  );
}

/** Where a found queue message stands, in one line; a delayed send says so while it waits (ready, or parked with delivery count 0). */
function messageWhere(m: QueueMessage, nowMs: number): string {
  if (m.state === 'ready' && m.dueMs !== null && m.dueMs > nowMs) return `Delayed send until ${serverTime(m.dueMs)}: not yet delivered`;
  if (m.state === 'delayed' && m.deliveryCount === 0) return `Delayed send until ${serverTime(m.untilMs!)}: not yet delivered`;
  if (m.state === 'ready') return 'Ready: not yet delivered';
  if (m.state === 'delivered') return 'Delivered, not completed';
  return `${m.state === 'leased' ? 'Leased' : 'Delayed'} until ${serverTime(m.untilMs!)}, delivery ${m.deliveryCount}`;
}
