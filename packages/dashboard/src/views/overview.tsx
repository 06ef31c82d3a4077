// The overview page: totals, unavailable resources, queues and worker streams.
import type { QueueStatus, StreamStatus, UnavailableResource } from '@respire/admin';
import { count, preview, shown } from '../format.js';
import { Count, num, Pager, Table } from './components.js';
import { href, Layout, type PageContext } from './layout.js';

/** A slice of the overview's queues or streams, and the links to the other slices. */
export interface Slice {
  readonly first?: string | undefined;
  readonly next?: string | undefined;
  readonly from: number;
  readonly total: number;
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

      {p.unavailablePage.total > 0 ? (
        <section aria-labelledby="unavailable-heading">
          <h2 id="unavailable-heading">Unavailable</h2>
          <p class="notice warn" role="status">
            The server refused the status of {count(p.unavailablePage.total)} {p.unavailablePage.total === 1 ? 'resource' : 'resources'}; the others are shown
            below.
          </p>
          <UnavailableTable unavailable={p.unavailable} slice={p.unavailablePage} />
          <Pager label="Unavailable resources" first={p.unavailablePage.first} next={p.unavailablePage.next} />
        </section>
      ) : null}

      <section aria-labelledby="queues-heading">
        <h2 id="queues-heading">Reliable queues</h2>
        {p.queuePage.total === 0 ? <p class="empty">No queues configured or discovered.</p> : <QueueTable ctx={ctx} queues={p.queues} slice={p.queuePage} />}
        {p.discoveryTruncated ? <p class="notice warn">Discovery stopped at its page limit: more queues may exist.</p> : null}
        <Pager label="Queues" first={p.queuePage.first} next={p.queuePage.next} />
      </section>

      <section aria-labelledby="streams-heading">
        <h2 id="streams-heading">Worker streams</h2>
        {p.streamPage.total === 0 ? <p class="empty">No worker streams configured.</p> : <StreamTable ctx={ctx} streams={p.streams} />}
        <Pager label="Streams" first={p.streamPage.first} next={p.streamPage.next} />
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
              {shown(r.kind === 'queue' ? r.name : r.label)}
              {r.kind === 'queue' && r.keyPrefix ? <span class="muted small"> prefix {shown(r.keyPrefix)}</span> : null}
              {r.kind === 'stream' && r.label !== r.stream ? <span class="muted small"> {shown(r.stream)}</span> : null}
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
      columns={['Queue', num('Ready'), num('In flight'), num('Due'), num('Dead letters'), num('Stream length')]}
      caption={
        <>
          Reliable queues, {slice.from + 1} to {slice.from + queues.length} of {slice.total}
        </>
      }
    >
      <tbody>
        {queues.map((q) => (
          <tr>
            <th scope="row">
              <a href={href(ctx, '/queue', { id: q.resource.id })}>{shown(q.resource.name)}</a>
              {q.resource.keyPrefix ? <span class="muted small"> prefix {shown(q.resource.keyPrefix)}</span> : null}
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
    </Table>
  );
}

function StreamTable({ ctx, streams }: { ctx: PageContext; streams: readonly StreamStatus[] }) {
  return (
    <Table
      columns={['Stream', num('Length'), num('Dead letters'), 'Consumer group', num('Lag'), num('Pending'), num('Consumers')]}
      caption="Worker streams and their consumer groups"
    >
      {streams.map((s) => {
        const rows = Math.max(1, s.groups.length);
        const head = (
          <>
            <th scope="rowgroup" rowspan={rows}>
              <a href={href(ctx, '/stream', { id: s.resource.id })}>{shown(s.resource.label)}</a>
              {s.resource.label !== s.resource.stream ? <span class="muted small"> {shown(s.resource.stream)}</span> : null}
              {!s.exists ? <span class="tag">missing</span> : null}
            </th>
            <td class="num" rowspan={rows}>
              {count(s.length)}
            </td>
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
                <td colspan={4} class="muted">
                  no consumer groups
                </td>
              </tr>
            ) : (
              s.groups.map((g, i) => (
                <tr>
                  {i === 0 ? head : null}
                  <td>
                    <a href={href(ctx, '/group', { id: s.resource.id, group: g.name })}>{shown(g.name)}</a>
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
