// The overview route: every visible resource with totals across all of them, searchable by name, each list paged.
import type { Hono } from 'hono';
import type { QueueStatus, Resource, StreamStatus } from '@respire/admin';
import { HttpError, type Ctx, type Env } from '../http.js';
import type { Settings } from '../options.js';
import { visible } from '../resources.js';
import { ctxOf } from '../respond.js';
import { href, type PageContext } from '../views/layout.js';
import { OverviewPage, type Slice, type Totals } from '../views/overview.js';

export function overviewRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/', async (c) => {
    const ctx = ctxOf(s, c);
    const search = searchOf(c);
    const principal = c.get('principal');
    // The search and the guard decide first, for every resource at once (a slow guard costs its
    // latency once): only what this principal sees is read. A hidden resource stays hidden when
    // its status could not be read, too.
    const shown = new Set<string>();
    let asked = 0;
    const overview = await s.admin.overview({
      include: async (r) => {
        asked++;
        const keep = matches(r, search) && (await visible(s, principal, r));
        if (keep) shown.add(r.id);
        return keep;
      },
    });
    // An admin API that ignores `include` (another implementation) still shows only what this principal may see.
    const only = async <T extends { readonly resource: Resource }>(all: readonly T[]) => {
      const keep =
        asked > 0
          ? all.map((x) => shown.has(x.resource.id))
          : await Promise.all(all.map(async (x) => matches(x.resource, search) && (await visible(s, principal, x.resource))));
      return all.filter((_, i) => keep[i]);
    };
    const [queues, streams, unavailable] = await Promise.all([only(overview.queues), only(overview.streams), only(overview.unavailable)]);
    const queuePage = slice(s, c, ctx, 'qpage', queues.length);
    const streamPage = slice(s, c, ctx, 'spage', streams.length);
    const unavailablePage = slice(s, c, ctx, 'upage', unavailable.length);
    return c.html(
      <OverviewPage
        ctx={ctx}
        serverTimeMs={overview.serverTimeMs}
        queues={queues.slice(queuePage.from, queuePage.from + s.pageSize)}
        streams={streams.slice(streamPage.from, streamPage.from + s.pageSize)}
        unavailable={unavailable.slice(unavailablePage.from, unavailablePage.from + s.pageSize)}
        discoveryTruncated={overview.discoveryTruncated}
        queuePage={queuePage}
        streamPage={streamPage}
        unavailablePage={unavailablePage}
        totals={totalsOf(queues, streams, unavailable.length)}
        search={search}
      />,
    );
  });
}

/** The name search (`q`), trimmed; at most 1,024 characters. */
function searchOf(c: Ctx): string | undefined {
  const q = (c.req.query('q') ?? '').trim();
  if (q.length > 1024) throw new HttpError(400, 'Invalid q.');
  return q === '' ? undefined : q;
}

/** Whether a resource's names hold the search (case-insensitive). */
function matches(r: Resource, search: string | undefined): boolean {
  if (search === undefined) return true;
  const needle = search.toLowerCase();
  const names = r.kind === 'queue' ? [r.name, `${r.keyPrefix}${r.name}`, r.id] : [r.label, r.stream];
  return names.some((n) => n.toLowerCase().includes(needle));
}

/** Totals across every resource shown (all pages), never the rows of one page. */
function totalsOf(queues: readonly QueueStatus[], streams: readonly StreamStatus[], unavailable: number): Totals {
  let deadLetters = 0;
  let pending = 0;
  let due = 0;
  let inFlight = 0;
  let ready = 0;
  let readyUnknown = 0;
  for (const q of queues) {
    deadLetters += q.deadLetters;
    due += q.due;
    inFlight += q.inFlight;
    if (q.ready === null) readyUnknown++;
    else ready += q.ready;
  }
  for (const st of streams) {
    deadLetters += st.deadLetters ?? 0;
    for (const g of st.groups) pending += g.pending;
  }
  return { deadLetters, pending, due, inFlight, ready, readyUnknown, queues: queues.length, streams: streams.length, unavailable };
}

/** The overview's three slices, each paged by its own parameter. */
const SLICES = ['qpage', 'spage', 'upage'] as const;

/** The overview's slice `?qpage=` / `?spage=` / `?upage=` (page numbers, clamped to the last page), with first / previous / next / last. */
function slice(s: Settings, c: Ctx, ctx: PageContext, name: (typeof SLICES)[number], total: number): Slice {
  const pages = Math.max(1, Math.ceil(total / s.pageSize));
  const n = Math.min(Math.max(0, Math.floor(Number(c.req.query(name) ?? 0)) || 0), pages - 1);
  const keep: Record<string, string | undefined> = { refresh: c.req.query('refresh'), q: c.req.query('q') };
  for (const other of SLICES) if (other !== name) keep[other] = c.req.query(other);
  const at = (page: number) => href(ctx, '/', { ...keep, [name]: page === 0 ? undefined : page });
  return {
    from: n * s.pageSize,
    total,
    first: n > 0 ? at(0) : undefined,
    previous: n > 0 ? at(n - 1) : undefined,
    next: n < pages - 1 ? at(n + 1) : undefined,
    last: n < pages - 1 ? at(pages - 1) : undefined,
  };
}
