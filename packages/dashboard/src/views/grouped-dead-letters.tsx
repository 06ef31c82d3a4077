// A grouped queue's dead letters: the table (group, deliveries, payload preview; Retry and Delete… for operators), its page, and the confirmations. Group IDs are user data: always escaped by JSX.
import type { DeadLetterRecord, GroupedQueueStatus } from '@respire/admin';
import { count, entryTime, preview, serverTime, shownText } from '../format.js';
import { ActionForm, isOperator, num, Pager, Table, type Paging } from './components.js';
import { ConfirmPage } from './confirm.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Name } from './name.js';

/** The most dead letters one "Retry all…" or "Delete all…" of a grouped queue handles: the rest wait for the next one (or the CLI). */
export const GROUPED_BULK_MAX = 10_000;

const labelOf = (queue: GroupedQueueStatus) => `${queue.keyPrefix}${queue.name}`;

/** Retry all… and Delete all… of a grouped queue's dead letters, for operators, when it has any. */
export function GroupedDeadLetterBulk({ ctx, queue }: { ctx: PageContext; queue: GroupedQueueStatus }) {
  if (!isOperator(ctx) || queue.deadLetters === 0) return null;
  return (
    <div class="bulk">
      <a class="button secondary" href={href(ctx, '/confirm/grouped-bulk', { id: queue.id, action: 'retry' })}>
        Retry all…
      </a>
      <a class="button danger" href={href(ctx, '/confirm/grouped-bulk', { id: queue.id, action: 'delete' })}>
        Delete all…
      </a>
    </div>
  );
}

/** A grouped queue's dead-letter records: record, group, source entry, deliveries, payload; Retry and Delete… for operators. */
export function GroupedDeadLettersTable({ ctx, queue, records }: { ctx: PageContext; queue: GroupedQueueStatus; records: readonly DeadLetterRecord[] }) {
  const operator = isOperator(ctx);
  if (records.length === 0) return <p class="empty">No dead letters.</p>;
  return (
    <Table
      columns={['Record', 'Group', 'Source entry', num('Deliveries'), 'Payload', ...(operator ? ['Actions'] : [])]}
      caption="Dead letters"
      class="grouped-dead-letters"
    >
      <tbody>
        {records.map((r) => (
          <tr>
            <th scope="row">
              <code>{r.id}</code>
              <div class="muted small">{serverTime(entryTime(r.id))}</div>
            </th>
            {r.kind === 'queue' ? (
              <>
                <td>
                  <Name value={r.group ?? ''} max={40} full={false} />
                </td>
                <td>
                  <code>{r.sourceId}</code>
                </td>
                <td class="num">{count(r.deliveryCount)}</td>
                <td class="preview">
                  <code>{preview(shownText(r.payload.toString('utf8')))}</code>
                </td>
              </>
            ) : (
              <td colspan={4} class="muted">
                Not a record of a grouped queue: it names no group to retry into.
              </td>
            )}
            {operator ? (
              <td class="actions">
                {r.kind === 'queue' ? (
                  <ActionForm ctx={ctx} action="grouped-retry" fields={{ id: queue.id, record: r.id }}>
                    <button type="submit" class="button primary small" aria-label={`Retry dead letter ${r.id}`}>
                      Retry
                    </button>
                  </ActionForm>
                ) : null}{' '}
                <a
                  class="button danger small"
                  href={href(ctx, '/confirm/grouped-delete', { id: queue.id, record: r.id })}
                  aria-label={`Delete dead letter ${r.id}`}
                >
                  Delete…
                </a>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** What a retry does, in one sentence, for the pages that offer it. */
export const GROUPED_RETRY_TEXT =
  'Retry appends the message again at the end of its group (its delivery count starts again), behind everything the group has now: an ordered group delivers it after its current messages, in order.';

/** One page of a grouped queue's dead letters, newest first. */
export function GroupedDeadLettersPage({
  ctx,
  queue,
  records,
  paging,
  notice,
}: {
  ctx: PageContext;
  queue: GroupedQueueStatus;
  records: readonly DeadLetterRecord[];
  paging: Paging;
  notice?: Notice;
}) {
  const label = labelOf(queue);
  return (
    <Layout
      ctx={ctx}
      title={`Dead letters · ${label}`}
      heading={
        <>
          Dead letters of <Name value={label} />
        </>
      }
      crumbs={[
        { label: 'Grouped queues', href: href(ctx, '/grouped-queues') },
        { kind: 'Grouped queue', label, href: href(ctx, '/grouped-queue', { id: queue.id }) },
        { label: 'Dead letters' },
      ]}
      serverTimeMs={queue.serverTimeMs}
      notice={notice}
    >
      <p class="muted">
        Messages given up on at the delivery limit, newest first. {GROUPED_RETRY_TEXT} Retry all… and Delete all… handle up to {count(GROUPED_BULK_MAX)} records
        at a time; more at once: <code>respire groups retry-dead-letters --all</code> and <code>delete-dead-letters --all</code>.
      </p>
      <div class="toolbar">
        <p>
          <strong>{count(queue.deadLetters)}</strong> dead letters, newest first.
        </p>
        <GroupedDeadLetterBulk ctx={ctx} queue={queue} />
      </div>
      <GroupedDeadLettersTable ctx={ctx} queue={queue} records={records} />
      <Pager label="Dead letter pages" paging={paging} />
    </Layout>
  );
}

/** The confirmation of deleting one of a grouped queue's dead letters. */
export function ConfirmGroupedDeletePage({ ctx, queue, record }: { ctx: PageContext; queue: GroupedQueueStatus; record: string }) {
  const label = labelOf(queue);
  const back = href(ctx, '/grouped-queue', { id: queue.id });
  return (
    <ConfirmPage
      ctx={ctx}
      title="Delete this dead letter?"
      crumbs={[{ label: 'Grouped queues', href: href(ctx, '/grouped-queues') }, { kind: 'Grouped queue', label, href: back }, { label: 'Delete' }]}
      action="grouped-delete"
      fields={{ id: queue.id, record }}
      danger
      submitLabel="Delete dead letter"
      cancelHref={back}
    >
      <p>
        Dead letter <code>{record}</code> of grouped queue <Name value={label} /> will be removed from its dead-letter stream. Its payload is gone for good.
      </p>
    </ConfirmPage>
  );
}

/** The confirmation of retrying or deleting every dead letter of a grouped queue: how many, and what happens to them. */
export function ConfirmGroupedBulkPage({ ctx, queue, action }: { ctx: PageContext; queue: GroupedQueueStatus; action: 'retry' | 'delete' }) {
  const label = labelOf(queue);
  const back = href(ctx, '/grouped-queue', { id: queue.id });
  const retry = action === 'retry';
  const total = queue.deadLetters;
  const limit = Math.min(total, GROUPED_BULK_MAX);
  const what = `${count(limit)} dead letter${limit === 1 ? '' : 's'}`;
  return (
    <ConfirmPage
      ctx={ctx}
      title={retry ? 'Retry all dead letters?' : 'Delete all dead letters?'}
      crumbs={[
        { label: 'Grouped queues', href: href(ctx, '/grouped-queues') },
        { kind: 'Grouped queue', label, href: back },
        { label: retry ? 'Retry all' : 'Delete all' },
      ]}
      action={retry ? 'grouped-retry-all' : 'grouped-delete-all'}
      fields={{ id: queue.id, limit }}
      danger={!retry}
      submitLabel={`${retry ? 'Retry' : 'Delete'} ${what}`}
      cancelHref={back}
    >
      <p>
        Grouped queue <Name value={label} /> has {count(total)} dead letter{total === 1 ? '' : 's'} now. {retry ? 'Retry' : 'Delete'}{' '}
        {limit < total ? `the oldest ${what}` : `all ${what}`}, oldest first, in pages.
      </p>
      <p>
        {retry
          ? `Each message is appended again at the end of its group, its delivery count starting again, and its record is removed. Records without a group are left and counted as not retried.`
          : 'Each record is removed from the dead-letter stream for good, with its payload.'}{' '}
        Dead letters that arrive meanwhile are not touched.
        {limit < total ? ` The rest stay: run it again, or use respire groups ${retry ? 'retry-dead-letters' : 'delete-dead-letters'} --all.` : ''}
      </p>
    </ConfirmPage>
  );
}
