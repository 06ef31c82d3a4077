// Small shared pieces of the pages: tables, pagers, forms, crumbs, find boxes.
import type { QueueResource, Resource, StreamResource } from '@respire/admin';
import type { Child } from 'hono/jsx';
import { maybeCount } from '../format.js';
import { ref } from '../refs.js';
import { href, type Crumb, type PageContext } from './layout.js';

export const isOperator = (ctx: PageContext) => ctx.principal.role === 'operator';

/** A count cell that draws the eye when it is not zero. */
export function Count({ value, alert }: { value: number | null; alert?: 'warn' | 'danger' }) {
  const cls = value === null ? 'num unknown' : alert && value > 0 ? `num ${alert}` : 'num';
  return <td class={cls}>{maybeCount(value)}</td>;
}

/** A column heading; `num` right-aligns it (counts). */
export type Column = string | { readonly label: string; readonly num: true };
export const num = (label: string): Column => ({ label, num: true });

/** A table with column headings that wraps long cells (it never scrolls sideways); the children are its `<tbody>` elements. */
export function Table({ columns, caption, class: className, children }: { columns: readonly Column[]; caption?: Child; class?: string; children?: Child }) {
  return (
    <div class="table-wrap">
      <table class={className}>
        {caption !== undefined ? <caption class="visually-hidden">{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th scope="col">{column}</th>
              ) : (
                <th scope="col" class="num">
                  {column.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        {children}
      </table>
    </div>
  );
}

/** The four links of a paged list: first, previous, next, last (each present only when it leads somewhere). */
export interface Paging {
  readonly first?: string | undefined;
  readonly previous?: string | undefined;
  readonly next?: string | undefined;
  readonly last?: string | undefined;
}

/** First / previous / next / last links of a paged table. */
export function Pager({ paging, label }: { paging: Paging; label: string }) {
  const { first, previous, next, last } = paging;
  if (!first && !previous && !next && !last) return null;
  const link = (to: string | undefined, text: string, rel?: string) =>
    to ? (
      <a href={to} rel={rel}>
        {text}
      </a>
    ) : (
      <span class="muted">{text}</span>
    );
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      {link(first, 'First')}
      {link(previous, 'Previous', 'prev')}
      {link(next, 'Next', 'next')}
      {link(last, 'Last')}
    </nav>
  );
}

/**
 * The four links of a cursor-paged list: `keep` are the page's other parameters; `page` the
 * admin API's page (its `next` and `previous` cursors); `at` whether this is the first or last
 * (by default: the page has no previous cursor, no next cursor).
 */
export function cursorPaging(
  ctx: PageContext,
  path: string,
  keep: Readonly<Record<string, string | number | undefined>>,
  page: { readonly next: string | undefined; readonly previous?: string | undefined },
  at: { readonly first: boolean; readonly last: boolean } = { first: page.previous === undefined, last: page.next === undefined },
): Paging {
  return {
    first: at.first ? undefined : href(ctx, path, keep),
    previous: page.previous ? href(ctx, path, { ...keep, before: page.previous }) : undefined,
    next: page.next ? href(ctx, path, { ...keep, cursor: page.next }) : undefined,
    last: at.last ? undefined : href(ctx, path, { ...keep, last: '1' }),
  };
}

/** A POST form carrying the CSRF token. */
export function ActionForm({
  ctx,
  action,
  fields,
  children,
  class: className,
  id,
}: {
  ctx: PageContext;
  action: string;
  fields: Readonly<Record<string, string | number>>;
  class?: string;
  id?: string;
  children?: Child;
}) {
  return (
    <form method="post" action={`${ctx.base}/actions/${action}`} class={className ?? 'inline'} id={id}>
      <input type="hidden" name="_csrf" value={ctx.csrfToken} />
      {Object.entries(fields).map(([name, value]) => (
        <input type="hidden" name={name} value={String(value)} />
      ))}
      {children}
    </form>
  );
}

/** The find box of a resource: an entry ID, a record ID, a source ID or (queues) a deduplication ID. */
export function FindBox({ ctx, resource, value = '' }: { ctx: PageContext; resource: Resource; value?: string }) {
  return (
    <form method="get" action={`${ctx.base}/find`} class="row-form find" role="search">
      {Object.entries(ref('id', resource.id)).map(([name, v]) => (
        <input type="hidden" name={name} value={v} />
      ))}
      <label for="find-query">Find</label>
      <input
        id="find-query"
        name="q"
        value={value}
        required
        maxlength={65536}
        placeholder={resource.kind === 'queue' ? 'entry ID, record ID, source ID or deduplication ID' : 'entry ID, record ID or source ID'}
      />
      <button type="submit" class="button secondary">
        Find
      </button>
    </form>
  );
}

/** The name of a resource for headings and crumbs. */
export const resourceLabel = (r: QueueResource | StreamResource) => (r.kind === 'queue' ? r.name : r.label);

export function queueCrumbs(ctx: PageContext, queue: QueueResource): Crumb[] {
  return [{ kind: 'Queue', label: queue.name, href: href(ctx, '/queue', ref('id', queue.id)) }];
}

export function streamCrumbs(ctx: PageContext, stream: StreamResource): Crumb[] {
  return [{ kind: 'Stream', label: stream.label, href: href(ctx, '/stream', ref('id', stream.id)) }];
}

export function resourceCrumbs(ctx: PageContext, resource: QueueResource | StreamResource): Crumb[] {
  return resource.kind === 'queue' ? queueCrumbs(ctx, resource) : streamCrumbs(ctx, resource);
}

/** Crumbs of a consumer group's page. */
export function groupCrumbs(ctx: PageContext, stream: StreamResource, group: string): Crumb[] {
  return [...streamCrumbs(ctx, stream), { kind: 'Group', label: group, href: href(ctx, '/group', { ...ref('id', stream.id), ...ref('group', group) }) }];
}

/** Crumbs of a resource's dead-letter list. */
export function deadLetterCrumbs(ctx: PageContext, resource: QueueResource | StreamResource): Crumb[] {
  return [...resourceCrumbs(ctx, resource), { label: 'Dead letters', href: href(ctx, '/dead-letters', ref('id', resource.id)) }];
}
