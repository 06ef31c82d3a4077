// Bounded page reads: consumers, pending entries, entry bodies, dead letters, queue deliveries.
import type { ConsumerList, ConsumerOptions, DeadLetterRecord, EntryBody, Page, PageOptions, PendingEntry, QueueDelivery, ResourceId } from './api.js';
import type { AdminContext } from './context.js';
import { queueDelivery, queueRecord, workerRecord } from './records.js';
import { RespireValidationError, hasInfoField, infoField, missingOrThrow, numberOrNull, parseEntries, parseWithScores, text, type RedisArg } from './redis.js';
import { deadLetterKey, mainStream } from './resources.js';
import { nextEntryId, previousEntryId, toConsumer, toCount, toEntryId, toName, toOptions } from './validate.js';

/** What a missing stream or group reads as. */
const NO_CONSUMERS: ConsumerList = { items: [], total: 0, truncated: false };

/**
 * The group's consumers (XINFO CONSUMERS) with pending counts and idle times, unless XINFO GROUPS
 * says there are more than `limit`: XINFO CONSUMERS has no COUNT.
 */
export async function consumers(ctx: AdminContext, id: ResourceId, group: string, options?: ConsumerOptions): Promise<ConsumerList> {
  const g = toName('group', group);
  const o = toOptions('options', options, ['limit']);
  const limit = toCount('limit', o.limit, 1000, 1, 100_000);
  const s = await ctx.resources.stream(id);
  const op = 'RespireAdmin consumers';
  const groups = await ctx.redis.trySend(s.stream, ['XINFO', 'GROUPS', s.stream], op, true);
  if (!Array.isArray(groups)) return missingOrThrow(groups, NO_CONSUMERS, op);
  const info = groups.find((x) => text(infoField(x, 'name')) === g);
  if (info === undefined) return NO_CONSUMERS;
  const total = Number(text(infoField(info, 'consumers')));
  if (total > limit) return { items: [], total, truncated: true };
  const reply = await ctx.redis.trySend(s.stream, ['XINFO', 'CONSUMERS', s.stream, g], op, true);
  if (!Array.isArray(reply)) return missingOrThrow(reply, NO_CONSUMERS, op);
  // Consumers created between the two reads may take the group past the limit.
  if (reply.length > limit) return { items: [], total: reply.length, truncated: true };
  const items = reply.map((c) => {
    const inactive = hasInfoField(c, 'inactive') ? numberOrNull(infoField(c, 'inactive')) : null;
    return {
      name: text(infoField(c, 'name')),
      pending: Number(text(infoField(c, 'pending'))),
      idleMs: Number(text(infoField(c, 'idle'))),
      inactiveMs: inactive === null || inactive < 0 ? null : inactive,
    };
  });
  return { items, total: items.length, truncated: false };
}

/** One page of the group's PEL (XPENDING extended form, COUNT-bounded), oldest entry first. */
export async function pending(
  ctx: AdminContext,
  id: ResourceId,
  group: string,
  options?: PageOptions & { readonly consumer?: string },
): Promise<Page<PendingEntry>> {
  const g = toName('group', group);
  const o = toOptions('options', options, ['count', 'cursor', 'consumer']);
  const count = toCount('count', o.count, 50);
  const cursor = o.cursor === undefined ? undefined : toEntryId('cursor', o.cursor);
  const consumer = o.consumer === undefined ? undefined : toConsumer('consumer', o.consumer);
  const s = await ctx.resources.stream(id);
  // The page starts right after the cursor (an inclusive start: no exclusive-range syntax needed).
  const start = cursor === undefined ? '-' : nextEntryId(cursor);
  if (start === undefined) return { items: [], next: undefined };
  const args: RedisArg[] = ['XPENDING', s.stream, g, start, '+', String(count + 1)];
  if (consumer !== undefined) args.push(consumer);
  const reply = await ctx.redis.trySend(s.stream, args, 'RespireAdmin pending', true);
  if (!Array.isArray(reply)) return missingOrThrow(reply, { items: [], next: undefined }, 'RespireAdmin pending');
  const rows = reply.map((r) => {
    const row = r as unknown[];
    return { id: text(row[0]), consumer: text(row[1]), idleMs: Number(text(row[2])), deliveryCount: Number(text(row[3])) };
  });
  return page(rows, count);
}

/** One entry body of the resource's main stream (XRANGE id id); null when deleted or trimmed. */
export async function entry(ctx: AdminContext, id: ResourceId, entryId: string): Promise<EntryBody | null> {
  const e = toEntryId('entryId', entryId);
  const stream = mainStream(await ctx.resources.get(id));
  const [found] = parseEntries(await ctx.redis.send(stream, ['XRANGE', stream, e, e, 'COUNT', '1'], 'RespireAdmin entry', true));
  return found ?? null;
}

/** One page of dead-letter records (XRANGE / XREVRANGE with COUNT), newest first by default. */
export async function deadLetters(
  ctx: AdminContext,
  id: ResourceId,
  options?: PageOptions & { readonly order?: 'newest' | 'oldest' },
): Promise<Page<DeadLetterRecord>> {
  const o = toOptions('options', options, ['count', 'cursor', 'order']);
  const count = toCount('count', o.count, 50);
  const cursor = o.cursor === undefined ? undefined : toEntryId('cursor', o.cursor);
  if (o.order !== undefined && o.order !== 'newest' && o.order !== 'oldest') {
    throw new RespireValidationError('order', `must be 'newest' or 'oldest', got ${JSON.stringify(o.order)}`);
  }
  const newest = o.order !== 'oldest';
  const r = await ctx.resources.get(id);
  const dead = deadLetterKey(r);
  // The page starts right after (before, when newest first) the cursor; past either end it is empty.
  const from = cursor === undefined ? (newest ? '+' : '-') : newest ? previousEntryId(cursor) : nextEntryId(cursor);
  if (from === undefined) return { items: [], next: undefined };
  const args = newest ? ['XREVRANGE', dead, from, '-', 'COUNT', String(count + 1)] : ['XRANGE', dead, from, '+', 'COUNT', String(count + 1)];
  const entries = parseEntries(await ctx.redis.send(dead, args, 'RespireAdmin deadLetters', true));
  const read = r.kind === 'queue' ? queueRecord : workerRecord;
  return page(
    entries.map((e) => read(e.id, e.fields)),
    count,
  );
}

/** One dead-letter record; null when it is gone. */
export async function deadLetter(ctx: AdminContext, id: ResourceId, recordId: string): Promise<DeadLetterRecord | null> {
  const rid = toEntryId('recordId', recordId);
  const r = await ctx.resources.get(id);
  const dead = deadLetterKey(r);
  const [found] = parseEntries(await ctx.redis.send(dead, ['XRANGE', dead, rid, rid, 'COUNT', '1'], 'RespireAdmin deadLetter', true));
  if (!found) return null;
  return (r.kind === 'queue' ? queueRecord : workerRecord)(found.id, found.fields);
}

/** One page of a queue's delivered, uncompleted messages, by rank in its deadlines set; never the receipt. */
export async function queueDeliveries(
  ctx: AdminContext,
  id: ResourceId,
  options?: PageOptions,
): Promise<Page<QueueDelivery> & { readonly serverTimeMs: number }> {
  const o = toOptions('options', options, ['count', 'cursor']);
  const count = toCount('count', o.count, 50);
  if (o.cursor !== undefined && (typeof o.cursor !== 'string' || !/^\d{1,15}$/.test(o.cursor))) {
    throw new RespireValidationError('cursor', `must be a cursor from a previous page (a whole number), got ${JSON.stringify(o.cursor)}`);
  }
  const start = o.cursor === undefined ? 0 : Number(o.cursor);
  const q = await ctx.resources.queue(id);
  const op = 'RespireAdmin queueDeliveries';
  const now = await ctx.redis.timeMs(q.keys.stream, op);
  const reply = await ctx.redis.send(q.keys.stream, ['ZRANGE', q.keys.deadlines, String(start), String(start + count), 'WITHSCORES'], op);
  const rows = parseWithScores(reply);
  const items: QueueDelivery[] = [];
  for (const [member, score] of rows.slice(0, count)) {
    const d = queueDelivery(member, score, now);
    if (d) items.push(d);
  }
  return { items, next: rows.length > count ? String(start + count) : undefined, serverTimeMs: now };
}

/** The first `count` rows, and the cursor of the next page when a row beyond them was read. */
function page<T extends { readonly id: string }>(rows: readonly T[], count: number): Page<T> {
  const items = rows.slice(0, count);
  const last = items[items.length - 1];
  return { items, next: rows.length > count && last !== undefined ? last.id : undefined };
}
