// The dead letters of a queue or a worker stream (searchable, paged, selectable for a job), and one dead letter.
import type { DeadLetterFilter, DeadLetterRecord, QueueResource, StreamResource } from '@respire/admin';
import { count, entryTime, serverTime } from '../format.js';
import { ref } from '../refs.js';
import { ActionForm, deadLetterCrumbs, FindBox, isOperator, num, Pager, resourceCrumbs, Table, type Paging } from './components.js';
import { FilterWords } from './confirm.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Name } from './name.js';
import { Fields, recordPreview, Rendered } from './payload.js';
import { renderBytes } from '../payload.js';

type Owner = QueueResource | StreamResource;

/** Queue records go back to their queue, worker records to their stream; foreign records stay. */
const retryable = (resource: Owner, record: DeadLetterRecord) => record.kind === 'queue' || (record.kind === 'worker' && resource.kind === 'stream');

export interface DeadLettersProps {
  ctx: PageContext;
  resource: Owner;
  total: number;
  records: readonly DeadLetterRecord[];
  order: 'newest' | 'oldest';
  paging: Paging;
  /** The search, if any, as the admin API's filter and as the page's query parameters. */
  filter: DeadLetterFilter | undefined;
  filterParams: Readonly<Record<string, string>>;
  /** With a filter: records read for this page, and whether the search reached its scan limit. */
  search: { readonly scanned: number; readonly complete: boolean } | undefined;
  notice?: Notice;
}

export function DeadLettersPage(p: DeadLettersProps) {
  const { ctx, resource } = p;
  const id = ref('id', resource.id);
  const operator = isOperator(ctx);
  return (
    <Layout ctx={ctx} title="Dead letters" crumbs={[...resourceCrumbs(ctx, resource), { label: 'Dead letters' }]} notice={p.notice}>
      <div class="toolbar">
        <p>
          <strong>{count(p.total)}</strong> dead letters, {p.order} first.{' '}
          <a href={href(ctx, '/dead-letters', { ...id, ...p.filterParams, order: p.order === 'newest' ? 'oldest' : undefined })}>
            Show {p.order === 'newest' ? 'oldest' : 'newest'} first
          </a>
        </p>
        {operator && p.total > 0 ? (
          <div class="bulk">
            <a class="button secondary" href={href(ctx, '/confirm/job', { ...id, ...p.filterParams, action: 'retry' })}>
              {p.filter ? 'Retry all matching…' : 'Retry all…'}
            </a>
            <a class="button danger" href={href(ctx, '/confirm/job', { ...id, ...p.filterParams, action: 'delete' })}>
              {p.filter ? 'Delete all matching…' : 'Delete all…'}
            </a>
            <a href={href(ctx, '/jobs', id)}>Jobs</a>
          </div>
        ) : null}
      </div>
      <FindBox ctx={ctx} resource={resource} />
      <SearchForm {...p} />
      {p.search ? (
        <p class="muted small search-state" role="status">
          Showing <FilterWords filter={p.filter!} />: searched {count(p.search.scanned)} records for this page
          {p.search.complete ? '.' : '; the search stopped at its limit: Next continues it.'}
        </p>
      ) : null}
      {p.records.length === 0 ? (
        <p class="empty">{p.filter ? 'No matching dead letters on this page.' : `No dead letters${p.paging.first ? ' on this page' : ''}.`}</p>
      ) : (
        <>
          {operator ? (
            <form method="post" action={`${ctx.base}/confirm/job`} id="selection" class="bulk selection">
              <input type="hidden" name="_csrf" value={ctx.csrfToken} />
              <input type="hidden" name="id" value={resource.id} />
              <span class="muted small">With the selected records:</span>
              <button type="submit" name="action" value="retry" class="button secondary small">
                Retry selected…
              </button>
              <button type="submit" name="action" value="delete" class="button danger small">
                Delete selected…
              </button>
            </form>
          ) : null}
          <Table class="dead-letters" columns={[...(operator ? [''] : []), 'Record', 'Source entry', 'Why', num('Deliveries'), 'Payload', 'Actions']}>
            <tbody>
              {p.records.map((r) => (
                <DeadLetterRow ctx={ctx} resource={resource} record={r} />
              ))}
            </tbody>
          </Table>
        </>
      )}
      <Pager label="Dead letters" paging={p.paging} />
    </Layout>
  );
}

/** The search form: reason, group, exception type, source entry, time range (UTC). */
function SearchForm({ ctx, resource, filter, order }: DeadLettersProps) {
  const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString().slice(0, 16));
  return (
    <details class="search" open={filter !== undefined}>
      <summary>Search dead letters</summary>
      <form method="get" action={`${ctx.base}/dead-letters`} class="search-form">
        {Object.entries(ref('id', resource.id)).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        {order === 'oldest' ? <input type="hidden" name="order" value="oldest" /> : null}
        <label>
          Reason
          <select name="reason">
            {['', 'explicit', 'nack', 'processing-failed', 'delivery-limit'].map((r) => (
              <option value={r} selected={(filter?.reason ?? '') === r}>
                {r === '' ? 'any' : r}
              </option>
            ))}
          </select>
        </label>
        {resource.kind === 'stream' ? (
          <>
            <label>
              Group <input name="group" value={filter?.group ?? ''} maxlength={65536} />
            </label>
            <label>
              Exception type <input name="exceptionType" value={filter?.exceptionType ?? ''} maxlength={256} />
            </label>
          </>
        ) : null}
        <label>
          Source entry <input name="sourceId" value={filter?.sourceId ?? ''} pattern="\d{1,20}-\d{1,20}" maxlength={41} />
        </label>
        <label>
          From (UTC) <input name="since" type="datetime-local" value={iso(filter?.sinceMs)} />
        </label>
        <label>
          To (UTC) <input name="until" type="datetime-local" value={iso(filter?.untilMs)} />
        </label>
        <button type="submit" class="button secondary">
          Search
        </button>
        {filter ? <a href={href(ctx, '/dead-letters', ref('id', resource.id))}>Clear</a> : null}
      </form>
    </details>
  );
}

/** A link that filters the list by one value (a reason, a group, an exception type). */
const filterLink = (ctx: PageContext, resource: Owner, name: string, value: string) => href(ctx, '/dead-letters', { ...ref('id', resource.id), [name]: value });

function DeadLetterRow({ ctx, resource, record: r }: { ctx: PageContext; resource: Owner; record: DeadLetterRecord }) {
  const id = ref('id', resource.id);
  return (
    <tr>
      {isOperator(ctx) ? (
        <td class="select">
          <input type="checkbox" form="selection" name="record" value={r.id} aria-label={`Select dead letter ${r.id}`} />
        </td>
      ) : null}
      <th scope="row">
        <a href={href(ctx, '/dead-letter', { ...id, record: r.id })}>
          <code>{r.id}</code>
        </a>
        <div class="muted small">{serverTime(entryTime(r.id))}</div>
      </th>
      <td>{r.kind === 'foreign' ? <span class="muted">unknown</span> : <code>{r.sourceId}</code>}</td>
      <td>
        {r.kind === 'worker' ? (
          <>
            <a class={`reason reason-${r.reason.replace(/[^a-z-]/g, '')}`} href={filterLink(ctx, resource, 'reason', r.reason)} title="Show only this reason">
              <Name value={r.reason} max={32} full={false} />
            </a>
            {r.exceptionType ? (
              <div class="small">
                <a href={filterLink(ctx, resource, 'exceptionType', r.exceptionType)} title="Show only this exception type">
                  <code>
                    <Name value={r.exceptionType} max={60} full={false} />
                  </code>
                </a>
              </div>
            ) : null}
            <div class="muted small">
              group{' '}
              <a href={filterLink(ctx, resource, 'group', r.group)} title="Show only this group">
                <Name value={r.group} max={40} full={false} />
              </a>
            </div>
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
        <a href={href(ctx, '/dead-letter', { ...id, record: r.id })} aria-label={`View dead letter ${r.id}`}>
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
      <a class={`button danger${size}`} href={href(ctx, '/confirm/delete', { ...ref('id', resource.id), record: record.id })} aria-label={label('Delete')}>
        Delete…
      </a>
    </>
  );
}

export function DeadLetterPage({ ctx, resource, record }: { ctx: PageContext; resource: Owner; record: DeadLetterRecord }) {
  const id = ref('id', resource.id);
  const download = (field?: number) => href(ctx, '/download', { ...id, record: record.id, field });
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
            <dd>
              <Name value={record.group} />
            </dd>
            <dt>Attempt</dt>
            <dd>{count(record.attempt)}</dd>
            <dt>Reason</dt>
            <dd>
              <Name value={record.reason} />
            </dd>
            <dt>Exception type</dt>
            <dd>
              {record.exceptionType ? (
                <code>
                  <Name value={record.exceptionType} />
                </code>
              ) : (
                <span class="muted">none</span>
              )}
            </dd>
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
          <Rendered rendered={renderBytes(record.payload)} label="Payload" download={download()} />
        </>
      ) : (
        <>
          <h2>{record.kind === 'worker' ? 'Original fields' : 'Fields'}</h2>
          <Fields fields={record.fields} download={(i) => download(i)} />
        </>
      )}
      <FindBox ctx={ctx} resource={resource} />
    </Layout>
  );
}
