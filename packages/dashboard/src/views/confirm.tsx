// The confirmation step of each destructive action: a GET page whose form posts the action.
import type { ConsumerInfo, ConsumerList, DeadLetterFilter, DeadLetterRecord, QueueResource, StreamResource } from '@respire/admin';
import type { Child } from 'hono/jsx';
import { count, duration, serverTime } from '../format.js';
import { ref } from '../refs.js';
import { ActionForm, deadLetterCrumbs, groupCrumbs, queueCrumbs } from './components.js';
import { MAX_CONSUMERS } from './group.js';
import { href, Layout, type Crumb, type PageContext } from './layout.js';
import { Name } from './name.js';

export function ConfirmPage({
  ctx,
  title,
  crumbs,
  action,
  fields,
  danger,
  children,
  cancelHref,
  submitLabel,
  formExtra,
}: {
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
            <button type="submit" class={danger ? 'button danger' : 'button primary'}>
              {submitLabel}
            </button>
          </ActionForm>
          <a class="button secondary" href={cancelHref}>
            Cancel
          </a>
        </div>
      </section>
    </Layout>
  );
}

type Owner = QueueResource | StreamResource;

export function ConfirmDeletePage({ ctx, resource, record }: { ctx: PageContext; resource: Owner; record: DeadLetterRecord }) {
  return (
    <ConfirmPage
      ctx={ctx}
      title="Delete this dead letter?"
      crumbs={[...deadLetterCrumbs(ctx, resource), { label: 'Delete' }]}
      action="delete"
      fields={{ id: resource.id, record: record.id }}
      danger
      submitLabel="Delete dead letter"
      cancelHref={href(ctx, '/dead-letters', ref('id', resource.id))}
    >
      <p>
        Dead letter <code>{record.id}</code>
        {record.kind !== 'foreign' ? (
          <>
            {' '}
            of source entry <code>{record.sourceId}</code>
          </>
        ) : null}{' '}
        will be removed from the dead-letter stream. Its payload is gone for good.
      </p>
    </ConfirmPage>
  );
}

/** A dead-letter filter in words. */
export function FilterWords({ filter }: { filter: DeadLetterFilter }) {
  const parts: Child[] = [];
  if (filter.reason !== undefined)
    parts.push(
      <>
        reason <Name value={filter.reason} />
      </>,
    );
  if (filter.group !== undefined)
    parts.push(
      <>
        group <Name value={filter.group} />
      </>,
    );
  if (filter.exceptionType !== undefined)
    parts.push(
      <>
        exception type <Name value={filter.exceptionType} />
      </>,
    );
  if (filter.sourceId !== undefined)
    parts.push(
      <>
        source entry <code>{filter.sourceId}</code>
      </>,
    );
  if (filter.sinceMs !== undefined) parts.push(<>dead-lettered at or after {serverTime(filter.sinceMs)}</>);
  if (filter.untilMs !== undefined) parts.push(<>dead-lettered at or before {serverTime(filter.untilMs)}</>);
  if (parts.length === 0) return <>every record</>;
  return (
    <>
      records with{' '}
      {parts.map((p, i) => (
        <>
          {i > 0 ? ', ' : ''}
          {p}
        </>
      ))}
    </>
  );
}

/**
 * The step before a bulk job: retry or delete every dead letter (or those matching a filter) present
 * now, or the selected ones. The job runs in the background; its page shows progress and can cancel it.
 */
export function ConfirmJobPage({
  ctx,
  resource,
  action,
  filter,
  recordIds,
  total,
  filterFields,
}: {
  ctx: PageContext;
  resource: Owner;
  action: 'retry' | 'delete';
  filter: DeadLetterFilter | undefined;
  recordIds: readonly string[] | undefined;
  /** Dead letters in the stream now. */
  total: number;
  /** The filter as form fields. */
  filterFields: Readonly<Record<string, string>>;
}) {
  const retry = action === 'retry';
  const what = recordIds
    ? `${count(recordIds.length)} selected dead letter${recordIds.length === 1 ? '' : 's'}`
    : filter
      ? 'every matching dead letter'
      : `every dead letter (${count(total)} now)`;
  return (
    <ConfirmPage
      ctx={ctx}
      title={retry ? 'Retry dead letters?' : 'Delete dead letters?'}
      crumbs={[...deadLetterCrumbs(ctx, resource), { label: retry ? 'Retry' : 'Delete' }]}
      action="job"
      fields={{ id: resource.id, action, ...(recordIds ? { records: recordIds.join(',') } : filterFields) }}
      danger={!retry}
      submitLabel={`${retry ? 'Retry' : 'Delete'} ${what}`}
      cancelHref={href(ctx, '/dead-letters', ref('id', resource.id))}
    >
      <p>
        {retry ? 'Retry' : 'Delete'} {what}
        {filter && !recordIds ? (
          <>
            : <FilterWords filter={filter} />, among the {count(total)} records present now
          </>
        ) : null}
        . {retry ? 'Each one is put back where it came from and removed from the dead-letter stream.' : 'Each one is removed for good.'}
      </p>
      <p>
        It runs as a job in the background, oldest first, in pages: its page shows the progress and can cancel it, and every dashboard on this Redis server sees
        it. Dead letters that arrive after it starts are not touched.
      </p>
    </ConfirmPage>
  );
}

export interface AckProps {
  ctx: PageContext;
  stream: StreamResource;
  group: string;
  entry: string;
  deliveryCount: number;
  consumer: string;
}

export function ConfirmAckPage({ ctx, stream, group, entry, deliveryCount, consumer }: AckProps) {
  return (
    <ConfirmPage
      ctx={ctx}
      title="Acknowledge this pending entry?"
      crumbs={[...groupCrumbs(ctx, stream, group), { label: 'Acknowledge' }]}
      action="ack"
      fields={{ id: stream.id, group, entry, deliveryCount, consumer }}
      danger
      submitLabel="Acknowledge entry"
      cancelHref={href(ctx, '/group', { ...ref('id', stream.id), ...ref('group', group) })}
      formExtra={
        <p class="check">
          <input type="checkbox" id="delete-entry" name="deleteEntry" value="1" />
          <label for="delete-entry">Also delete the entry from the stream (kept while another group still needs it)</label>
        </p>
      }
    >
      <p>
        Entry <code>{entry}</code>, owned by {consumer === '' ? <span class="muted">(no owner)</span> : <Name value={consumer} />} after {count(deliveryCount)}{' '}
        deliveries, leaves group <Name value={group} />
        's pending list without being processed. If its owner or delivery count changed since then, nothing is done.
      </p>
    </ConfirmPage>
  );
}

/** Names of consumers (at most {@link MAX_CONSUMERS}: the admin API declines larger groups). */
const ConsumerNames = ({ consumers, note }: { consumers: readonly ConsumerInfo[]; note: (c: ConsumerInfo) => string }) => (
  <ul class="names">
    {consumers.map((x) => (
      <li>
        <Name value={x.name} /> <span class="muted small">{note(x)}</span>
      </li>
    ))}
  </ul>
);

export function ConfirmIdleConsumersPage({
  ctx,
  stream,
  group,
  minIdleMs,
  consumers,
}: {
  ctx: PageContext;
  stream: StreamResource;
  group: string;
  minIdleMs: number;
  consumers: ConsumerList;
}) {
  const idle = consumers.items.filter((x) => x.idleMs >= minIdleMs);
  const removable = idle.filter((x) => x.pending === 0);
  const kept = idle.filter((x) => x.pending > 0);
  return (
    <ConfirmPage
      ctx={ctx}
      title="Remove idle consumers?"
      crumbs={[...groupCrumbs(ctx, stream, group), { label: 'Remove idle consumers' }]}
      action="remove-idle-consumers"
      fields={{ id: stream.id, group, minIdleMs }}
      danger
      submitLabel={consumers.truncated ? 'Remove idle consumers' : `Remove idle consumers (${count(removable.length)} now)`}
      cancelHref={href(ctx, '/group', { ...ref('id', stream.id), ...ref('group', group) })}
    >
      <p>
        Consumers of group <Name value={group} /> idle for at least {duration(minIdleMs)} with no pending entries are removed; the check and the removal are one
        atomic step, so a consumer that receives an entry in between is kept. Consumers holding pending entries are never removed.
      </p>
      {consumers.truncated ? (
        <p class="notice warn">
          This group has {count(consumers.total)} consumers, more than {count(MAX_CONSUMERS)}: too many to preview here. The removal checks each of them on the
          server.
        </p>
      ) : (
        <>
          <h2>Would be removed now ({count(removable.length)})</h2>
          {removable.length === 0 ? <p class="empty">None.</p> : <ConsumerNames consumers={removable} note={(x) => `idle ${duration(x.idleMs)}`} />}
          {kept.length > 0 ? (
            <>
              <h2>Idle but kept: they hold pending entries ({count(kept.length)})</h2>
              <ConsumerNames consumers={kept} note={(x) => `${count(x.pending)} pending`} />
            </>
          ) : null}
        </>
      )}
    </ConfirmPage>
  );
}

export function ConfirmDeleteMessagePage({
  ctx,
  queue,
  entry,
  deliveryCount,
  untilMs,
}: {
  ctx: PageContext;
  queue: QueueResource;
  entry: string;
  deliveryCount: number;
  untilMs: number;
}) {
  return (
    <ConfirmPage
      ctx={ctx}
      title="Delete this message?"
      crumbs={[...queueCrumbs(ctx, queue), { label: entry, href: href(ctx, '/message', { ...ref('id', queue.id), entry }) }, { label: 'Delete' }]}
      action="delete-message"
      fields={{ id: queue.id, entry, deliveryCount, untilMs }}
      danger
      submitLabel="Delete message"
      cancelHref={href(ctx, '/message', { ...ref('id', queue.id), entry })}
    >
      <p>
        Message <code>{entry}</code> (
        {deliveryCount === 0 ? 'a delayed send, not yet delivered' : `delivered ${count(deliveryCount)} time${deliveryCount === 1 ? '' : 's'}`}) is acknowledged
        for good, as an ACK does: removed from the queue and never delivered again. Its holder's own ACK will return false. If it was delivered again or
        completed since the page was rendered, nothing is done.
      </p>
    </ConfirmPage>
  );
}
