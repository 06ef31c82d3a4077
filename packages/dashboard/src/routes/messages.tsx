// Routes of a queue's messages, one message, and the download of a payload or field value.
import type { Hono } from 'hono';
import type { DeadLetterRecord } from '@respire/admin';
import { ENTRY_ID, HttpError, intParam, need, pageCount, pageQuery, param, query, type Ctx, type Env } from '../http.js';
import { noticeOf } from '../notices.js';
import type { Settings } from '../options.js';
import { ref } from '../refs.js';
import { resolveDeadLetterOwner, resolveQueue, resolveRef } from '../resources.js';
import { ctxOf } from '../respond.js';
import { cursorPaging } from '../views/components.js';
import { ConfirmDeleteMessagePage } from '../views/confirm.js';
import { InFlightPage, MessagePage, ReadyMessagesPage } from '../views/messages.js';

export function messageRoutes(routes: Hono<Env>, s: Settings): void {
  // `/deliveries` was the leased-message page's address: it stays the in-flight view.
  routes.get('/deliveries', async (c) => messages(c, { ...query(c), view: 'in-flight' }));
  routes.get('/messages', async (c) => messages(c, query(c)));
  const messages = async (c: Ctx, q: Record<string, string>) => {
    const queue = await resolveQueue(s, c, q);
    const ctx = ctxOf(s, c);
    const keep = { ...ref('id', queue.id), view: q['view'] === 'in-flight' ? 'in-flight' : undefined, refresh: q['refresh'] };
    // Each view's page, with the queue's counts for the tabs.
    const withStatus = async <P extends { readonly next: string | undefined; readonly previous?: string | undefined }>(read: Promise<P>) => {
      const [page, status] = await Promise.all([read, s.admin.queueStatus(queue.id)]);
      return { page, status, paging: cursorPaging(ctx, '/messages', keep, page) };
    };
    const count = pageCount(c, s.pageSize);
    if (q['view'] === 'in-flight') {
      const { page, status, paging } = await withStatus(s.admin.queueDeliveries(queue.id, { count, ...pageQuery(q, /^\d{1,15}$/) }));
      return c.html(
        <InFlightPage
          ctx={ctx}
          queue={queue}
          items={page.items}
          ready={status.ready}
          total={page.total}
          serverTimeMs={page.serverTimeMs}
          paging={paging}
          notice={noticeOf(q)}
        />,
      );
    }
    const { page, status, paging } = await withStatus(s.admin.queueMessages(queue.id, { count, ...pageQuery(q) }));
    return c.html(
      <ReadyMessagesPage
        ctx={ctx}
        queue={queue}
        items={page.items}
        total={page.total}
        inFlight={status.inFlight}
        paging={paging}
        serverTimeMs={page.serverTimeMs}
        notice={noticeOf(q)}
      />,
    );
  };

  routes.get('/confirm/delete-message', async (c) => {
    const q = query(c);
    const queue = await resolveQueue(s, c, q);
    const entry = need(q, 'entry', ENTRY_ID);
    // 0: a delayed send a receive parked before its due time (the message page offers Delete… for it).
    const deliveryCount = intParam(q, 'deliveryCount', 0, Number.MAX_SAFE_INTEGER);
    const untilMs = intParam(q, 'untilMs', 0, Number.MAX_SAFE_INTEGER);
    return c.html(<ConfirmDeleteMessagePage ctx={ctxOf(s, c)} queue={queue} entry={entry} deliveryCount={deliveryCount} untilMs={untilMs} />);
  });

  routes.get('/message', async (c) => {
    const q = query(c);
    const queue = await resolveQueue(s, c, q);
    const entry = need(q, 'entry', ENTRY_ID);
    const message = await s.admin.queueMessage(queue.id, entry);
    if (!message) throw new HttpError(404, `Message ${entry} is not in this queue: acknowledged, dead-lettered, or never there.`);
    return c.html(<MessagePage ctx={ctxOf(s, c)} queue={queue} message={message} notice={noticeOf(q)} />);
  });

  // The raw bytes of a queue message's payload or one field, or of a dead letter's payload or field.
  routes.get('/download', async (c) => {
    const q = query(c);
    const field = param(q, 'field', { optional: true, pattern: /^\d{1,4}$/ });
    const record = param(q, 'record', { optional: true, pattern: ENTRY_ID });
    if (record !== undefined) {
      const owner = await resolveDeadLetterOwner(s, c, q);
      const found = await s.admin.deadLetter(owner.id, record);
      if (!found) throw new HttpError(404, `Dead letter ${record} is gone (retried or deleted).`);
      return attachment(c, valueOf(found, field), `dead-letter-${record}${field === undefined ? '' : `-field-${field}`}.bin`);
    }
    const entry = need(q, 'entry', ENTRY_ID);
    const resource = await resolveRef(s, c, q);
    if (resource.kind === 'queue') {
      const message = await s.admin.queueMessage(resource.id, entry);
      if (!message) throw new HttpError(404, `Message ${entry} is not in this queue.`);
      return attachment(
        c,
        field === undefined ? message.payload : fieldAt(message.fields, Number(field)),
        `message-${entry}${field === undefined ? '' : `-field-${field}`}.bin`,
      );
    }
    const body = await s.admin.entry(resource.id, entry);
    if (!body) throw new HttpError(404, `Entry ${entry} is not in this stream: deleted or trimmed.`);
    return attachment(c, fieldAt(body.fields, Number(field ?? 0)), `entry-${entry}-field-${field ?? 0}.bin`);
  });
}

function fieldAt(fields: readonly (readonly [Buffer, Buffer])[], index: number): Buffer {
  const value = fields[index]?.[1];
  if (!value) throw new HttpError(404, 'No such field.');
  return value;
}

/** A dead letter's payload (queue) or one of its fields (worker, foreign). */
function valueOf(record: DeadLetterRecord, field: string | undefined): Buffer {
  if (record.kind === 'queue') return record.payload;
  return fieldAt(record.fields, Number(field ?? 0));
}

/** Bytes as a file download: never rendered by the browser (octet-stream, attachment, nosniff). */
function attachment(c: Ctx, bytes: Buffer, filename: string) {
  return c.body(new Uint8Array(bytes), 200, {
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': `attachment; filename="${filename}"`,
    'X-Content-Type-Options': 'nosniff',
  });
}
