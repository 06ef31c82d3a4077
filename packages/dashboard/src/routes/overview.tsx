// Routes of the overview, queue, stream and leased-message pages.
import type { Hono } from 'hono';
import type { Resource } from '@respire/admin';
import { need, pageCount, param, query, type Ctx, type Env } from '../http.js';
import { noticeOf } from '../notices.js';
import type { Settings } from '../options.js';
import { resolveQueue, resolveStream, visible } from '../resources.js';
import { ctxOf, cursorPager } from '../respond.js';
import { href, type PageContext } from '../views/layout.js';
import { OverviewPage, type Slice } from '../views/overview.js';
import { DeliveriesPage, QueuePage, StreamPage } from '../views/resources.js';

/** The overview, a queue's and a stream's pages, and a queue's leased messages. */
export function overviewRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/', async (c) => {
    const ctx = ctxOf(s, c);
    const overview = await s.admin.overview();
    const principal = c.get('principal');
    // All guard calls at once: a slow guard costs its latency once, not once per resource. A hidden
    // resource stays hidden when its status could not be read, too.
    const only = async <T extends { readonly resource: Resource }>(all: readonly T[]) => {
      const shown = await Promise.all(all.map((x) => visible(s, principal, x.resource)));
      return all.filter((_, i) => shown[i]);
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
      />,
    );
  });

  routes.get('/queue', async (c) => {
    const queue = await resolveQueue(s, c, need(query(c), 'id'));
    const status = await s.admin.queueStatus(queue.id);
    return c.html(<QueuePage ctx={ctxOf(s, c)} status={status} notice={noticeOf(query(c))} />);
  });

  routes.get('/stream', async (c) => {
    const stream = await resolveStream(s, c, need(query(c), 'id'));
    const status = await s.admin.streamStatus(stream.id);
    return c.html(<StreamPage ctx={ctxOf(s, c)} status={status} />);
  });

  routes.get('/deliveries', async (c) => {
    const q = query(c);
    const queue = await resolveQueue(s, c, need(q, 'id'));
    const cursor = param(q, 'cursor', { optional: true });
    const page = await s.admin.queueDeliveries(queue.id, { count: pageCount(c, s.pageSize), ...(cursor ? { cursor } : {}) });
    const ctx = ctxOf(s, c);
    const pager = cursorPager(ctx, '/deliveries', { id: queue.id, refresh: q['refresh'] }, cursor, page.next);
    return c.html(<DeliveriesPage ctx={ctx} queue={queue} items={page.items} serverTimeMs={page.serverTimeMs} pager={pager} />);
  });
}

/** The overview's three slices, each paged by its own parameter. */
const SLICES = ['qpage', 'spage', 'upage'] as const;

/** The overview's slice `?qpage=` / `?spage=` / `?upage=` (page numbers, clamped to the last page). */
function slice(s: Settings, c: Ctx, ctx: PageContext, name: (typeof SLICES)[number], total: number): Slice {
  const n = Math.max(0, Math.floor(Number(c.req.query(name) ?? 0)) || 0);
  const from = Math.min(n, Math.max(0, Math.ceil(total / s.pageSize) - 1)) * s.pageSize;
  const keep: Record<string, string | undefined> = { refresh: c.req.query('refresh') };
  for (const other of SLICES) if (other !== name) keep[other] = c.req.query(other);
  return {
    from,
    total,
    first: from > 0 ? href(ctx, '/', { ...keep }) : undefined,
    next: from + s.pageSize < total ? href(ctx, '/', { ...keep, [name]: from / s.pageSize + 1 }) : undefined,
  };
}
