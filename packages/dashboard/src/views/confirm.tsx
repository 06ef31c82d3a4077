// The confirmation step of each destructive action.
import type { ConsumerInfo, ConsumerList, DeadLetterRecord, QueueResource, StreamResource } from '@respire/admin';
import type { Child } from 'hono/jsx';
import { count, duration, shown } from '../format.js';
import { ActionForm, deadLetterCrumbs, groupCrumbs } from './components.js';
import { MAX_CONSUMERS } from './group.js';
import { href, Layout, type Crumb, type PageContext } from './layout.js';

/** The confirmation step of each destructive action: a GET page whose form posts the action. */

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
      cancelHref={href(ctx, '/dead-letters', { id: resource.id })}
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

export function ConfirmBulkPage({
  ctx,
  resource,
  bulk,
  total,
  bulkLimit,
}: {
  ctx: PageContext;
  resource: Owner;
  bulk: 'retry-all' | 'delete-all';
  total: number;
  bulkLimit: number;
}) {
  const retry = bulk === 'retry-all';
  const n = count(Math.min(total, bulkLimit));
  return (
    <ConfirmPage
      ctx={ctx}
      title={retry ? 'Retry every dead letter?' : 'Delete every dead letter?'}
      crumbs={[...deadLetterCrumbs(ctx, resource), { label: retry ? 'Retry all' : 'Delete all' }]}
      action={bulk}
      fields={{ id: resource.id }}
      danger={!retry}
      submitLabel={retry ? `Retry ${n} dead letters` : `Delete ${n} dead letters`}
      cancelHref={href(ctx, '/dead-letters', { id: resource.id })}
    >
      <p>
        {count(total)} dead letters are in this stream now.{' '}
        {retry ? 'Each one is put back where it came from and removed from the dead-letter stream.' : 'Each one is removed for good.'} One request handles at
        most {count(bulkLimit)}, in pages; the result says how many remain.
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
      cancelHref={href(ctx, '/group', { id: stream.id, group })}
      formExtra={
        <p class="check">
          <input type="checkbox" id="delete-entry" name="deleteEntry" value="1" />
          <label for="delete-entry">Also delete the entry from the stream</label>
        </p>
      }
    >
      <p>
        Entry <code>{entry}</code>, owned by <span class="name">{shown(consumer)}</span> after {count(deliveryCount)} deliveries, leaves group{' '}
        <span class="name">{shown(group)}</span>'s pending list without being processed. If its owner or delivery count changed since then, nothing is done.
      </p>
    </ConfirmPage>
  );
}

/** Names of consumers (at most {@link MAX_CONSUMERS}: the admin API declines larger groups). */
const ConsumerNames = ({ consumers, note }: { consumers: readonly ConsumerInfo[]; note: (c: ConsumerInfo) => string }) => (
  <ul class="names">
    {consumers.map((x) => (
      <li>
        {shown(x.name)} <span class="muted small">{note(x)}</span>
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
      cancelHref={href(ctx, '/group', { id: stream.id, group })}
    >
      <p>
        Consumers of group <span class="name">{shown(group)}</span> idle for at least {duration(minIdleMs)} with no pending entries are removed; the check and
        the removal are one atomic step, so a consumer that receives an entry in between is kept. Consumers holding pending entries are never removed.
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
