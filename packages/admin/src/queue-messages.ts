// A queue's messages: the ready ones (paged), one message and its state, and the fenced release and delete of a leased or delayed one.
import type { Actor, Page, PageOptions, QueueMessage, QueueMessageActionResult, QueueMessageExpectation, QueueResource, ResourceId } from './api.js';
import type { AdminContext } from './context.js';
import { groupsOf } from './groups.js';
import { queueDelivery } from './records.js';
import { RespireValidationError, parseEntries, readHeaders, readQueueEntry, text } from './redis.js';
import { QUEUE_GROUP } from './status.js';
import { pagePosition, readStreamPage, type Entry } from './stream-pages.js';
import { compareEntryIds, nextEntryId, toCount, toEntryId, toOptions } from './validate.js';

/** Members of the deadlines set read at most when looking for one message's member (ZSCAN MATCH, COUNT 1000 per call). */
export const MESSAGE_SCAN_BUDGET = 10_000;

/** The `payload` field of an entry (empty when it has none). */
function payloadOf(fields: readonly (readonly [Buffer, Buffer])[]): Buffer {
  return fields.find(([name]) => name.toString('latin1') === 'payload')?.[1] ?? Buffer.alloc(0);
}

/** A queue entry's due time and decoded headers (the queue's entry and headers formats). */
function extrasOf(fields: readonly (readonly [Buffer, Buffer])[]): Pick<QueueMessage, 'dueMs' | 'headers'> {
  const entry = readQueueEntry(fields);
  const headers = entry.headers === undefined ? { headers: {} } : readHeaders(entry.headers);
  return { dueMs: entry.dueMs ?? null, headers: 'headers' in headers ? headers.headers : null };
}

const ready = (entry: Entry): QueueMessage => ({
  id: entry.id,
  payload: payloadOf(entry.fields),
  fields: entry.fields,
  state: 'ready',
  deliveryCount: 0,
  untilMs: null,
  due: false,
  ...extrasOf(entry.fields),
});

/** The queue's private group position: entries above it are ready. Undefined when there is no group yet. */
async function position(ctx: AdminContext, q: QueueResource, op: string): Promise<{ lastDeliveredId: string | undefined; lag: number | null }> {
  const group = (await groupsOf(ctx, q.keys.stream, op))?.find((g) => g.name === QUEUE_GROUP);
  return { lastDeliveredId: group?.lastDeliveredId, lag: group ? group.lag : null };
}

/** One page of a queue's ready messages (after its group's last-delivered ID), oldest first by default. */
export async function queueMessages(
  ctx: AdminContext,
  id: ResourceId,
  options?: PageOptions & { readonly order?: 'oldest' | 'newest' },
): Promise<Page<QueueMessage> & { readonly total: number | null; readonly serverTimeMs: number }> {
  const o = toOptions('options', options, ['count', 'cursor', 'before', 'last', 'order']);
  const count = toCount('count', o.count, 50);
  if (o.order !== undefined && o.order !== 'newest' && o.order !== 'oldest') {
    throw new RespireValidationError('order', `must be 'newest' or 'oldest', got ${JSON.stringify(o.order)}`);
  }
  const page = pagePosition(o);
  const q = await ctx.resources.queue(id);
  const op = 'RespireAdmin queueMessages';
  const [{ lastDeliveredId, lag }, serverTimeMs, length] = await Promise.all([
    position(ctx, q, op),
    ctx.redis.timeMs(q.keys.stream, op),
    ctx.redis.send(q.keys.stream, ['XLEN', q.keys.stream], op),
  ]);
  const low = lastDeliveredId === undefined ? '-' : nextEntryId(lastDeliveredId);
  // Before the group exists every entry is ready.
  const total = lastDeliveredId === undefined ? Number(length) : lag;
  if (low === undefined) return { items: [], next: undefined, previous: undefined, total, serverTimeMs };
  const found = await readStreamPage(ctx, { key: q.keys.stream, order: o.order ?? 'oldest', count, page, low, read: ready, operation: op });
  return { items: found.items, next: found.next, previous: found.previous, total, serverTimeMs };
}

/** One message of a queue and its state; null when the queue's stream does not hold it. */
export async function queueMessage(ctx: AdminContext, id: ResourceId, entryId: string): Promise<(QueueMessage & { readonly serverTimeMs: number }) | null> {
  const e = toEntryId('entryId', entryId);
  const q = await ctx.resources.queue(id);
  const op = 'RespireAdmin queueMessage';
  const [body, { lastDeliveredId }, serverTimeMs] = await Promise.all([
    ctx.redis.send(q.keys.stream, ['XRANGE', q.keys.stream, e, e, 'COUNT', '1'], op, true),
    position(ctx, q, op),
    ctx.redis.timeMs(q.keys.stream, op),
  ]);
  const [entry] = parseEntries(body);
  if (!entry) return null;
  if (lastDeliveredId === undefined || compareEntryIds(e, lastDeliveredId) > 0) return { ...ready(entry), serverTimeMs };
  const member = await findMember(ctx, q, e, op);
  const delivery = member && queueDelivery(member.member, member.score, serverTimeMs);
  return {
    id: e,
    payload: payloadOf(entry.fields),
    fields: entry.fields,
    state: delivery ? delivery.state : 'delivered',
    deliveryCount: delivery ? delivery.deliveryCount : null,
    untilMs: delivery ? delivery.untilMs : null,
    due: delivery ? delivery.due : false,
    ...extrasOf(entry.fields),
    serverTimeMs,
  };
}

/**
 * The deadlines member of one entry: the set is scored by deadline, not by ID, so it is found by
 * ZSCAN MATCH "<id>:*" (an entry ID has no glob characters), at most {@link MESSAGE_SCAN_BUDGET}
 * members read.
 */
async function findMember(ctx: AdminContext, q: QueueResource, entryId: string, op: string): Promise<{ member: string; score: number } | undefined> {
  let cursor = '0';
  let read = 0;
  do {
    const reply = (await ctx.redis.send(q.keys.stream, ['ZSCAN', q.keys.deadlines, cursor, 'MATCH', `${entryId}:*`, 'COUNT', '1000'], op)) as unknown[];
    cursor = text(reply[0]);
    const flat = (reply[1] as unknown[]) ?? [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const member = text(flat[i]);
      if (member.startsWith(`${entryId}:`)) return { member, score: Number(text(flat[i + 1])) };
    }
    read += 1000;
  } while (cursor !== '0' && read < MESSAGE_SCAN_BUDGET);
  return undefined;
}

/**
 * Releases (due now, like a NACK without delay) or deletes (like an ACK) a leased or delayed
 * queue message, fenced by the delivery count and deadline the operator saw.
 */
export async function queueMessageAction(
  ctx: AdminContext,
  actor: Actor,
  action: 'release-message' | 'delete-message',
  id: ResourceId,
  entryId: string,
  expected: QueueMessageExpectation,
): Promise<QueueMessageActionResult> {
  const who = ctx.auditor.operator(actor, action, id, { entryId });
  const e = toEntryId('entryId', entryId);
  if (typeof expected !== 'object' || expected === null) throw new RespireValidationError('expected', 'must be { deliveryCount, untilMs }');
  // 0 is a delayed send not yet due, as the message view shows it.
  const count = toCount('expected.deliveryCount', expected.deliveryCount, 0, 0, Number.MAX_SAFE_INTEGER);
  const untilMs = expected.untilMs;
  if (typeof untilMs !== 'number' || !Number.isFinite(untilMs) || untilMs < 0) {
    throw new RespireValidationError('expected.untilMs', `must be the deadline shown (ms since the epoch), got ${String(untilMs)}`);
  }
  const target = { entryId: e, deliveryCount: count, untilMs };
  return ctx.auditor.run<QueueMessageActionResult>(who, action, id, target, async () => {
    const q = await ctx.resources.queue(id);
    const keys = { stream: q.keys.stream, deadlines: q.keys.deadlines, id: e, deliveryCount: count, untilMs: String(untilMs) };
    const op = `RespireAdmin ${action}`;
    const reply =
      action === 'release-message'
        ? await ctx.redis.script('releaseQueueMessage', keys, op)
        : await ctx.redis.script('deleteQueueMessage', { ...keys, group: QUEUE_GROUP }, op);
    if (reply.status === 'released' || reply.status === 'deleted') return { value: { status: reply.status }, result: 'ok' };
    if (reply.status === 'notInFlight') return { value: { status: 'missing' }, result: 'missing' };
    const now = reply.deliveryCount;
    const value = { status: 'changed', deliveryCount: now > 0 ? now : null } as const;
    return {
      value,
      result: 'changed',
      detail: now > 0 ? `now at delivery count ${now}` : 'no longer at the deadline shown (delivered again, NACKed, released or completed)',
    };
  });
}
