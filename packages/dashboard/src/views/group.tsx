// A consumer group's page: its totals, live consumers, pending entries (filtered, paged) and, on demand, one entry's body.
import type { ConsumerList, EntryBody, GroupStatus, PendingEntry, StreamResource } from '@respire/admin';
import { count, duration, maybeCount } from '../format.js';
import { ref } from '../refs.js';
import { ActionForm, FindBox, isOperator, num, Pager, streamCrumbs, Table, type Paging } from './components.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Name } from './name.js';
import { Fields } from './payload.js';

export interface GroupPageProps {
  ctx: PageContext;
  stream: StreamResource;
  group: GroupStatus;
  consumers: ConsumerList;
  pending: readonly PendingEntry[];
  paging: Paging;
  consumerFilter: string | undefined;
  minIdleMs: number | undefined;
  body: { id: string; entry: EntryBody | null } | undefined;
  /** A consumer whose last read or claim is more recent than this is active, ms. */
  activeMs: number;
  notice?: Notice;
}

/** The link parameters of this group page, with its filters. */
export const groupParams = (stream: StreamResource, group: string, extra: Record<string, string | number | undefined> = {}) => ({
  ...ref('id', stream.id),
  ...ref('group', group),
  ...extra,
});

export function GroupPage(p: GroupPageProps) {
  const { ctx, stream, group } = p;
  const base = groupParams(stream, group.name);
  return (
    <Layout
      ctx={ctx}
      title={`Group ${group.name}`}
      heading={
        <>
          Group <Name value={group.name} full={false} />
        </>
      }
      crumbs={[...streamCrumbs(ctx, stream), { kind: 'Group', label: group.name }]}
      notice={p.notice}
    >
      <dl class="facts">
        <dt>Name</dt>
        <dd>
          <Name value={group.name} />
        </dd>
        <dt>Pending (delivered, not acknowledged)</dt>
        <dd>{count(group.pending)}</dd>
        <dt>Lag (not yet delivered)</dt>
        <dd class={group.lag === null ? 'unknown' : group.lag > 0 ? 'warn' : ''}>{maybeCount(group.lag)}</dd>
        <dt>Consumers</dt>
        <dd>{count(group.consumers)}</dd>
        <dt>Last delivered ID</dt>
        <dd>
          <code>{group.lastDeliveredId}</code>
        </dd>
      </dl>
      <FindBox ctx={ctx} resource={stream} />
      <section aria-labelledby="consumers-heading">
        <h2 id="consumers-heading">Consumers ({count(p.consumers.total)})</h2>
        <Consumers {...p} />
      </section>

      {p.body ? (
        <EntryPanel ctx={ctx} stream={stream} entryId={p.body.id} entry={p.body.entry} closeHref={href(ctx, '/group', { ...base, ...filterParams(p) })} />
      ) : null}

      <section aria-labelledby="pending-heading">
        <h2 id="pending-heading">
          Pending entries ({count(group.pending)} in the group)
          {p.consumerFilter !== undefined ? (
            <>
              {' '}
              of consumer <Name value={p.consumerFilter} />
            </>
          ) : null}
        </h2>
        <PendingFilter {...p} />
        {p.pending.length === 0 ? (
          <p class="empty">No pending entries{p.paging.first || p.consumerFilter !== undefined || p.minIdleMs ? ' here' : ''}.</p>
        ) : (
          <PendingTable {...p} />
        )}
        <Pager label="Pending entries" paging={p.paging} />
      </section>
    </Layout>
  );
}

/** The filter parameters a group page keeps across its links. */
export const filterParams = (p: { consumerFilter: string | undefined; minIdleMs: number | undefined }) => ({
  ...(p.consumerFilter !== undefined ? ref('consumer', p.consumerFilter) : {}),
  ...(p.minIdleMs ? { minIdleMinutes: p.minIdleMs / 60_000 } : {}),
});

function PendingFilter({ ctx, stream, group, consumerFilter, minIdleMs }: GroupPageProps) {
  return (
    <form method="get" action={`${ctx.base}/group`} class="row-form">
      {Object.entries(groupParams(stream, group.name, consumerFilter !== undefined ? ref('consumer', consumerFilter) : {})).map(([name, value]) => (
        <input type="hidden" name={name} value={String(value)} />
      ))}
      <label for="min-idle-filter">Idle at least (minutes)</label>
      <input id="min-idle-filter" name="minIdleMinutes" type="number" min="0" max="35791" value={minIdleMs ? String(minIdleMs / 60_000) : ''} />
      <button type="submit" class="button secondary">
        Filter
      </button>
      {consumerFilter !== undefined || minIdleMs ? <a href={href(ctx, '/group', groupParams(stream, group.name))}>Show every pending entry</a> : null}
    </form>
  );
}

/**
 * A page lists at most this many consumers of a group: above it the admin API declines to read
 * them (XINFO CONSUMERS has no COUNT) and the page says how many there are.
 */
export const MAX_CONSUMERS = 200;

function Consumers({ ctx, stream, group, consumers, activeMs }: GroupPageProps) {
  const inactiveKnown = consumers.items.some((c) => c.inactiveMs !== null);
  return (
    <>
      {consumers.truncated ? (
        <p class="notice warn">
          This group has {count(consumers.total)} consumers, more than {count(MAX_CONSUMERS)}: they are not listed (Redis can only list a group's consumers all
          at once). A group this large slows every read of it: remove the idle ones.
        </p>
      ) : consumers.items.length === 0 ? (
        <p class="empty">No consumers.</p>
      ) : (
        <>
          <Table columns={['Consumer', 'Now', num('Holds (pending)'), num('Last read or claim'), num('Last successful read')]} class="consumers">
            <tbody>
              {consumers.items.map((c) => {
                const active = c.idleMs < activeMs;
                return (
                  <tr>
                    <th scope="row">
                      <Name value={c.name} href={href(ctx, '/group', groupParams(stream, group.name, ref('consumer', c.name)))} />
                    </th>
                    <td class={active ? 'active' : 'muted'}>{active ? 'active' : 'idle'}</td>
                    <td class="num">
                      {c.pending > 0 ? <a href={href(ctx, '/group', groupParams(stream, group.name, ref('consumer', c.name)))}>{count(c.pending)}</a> : '0'}
                    </td>
                    <td class="num">{duration(c.idleMs)} ago</td>
                    <td class={c.inactiveMs === null ? 'num unknown' : 'num'}>{c.inactiveMs === null ? 'unknown' : `${duration(c.inactiveMs)} ago`}</td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
          <p class="muted small">
            Active: read or claimed in the last {duration(activeMs)} (a worker waiting in a read is seen again at every read wait).
            {inactiveKnown ? '' : ' This server does not report the time of the last successful read (Redis 7.0 has no inactive time; 7.2 and newer do).'}
          </p>
        </>
      )}
      {isOperator(ctx) && consumers.total > 0 ? (
        <form method="get" action={`${ctx.base}/confirm/remove-idle-consumers`} class="row-form">
          {Object.entries(groupParams(stream, group.name)).map(([name, value]) => (
            <input type="hidden" name={name} value={String(value)} />
          ))}
          <label for="min-idle">Remove consumers with no pending entries, idle for at least (minutes)</label>
          <input id="min-idle" name="minIdleMinutes" type="number" min="1" max="525600" value="60" required />
          <button type="submit" class="button secondary">
            Review idle consumers…
          </button>
        </form>
      ) : null}
    </>
  );
}

function PendingTable(p: GroupPageProps) {
  const { ctx, stream, group, pending } = p;
  return (
    <Table columns={['Entry ID', 'Owner', num('Idle'), num('Deliveries'), 'Actions']} class="pending">
      <tbody>
        {pending.map((e) => {
          const fence = { id: stream.id, group: group.name, entry: e.id, deliveryCount: e.deliveryCount, consumer: e.consumer };
          return (
            <tr>
              <th scope="row">
                <code>{e.id}</code>
              </th>
              <td>{e.consumer === '' ? <span class="muted">(no owner)</span> : <Name value={e.consumer} />}</td>
              <td class={e.released ? 'num released' : 'num'}>{e.released ? 'released, claimable now' : duration(e.idleMs)}</td>
              <td class="num">{count(e.deliveryCount)}</td>
              <td class="actions">
                <a
                  href={href(ctx, '/group', { ...groupParams(stream, group.name, filterParams(p)), cursor: ctx.query.get('cursor') ?? undefined, body: e.id })}
                  aria-label={`Show the body of entry ${e.id}`}
                >
                  Body
                </a>
                {isOperator(ctx) ? (
                  <>
                    {e.released ? null : (
                      <ActionForm ctx={ctx} action="release" fields={fence}>
                        <button type="submit" class="button secondary small" aria-label={`Release entry ${e.id} for redelivery`}>
                          Release
                        </button>
                      </ActionForm>
                    )}
                    <a
                      class="button danger small"
                      href={href(ctx, '/confirm/ack', {
                        ...groupParams(stream, group.name),
                        entry: e.id,
                        deliveryCount: e.deliveryCount,
                        ...ref('consumer', e.consumer),
                      })}
                      aria-label={`Ack entry ${e.id}…`}
                    >
                      Ack…
                    </a>
                  </>
                ) : null}
              </td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}

function EntryPanel({
  ctx,
  stream,
  entryId,
  entry,
  closeHref,
}: {
  ctx: PageContext;
  stream: StreamResource;
  entryId: string;
  entry: EntryBody | null;
  closeHref: string;
}) {
  return (
    <section class="panel" aria-labelledby="body-heading">
      <h2 id="body-heading">
        Entry <code>{entryId}</code>
      </h2>
      {entry === null ? (
        <p class="notice warn">The entry's body was deleted or trimmed from the stream: only its pending-list record remains.</p>
      ) : (
        <Fields fields={entry.fields} download={(i) => href(ctx, '/download', { ...ref('id', stream.id), entry: entryId, field: i })} />
      )}
      <p>
        <a href={closeHref}>Close</a>
      </p>
    </section>
  );
}
