// Routes of a queue's and a stream's pages, find, and history.
import type { Hono } from 'hono';
import { ENTRY_ID, HttpError, query, type Env } from '../http.js';
import { noticeOf } from '../notices.js';
import type { Settings } from '../options.js';
import { resolveQueue, resolveRef, resolveStream } from '../resources.js';
import { ctxOf } from '../respond.js';
import { FindPage, HISTORY_RANGES, HistoryPage, QueuePage, StreamPage } from '../views/resources.js';

export function resourceRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/queue', async (c) => {
    const q = query(c);
    const queue = await resolveQueue(s, c, q);
    const status = await s.admin.queueStatus(queue.id);
    return c.html(<QueuePage ctx={ctxOf(s, c)} status={status} notice={noticeOf(q)} />);
  });

  routes.get('/stream', async (c) => {
    const stream = await resolveStream(s, c, query(c));
    const status = await s.admin.streamStatus(stream.id);
    return c.html(<StreamPage ctx={ctxOf(s, c)} status={status} />);
  });

  routes.get('/find', async (c) => {
    const q = query(c);
    const resource = await resolveRef(s, c, q);
    const text = (q['q'] ?? '').trim();
    if (text === '' || text.length > 65_536) throw new HttpError(400, 'Give an ID to find.');
    if (resource.kind === 'stream' && resource.deadLetterStream === undefined && !ENTRY_ID.test(text)) throw new HttpError(400, 'Give an entry ID to find.');
    const result = await s.admin.find(resource.id, text);
    return c.html(<FindPage ctx={ctxOf(s, c)} resource={resource} result={result} />);
  });

  routes.get('/history', async (c) => {
    const q = query(c);
    const resource = await resolveRef(s, c, q);
    const range = (q['range'] ?? '1h') as keyof typeof HISTORY_RANGES;
    if (!(range in HISTORY_RANGES)) throw new HttpError(400, 'Invalid range.');
    const history = await s.admin.history(resource.id, { sinceMs: Date.now() - HISTORY_RANGES[range], maxPoints: 240 });
    return c.html(<HistoryPage ctx={ctxOf(s, c)} resource={resource} history={history} range={range} sampling={s.history?.intervalMs} />);
  });
}
