// Small shared pieces of the pages: tables, pagers, forms, crumbs.
import type { QueueResource, StreamResource } from '@respire/admin';
import type { Child } from 'hono/jsx';
import { maybeCount } from '../format.js';
import { href, type Crumb, type PageContext } from './layout.js';

/** Small shared pieces of the pages: tables, pagers, forms, crumbs. */

export const isOperator = (ctx: PageContext) => ctx.principal.role === 'operator';

/** A count cell that draws the eye when it is not zero. */
export function Count({ value, alert }: { value: number | null; alert?: 'warn' | 'danger' }) {
  const cls = value === null ? 'num unknown' : alert && value > 0 ? `num ${alert}` : 'num';
  return <td class={cls}>{maybeCount(value)}</td>;
}

/** A column heading; `num` right-aligns it (counts). */
export type Column = string | { readonly label: string; readonly num: true };
export const num = (label: string): Column => ({ label, num: true });

/** A scrollable table with column headings; the children are its `<tbody>` elements. */
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

/** Previous/next links for a cursor-paged table. */
export function Pager({ first, next, label }: { first?: string | undefined; next?: string | undefined; label: string }) {
  if (!first && !next) return null;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      {first ? <a href={first}>First page</a> : null}
      {next ? (
        <a href={next} rel="next">
          Next page
        </a>
      ) : (
        <span class="muted">Last page</span>
      )}
    </nav>
  );
}

/** A POST form carrying the CSRF token. */
export function ActionForm({
  ctx,
  action,
  fields,
  children,
  class: className,
}: {
  ctx: PageContext;
  action: string;
  fields: Readonly<Record<string, string | number>>;
  class?: string;
  children?: Child;
}) {
  return (
    <form method="post" action={`${ctx.base}/actions/${action}`} class={className ?? 'inline'}>
      <input type="hidden" name="_csrf" value={ctx.csrfToken} />
      {Object.entries(fields).map(([name, value]) => (
        <input type="hidden" name={name} value={String(value)} />
      ))}
      {children}
    </form>
  );
}

export function queueCrumbs(ctx: PageContext, queue: QueueResource): Crumb[] {
  return [{ label: `Queue ${queue.name}`, href: href(ctx, '/queue', { id: queue.id }) }];
}

export function streamCrumbs(ctx: PageContext, stream: StreamResource): Crumb[] {
  return [{ label: `Stream ${stream.label}`, href: href(ctx, '/stream', { id: stream.id }) }];
}

export function resourceCrumbs(ctx: PageContext, resource: QueueResource | StreamResource): Crumb[] {
  return resource.kind === 'queue' ? queueCrumbs(ctx, resource) : streamCrumbs(ctx, resource);
}

/** Crumbs of a consumer group's page. */
export function groupCrumbs(ctx: PageContext, stream: StreamResource, group: string): Crumb[] {
  return [...streamCrumbs(ctx, stream), { label: `Group ${group}`, href: href(ctx, '/group', { id: stream.id, group }) }];
}

/** Crumbs of a resource's dead-letter list. */
export function deadLetterCrumbs(ctx: PageContext, resource: QueueResource | StreamResource): Crumb[] {
  return [...resourceCrumbs(ctx, resource), { label: 'Dead letters', href: href(ctx, '/dead-letters', { id: resource.id }) }];
}
