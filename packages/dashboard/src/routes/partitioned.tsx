// Routes of the partitioned queues list, one partitioned queue's page, and the retry and delete of its dead letters.
import { MAX_PARTITIONS } from '@respire/admin';
import type { Hono } from 'hono';
import { ENTRY_ID, form, intParam, need, pageCount, param, query, type Env } from '../http.js';
import { noticeOf, noticeParams } from '../notices.js';
import type { Settings } from '../options.js';
import { resolvePartitionedQueue, visiblePartitionedQueues } from '../partitioned.js';
import { ctxOf, done, refused } from '../respond.js';
import { cursorPaging } from '../views/components.js';
import { ConfirmPartitionDeletePage, PartitionedQueuePage, PartitionedQueuesPage } from '../views/partitioned.js';

/** A cursor of the combined dead letters: `p<partition>~<record ID>` (the admin checks it). */
const DEAD_LETTER_CURSOR = /^p\d{1,3}~\d{1,20}-\d{1,20}$/;

export function partitionedRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/partitioned-queues', async (c) => {
    const { queues, discoveryTruncated, unavailable } = await visiblePartitionedQueues(s, c.get('principal'));
    return c.html(<PartitionedQueuesPage ctx={ctxOf(s, c)} queues={queues} discoveryTruncated={discoveryTruncated} unavailable={unavailable} />);
  });

  routes.get('/partitioned-queue', async (c) => {
    const q = query(c);
    const queue = await resolvePartitionedQueue(s, c.get('principal'), q['id']);
    const cursor = param(q, 'cursor', { optional: true, pattern: DEAD_LETTER_CURSOR });
    const page = await s.admin.partitionedDeadLetters(queue.id, { count: pageCount(c, s.pageSize), ...(cursor ? { cursor } : {}) });
    const paging = cursorPaging(ctxOf(s, c), '/partitioned-queue', { id: queue.id }, page, { first: cursor === undefined, last: true });
    return c.html(<PartitionedQueuePage ctx={ctxOf(s, c)} queue={queue} deadLetters={page.items} paging={paging} notice={noticeOf(q)} />);
  });

  routes.get('/confirm/partition-delete', async (c) => {
    const q = query(c);
    const queue = await resolvePartitionedQueue(s, c.get('principal'), q['id']);
    const partition = intParam(q, 'partition', 0, MAX_PARTITIONS - 1);
    const record = need(q, 'record', ENTRY_ID);
    return c.html(<ConfirmPartitionDeletePage ctx={ctxOf(s, c)} queue={queue} partition={partition} record={record} />);
  });

  routes.post('/actions/partition-retry', async (c) => {
    const f = await form(c);
    const queue = await resolvePartitionedQueue(s, c.get('principal'), f['id']);
    const partition = intParam(f, 'partition', 0, (queue.partitions ?? 1) - 1);
    const record = need(f, 'record', ENTRY_ID);
    const result = await s.admin.retryPartitionedDeadLetter(c.get('principal'), queue.id, partition, record);
    if (result.status === 'retried')
      return done(s, c, result, '/partitioned-queue', { id: queue.id, ...noticeParams('retried', { record, newId: result.newId }) });
    if (result.status === 'missing')
      return refused(s, c, result, 'Already gone', <p>Dead letter {record} is gone (retried or deleted meanwhile). Nothing was done.</p>);
    return refused(s, c, result, 'Retry refused', <p>{result.reason}</p>);
  });

  routes.post('/actions/partition-delete', async (c) => {
    const f = await form(c);
    const queue = await resolvePartitionedQueue(s, c.get('principal'), f['id']);
    const partition = intParam(f, 'partition', 0, (queue.partitions ?? 1) - 1);
    const record = need(f, 'record', ENTRY_ID);
    const result = await s.admin.deletePartitionedDeadLetter(c.get('principal'), queue.id, partition, record);
    if (result.status === 'deleted') return done(s, c, result, '/partitioned-queue', { id: queue.id, ...noticeParams('deleted', { record }) });
    return refused(s, c, result, 'Already gone', <p>Dead letter {record} is gone (retried or deleted meanwhile). Nothing was done.</p>);
  });
}
