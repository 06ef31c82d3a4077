// A consumer group's page: consumers, pending entries, an entry's body.
import type { ConsumerList, EntryBody, PendingEntry, StreamResource } from '@respire/admin';
import { count, duration, shown } from '../format.js';
import { ActionForm, isOperator, num, Pager, streamCrumbs, Table } from './components.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Fields } from './payload.js';

/** A consumer group: its consumers, its pending entries and, on demand, one entry's body. */

export interface GroupPageProps {
  ctx: PageContext;
  stream: StreamResource;
  group: string;
  serverTimeMs?: number;
  consumers: ConsumerList;
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
    <Layout
      ctx={ctx}
      title={`Group ${group}`}
      crumbs={[...streamCrumbs(ctx, stream), { label: `Group ${group}` }]}
      serverTimeMs={p.serverTimeMs}
      notice={p.notice}
    >
      <section aria-labelledby="consumers-heading">
        <h2 id="consumers-heading">Consumers ({count(p.consumers.total)})</h2>
        <Consumers {...p} />
      </section>

      {p.body ? <EntryPanel entryId={p.body.id} entry={p.body.entry} closeHref={href(ctx, '/group', { ...base, consumer: p.consumerFilter })} /> : null}

      <section aria-labelledby="pending-heading">
        <h2 id="pending-heading">
          Pending entries
          {p.consumerFilter !== undefined ? (
            <>
              {' '}
              of consumer <span class="name">{shown(p.consumerFilter)}</span>
            </>
          ) : null}
        </h2>
        {p.consumerFilter !== undefined ? (
          <p>
            <a href={href(ctx, '/group', base)}>Show every consumer's pending entries</a>
          </p>
        ) : null}
        {p.pending.length === 0 ? <p class="empty">No pending entries{p.pager.first ? ' on this page' : ''}.</p> : <PendingTable {...p} />}
        <Pager label="Pending entries" first={p.pager.first} next={p.pager.next} />
      </section>
    </Layout>
  );
}

/**
 * A page lists at most this many consumers of a group: above it the admin API declines to read
 * them (XINFO CONSUMERS has no COUNT) and the page says how many there are.
 */
export const MAX_CONSUMERS = 200;

function Consumers({ ctx, stream, group, consumers }: GroupPageProps) {
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
        <Table columns={['Consumer', num('Pending'), num('Idle'), num('Inactive')]}>
          <tbody>
            {consumers.items.map((c) => (
              <tr>
                <th scope="row">
                  <a href={href(ctx, '/group', { id: stream.id, group, consumer: c.name })}>{shown(c.name)}</a>
                </th>
                <td class="num">{count(c.pending)}</td>
                <td class="num">{duration(c.idleMs)}</td>
                <td class={c.inactiveMs === null ? 'num unknown' : 'num'}>{c.inactiveMs === null ? 'unknown' : duration(c.inactiveMs)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {isOperator(ctx) && consumers.total > 0 ? (
        <form method="get" action={`${ctx.base}/confirm/remove-idle-consumers`} class="row-form">
          <input type="hidden" name="id" value={stream.id} />
          <input type="hidden" name="group" value={group} />
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

function PendingTable({ ctx, stream, group, pending, consumerFilter }: GroupPageProps) {
  return (
    <Table columns={['Entry ID', 'Owner', num('Idle'), num('Deliveries'), 'Actions']}>
      <tbody>
        {pending.map((e) => {
          const fence = { id: stream.id, group, entry: e.id, deliveryCount: e.deliveryCount, consumer: e.consumer };
          return (
            <tr>
              <th scope="row">
                <code>{e.id}</code>
              </th>
              <td>{shown(e.consumer)}</td>
              <td class="num">{duration(e.idleMs)}</td>
              <td class="num">{count(e.deliveryCount)}</td>
              <td class="actions">
                <a
                  href={href(ctx, '/group', { id: stream.id, group, consumer: consumerFilter, cursor: ctx.query.get('cursor') ?? undefined, body: e.id })}
                  aria-label={`Show the body of entry ${e.id}`}
                >
                  Body
                </a>
                {isOperator(ctx) ? (
                  <>
                    <ActionForm ctx={ctx} action="release" fields={fence}>
                      <button type="submit" class="button secondary small" aria-label={`Release entry ${e.id} for redelivery`}>
                        Release
                      </button>
                    </ActionForm>
                    <a class="button danger small" href={href(ctx, '/confirm/ack', fence)} aria-label={`Ack entry ${e.id}…`}>
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

function EntryPanel({ entryId, entry, closeHref }: { entryId: string; entry: EntryBody | null; closeHref: string }) {
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
      <p>
        <a href={closeHref}>Close</a>
      </p>
    </section>
  );
}
