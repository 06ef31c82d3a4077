// The overview page: totals over every resource shown, unavailable resources, queues and worker streams, each list paged.
import type { QueueStatus, StreamStatus, UnavailableResource } from '@respire/admin';
import { count, preview, shown } from '../format.js';
import { ref } from '../refs.js';
import { Count, num, Pager, Table, type Paging } from './components.js';
import { href, Layout, type PageContext } from './layout.js';
import { Name } from './name.js';

/** A slice of one of the overview's lists, and the links to the other slices. */
export interface Slice extends Paging {
  readonly from: number;
  readonly total: number;
}

/** What the totals cover: every visible resource (matching the search), not the rows of one page. */
export interface Totals {
  readonly deadLetters: number;
  readonly pending: number;
  readonly due: number;
  readonly inFlight: number;
  readonly ready: number;
  /** Queues whose ready count Redis cannot tell (left out of `ready`). */
  readonly readyUnknown: number;
  readonly queues: number;
  readonly streams: number;
  readonly unavailable: number;
}

export interface OverviewProps {
  ctx: PageContext;
  serverTimeMs: number;
  queues: readonly QueueStatus[];
  streams: readonly StreamStatus[];
  /** Resources whose status the server refused (a key of another type, an ACL refusal). */
  unavailable: readonly UnavailableResource[];
  discoveryTruncated: boolean;
  queuePage: Slice;
  streamPage: Slice;
  unavailablePage: Slice;
  totals: Totals;
  /** The name search, if any. */
  search: string | undefined;
}

const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

export function OverviewPage(p: OverviewProps) {
  const { ctx, totals: t } = p;
  const scope = `${plural(t.queues, 'queue')} and ${plural(t.streams, 'stream')}${p.search ? ` matching “${shown(p.search)}”` : ''}`;
  return (
    <Layout ctx={ctx} title="Overview" serverTimeMs={p.serverTimeMs}>
      <form method="get" action={`${ctx.base}/`} class="row-form search" role="search">
        <label for="overview-search">Find a queue or stream by name</label>
        <input id="overview-search" name="q" value={p.search ?? ''} maxlength={1024} />
        <button type="submit" class="button secondary">
          Search
        </button>
        {p.search ? <a href={`${ctx.base}/`}>Show all</a> : null}
      </form>
      <ul class="cards" aria-label={`Totals across ${scope}`}>
        <li class={t.deadLetters > 0 ? 'card danger' : 'card'}>
          <span class="card-value">{count(t.deadLetters)}</span> <span class="card-label">dead letters</span>
        </li>
        <li class="card">
          <span class="card-value">{count(t.pending)}</span> <span class="card-label">pending stream entries</span>
        </li>
        <li class={t.due > 0 ? 'card warn' : 'card'}>
          <span class="card-value">{count(t.due)}</span> <span class="card-label">queue messages due</span>
        </li>
        <li class="card">
          <span class="card-value">{count(t.inFlight)}</span> <span class="card-label">queue messages in flight</span>
        </li>
        <li class="card">
          <span class="card-value">{count(t.ready)}</span> <span class="card-label">queue messages ready{t.readyUnknown > 0 ? '*' : ''}</span>
        </li>
      </ul>
      <p class="muted small totals-scope">
        Totals across all {scope}
        {t.unavailable > 0 ? `; ${plural(t.unavailable, 'resource')} whose status the server refused ${t.unavailable === 1 ? 'is' : 'are'} not counted` : ''}
        {t.readyUnknown > 0
          ? `; * ${plural(t.readyUnknown, 'queue')} whose ready count Redis cannot tell ${t.readyUnknown === 1 ? 'is' : 'are'} left out of it`
          : ''}
        {p.discoveryTruncated ? '; queue discovery stopped at its page limit, so more queues may exist' : ''}.
      </p>

      {p.unavailablePage.total > 0 ? (
        <section aria-labelledby="unavailable-heading">
          <h2 id="unavailable-heading">Unavailable</h2>
          <p class="notice warn" role="status">
            The server refused the status of {plural(p.unavailablePage.total, 'resource')}; the others are shown below.
          </p>
          <UnavailableTable unavailable={p.unavailable} slice={p.unavailablePage} />
          <Pager label="Unavailable resources" paging={p.unavailablePage} />
        </section>
      ) : null}

      <section aria-labelledby="queues-heading">
        <h2 id="queues-heading">Reliable queues ({count(p.queuePage.total)})</h2>
        {p.queuePage.total === 0 ? (
          <p class="empty">{p.search ? 'No queue matches.' : 'No queues configured or discovered.'}</p>
        ) : (
          <QueueTable ctx={ctx} queues={p.queues} slice={p.queuePage} />
        )}
        {p.discoveryTruncated ? <p class="notice warn">Discovery stopped at its page limit: more queues may exist.</p> : null}
        <Pager label="Queues" paging={p.queuePage} />
      </section>

      <section aria-labelledby="streams-heading">
        <h2 id="streams-heading">Worker streams ({count(p.streamPage.total)})</h2>
        {p.streamPage.total === 0 ? (
          <p class="empty">{p.search ? 'No stream matches.' : 'No worker streams configured.'}</p>
        ) : (
          <StreamTable ctx={ctx} streams={p.streams} />
        )}
        <Pager label="Streams" paging={p.streamPage} />
      </section>
    </Layout>
  );
}

/**
 * Resources whose status could not be read, with the error's code and message (as text, cut to one
 * line of 300 characters). Not linked: their pages would fail the same way.
 */
function UnavailableTable({ unavailable, slice }: { unavailable: readonly UnavailableResource[]; slice: Slice }) {
  return (
    <Table
      columns={['Resource', 'Kind', 'Error', 'Message']}
      caption={
        <>
          Unavailable resources, {slice.from + 1} to {slice.from + unavailable.length} of {slice.total}
        </>
      }
    >
      <tbody>
        {unavailable.map(({ resource: r, code, message }) => (
          <tr>
            <th scope="row">
              <Name value={r.kind === 'queue' ? r.name : r.label} />
              {r.kind === 'queue' && r.keyPrefix ? (
                <span class="muted small">
                  {' '}
                  prefix <Name value={r.keyPrefix} />
                </span>
              ) : null}
              {r.kind === 'stream' && r.label !== r.stream ? (
                <span class="muted small">
                  {' '}
                  <Name value={r.stream} />
                </span>
              ) : null}
            </th>
            <td class="kind">{r.kind === 'queue' ? 'queue' : 'worker stream'}</td>
            <td class="danger">
              <code>{shown(code)}</code>
            </td>
            <td>{shown(preview(message, 300))}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function QueueTable({ ctx, queues, slice }: { ctx: PageContext; queues: readonly QueueStatus[]; slice: Slice }) {
  return (
    <Table
      class="overview-queues"
      columns={['Queue', num('Ready'), num('In flight'), num('Due'), num('Dead letters'), num('Stream length')]}
      caption={
        <>
          Reliable queues, {slice.from + 1} to {slice.from + queues.length} of {slice.total}
        </>
      }
    >
      <tbody>
        {queues.map((q) => {
          const id = ref('id', q.resource.id);
          return (
            <tr>
              <th scope="row">
                <Name value={q.resource.name} href={href(ctx, '/queue', id)} />
                {q.resource.keyPrefix ? (
                  <span class="muted small">
                    {' '}
                    prefix <Name value={q.resource.keyPrefix} />
                  </span>
                ) : null}
                {q.resource.discovered ? <span class="tag">discovered</span> : null}
                {!q.exists ? (
                  <span class="tag missing" title="No key of this queue exists under its name and key prefix: a mistyped name, or a queue never sent to">
                    missing
                  </span>
                ) : null}
              </th>
              <Count value={q.ready} />
              <td class="num">
                <a href={href(ctx, '/messages', { ...id, view: 'in-flight' })}>{count(q.inFlight)}</a>
              </td>
              <Count value={q.due} alert="warn" />
              <td class={q.deadLetters > 0 ? 'num danger' : 'num'}>
                <a href={href(ctx, '/dead-letters', id)}>{count(q.deadLetters)}</a>
              </td>
              <Count value={q.length} />
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}

function StreamTable({ ctx, streams }: { ctx: PageContext; streams: readonly StreamStatus[] }) {
  return (
    <Table
      class="overview-streams"
      columns={['Stream', num('Length'), num('Dead letters'), 'Consumer group', num('Lag'), num('Pending'), num('Consumers')]}
      caption="Worker streams and their consumer groups"
    >
      {streams.map((s) => {
        const id = ref('id', s.resource.id);
        const rows = Math.max(1, s.groups.length);
        const head = (
          <>
            <th scope="rowgroup" rowspan={rows}>
              <Name value={s.resource.label} href={href(ctx, '/stream', id)} />
              {s.resource.label !== s.resource.stream ? (
                <span class="muted small">
                  {' '}
                  <Name value={s.resource.stream} />
                </span>
              ) : null}
              {!s.exists ? (
                <span class="tag missing" title="The stream key does not exist">
                  missing
                </span>
              ) : null}
            </th>
            <td class="num" rowspan={rows}>
              {count(s.length)}
            </td>
            <td class={s.deadLetters ? 'num danger' : 'num'} rowspan={rows}>
              {s.deadLetters === null ? <span class="muted">none configured</span> : <a href={href(ctx, '/dead-letters', id)}>{count(s.deadLetters)}</a>}
            </td>
          </>
        );
        return (
          <tbody class="group-rows">
            {s.groups.length === 0 ? (
              <tr>
                {head}
                <td colspan={4} class="muted">
                  no consumer groups
                </td>
              </tr>
            ) : (
              s.groups.map((g, i) => (
                <tr>
                  {i === 0 ? head : null}
                  <td>
                    <Name value={g.name} href={href(ctx, '/group', { ...id, ...ref('group', g.name) })} />
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
    </Table>
  );
}
