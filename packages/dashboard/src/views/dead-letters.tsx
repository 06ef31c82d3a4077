// The dead-letter list of a queue or stream, and one dead letter.
import type { DeadLetterRecord, QueueResource, StreamResource } from '@respire/admin';
import { count, entryTime, serverTime, shown } from '../format.js';
import { renderBytes } from '../payload.js';
import { ActionForm, deadLetterCrumbs, isOperator, num, Pager, resourceCrumbs, Table } from './components.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Fields, recordPreview, Rendered } from './payload.js';

/** The dead letters of a queue or a worker stream, and one dead letter. */

type Owner = QueueResource | StreamResource;

/** Queue records go back to their queue, worker records to their stream; foreign records stay. */
const retryable = (resource: Owner, record: DeadLetterRecord) => record.kind === 'queue' || (record.kind === 'worker' && resource.kind === 'stream');

export interface DeadLettersProps {
  ctx: PageContext;
  resource: Owner;
  total: number;
  records: readonly DeadLetterRecord[];
  order: 'newest' | 'oldest';
  pager: { first?: string | undefined; next?: string | undefined };
  notice?: Notice;
}

export function DeadLettersPage(p: DeadLettersProps) {
  const { ctx, resource } = p;
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
            <a class="button secondary" href={href(ctx, '/confirm/retry-all', { id: resource.id })}>
              Retry all…
            </a>
            <a class="button danger" href={href(ctx, '/confirm/delete-all', { id: resource.id })}>
              Delete all…
            </a>
          </div>
        ) : null}
      </div>
      {p.records.length === 0 ? (
        <p class="empty">No dead letters{p.pager.first ? ' on this page' : ''}.</p>
      ) : (
        <Table class="dead-letters" columns={['Record', 'Source entry', 'Why', num('Deliveries'), 'Payload', 'Actions']}>
          <tbody>
            {p.records.map((r) => (
              <DeadLetterRow ctx={ctx} resource={resource} record={r} />
            ))}
          </tbody>
        </Table>
      )}
      <Pager label="Dead letters" first={p.pager.first} next={p.pager.next} />
    </Layout>
  );
}

function DeadLetterRow({ ctx, resource, record: r }: { ctx: PageContext; resource: Owner; record: DeadLetterRecord }) {
  return (
    <tr>
      <th scope="row">
        <a href={href(ctx, '/dead-letter', { id: resource.id, record: r.id })}>
          <code>{r.id}</code>
        </a>
        <div class="muted small">{serverTime(entryTime(r.id))}</div>
      </th>
      <td>{r.kind === 'foreign' ? <span class="muted">unknown</span> : <code>{r.sourceId}</code>}</td>
      <td>
        {r.kind === 'worker' ? (
          <>
            <span class={`reason reason-${r.reason.replace(/[^a-z-]/g, '')}`}>{shown(r.reason)}</span>
            {r.exceptionType ? (
              <div class="small">
                <code>{shown(r.exceptionType)}</code>
              </div>
            ) : null}
            <div class="muted small">group {shown(r.group)}</div>
          </>
        ) : r.kind === 'queue' ? (
          <span class="reason">delivery limit</span>
        ) : (
          <span class="tag">unrecognised record</span>
        )}
      </td>
      <td class="num">{r.kind === 'worker' ? count(r.attempt) : r.kind === 'queue' ? count(r.deliveryCount) : ''}</td>
      <td class="preview">
        <code>{recordPreview(r)}</code>
      </td>
      <td class="actions">
        <a href={href(ctx, '/dead-letter', { id: resource.id, record: r.id })} aria-label={`View dead letter ${r.id}`}>
          View
        </a>
        <RecordActions ctx={ctx} resource={resource} record={r} small />
      </td>
    </tr>
  );
}

/** Retry (when it can go back) and Delete… of one dead letter, for operators. */
function RecordActions({ ctx, resource, record, small }: { ctx: PageContext; resource: Owner; record: DeadLetterRecord; small?: boolean }) {
  if (!isOperator(ctx)) return null;
  const size = small ? ' small' : '';
  const label = (verb: string) => (small ? `${verb} dead letter ${record.id}` : undefined);
  return (
    <>
      {retryable(resource, record) ? (
        <ActionForm ctx={ctx} action="retry" fields={{ id: resource.id, record: record.id }}>
          <button type="submit" class={`button primary${size}`} aria-label={label('Retry')}>
            Retry
          </button>
        </ActionForm>
      ) : null}
      <a class={`button danger${size}`} href={href(ctx, '/confirm/delete', { id: resource.id, record: record.id })} aria-label={label('Delete')}>
        Delete…
      </a>
    </>
  );
}

export function DeadLetterPage({ ctx, resource, record }: { ctx: PageContext; resource: Owner; record: DeadLetterRecord }) {
  return (
    <Layout ctx={ctx} title={`Dead letter ${record.id}`} crumbs={[...deadLetterCrumbs(ctx, resource), { label: record.id }]}>
      <dl class="facts">
        <dt>Record ID</dt>
        <dd>
          <code>{record.id}</code> ({serverTime(entryTime(record.id))})
        </dd>
        {record.kind === 'worker' ? (
          <>
            <dt>Source entry</dt>
            <dd>
              <code>{record.sourceId}</code>
            </dd>
            <dt>Group</dt>
            <dd>{shown(record.group)}</dd>
            <dt>Attempt</dt>
            <dd>{count(record.attempt)}</dd>
            <dt>Reason</dt>
            <dd>{shown(record.reason)}</dd>
            <dt>Exception type</dt>
            <dd>{record.exceptionType ? <code>{shown(record.exceptionType)}</code> : <span class="muted">none</span>}</dd>
          </>
        ) : record.kind === 'queue' ? (
          <>
            <dt>Source entry</dt>
            <dd>
              <code>{record.sourceId}</code>
            </dd>
            <dt>Delivery count</dt>
            <dd>{count(record.deliveryCount)}</dd>
          </>
        ) : (
          <>
            <dt>Shape</dt>
            <dd>Not a record Respire writes: shown raw, never retried.</dd>
          </>
        )}
      </dl>
      {isOperator(ctx) ? (
        <div class="bulk">
          <RecordActions ctx={ctx} resource={resource} record={record} />
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
