// Bounded page reads: consumers, pending entries, entry bodies, dead letters, queue deliveries.
import type {
  ConsumerList,
  ConsumerOptions,
  DeadLetterRecord,
  EntryBody,
  Page,
  PageOptions,
  PendingEntry,
  PendingOptions,
  QueueDelivery,
  ResourceId,
} from './api.js';
import type { AdminContext } from './context.js';
import { groupNotFound, groupOf, groupsOf } from './groups.js';
import { pendingBefore } from './pending-backward.js';
import { queueDelivery, queueRecord, workerRecord } from './records.js';
import { RespireValidationError, hasInfoField, infoField, missingOrThrow, numberOrNull, parseEntries, parseWithScores, text, type RedisArg } from './redis.js';
import { deadLetterKey, mainStream } from './resources.js';
import { pagePosition } from './stream-pages.js';
import { nextEntryId, toConsumer, toCount, toEntryId, toName, toOptions } from './validate.js';

/**
 * The idle time an operator's release gives a pending entry (2^31-1 ms, past every minimum idle
 * time a worker accepts); an entry at least this idle was released and waits to be claimed.
 */
export const RELEASE_IDLE_MS = 2_147_483_647;

/**
 * The group's consumers (XINFO CONSUMERS) with pending counts and idle times, unless XINFO GROUPS
 * says there are more than `limit`: XINFO CONSUMERS has no COUNT.
 * @throws {@link RespireNotFoundError} (`group`) for a group the stream does not have.
 */
export async function consumers(ctx: AdminContext, id: ResourceId, group: string, options?: ConsumerOptions): Promise<ConsumerList> {
  const g = toName('group', group);
  const o = toOptions('options', options, ['limit']);
  const limit = toCount('limit', o.limit, 1000, 1, 100_000);
  const s = await ctx.resources.stream(id);
  const op = 'RespireAdmin consumers';
  const info = await groupOf(ctx, s, g, op);
  if (info.consumers > limit) return { items: [], total: info.consumers, truncated: true };
  const reply = await ctx.redis.trySend(s.stream, ['XINFO', 'CONSUMERS', s.stream, g], op, true);
  if (!Array.isArray(reply)) {
    // The group (or stream) went away between the two reads.
    missingOrThrow(reply, null, op);
    throw groupNotFound(s, g, await groupsOf(ctx, s.stream, op));
  }
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

/**
 * One page of the group's PEL (XPENDING extended form, COUNT-bounded), oldest entry first:
 * the first, the one after `cursor`, the one before `before`, or the last (see `pendingBefore`).
 * @throws {@link RespireNotFoundError} (`group`) for a group the stream does not have.
 */
export async function pending(ctx: AdminContext, id: ResourceId, group: string, options?: PendingOptions): Promise<Page<PendingEntry>> {
  const g = toName('group', group);
  const o = toOptions('options', options, ['count', 'cursor', 'before', 'last', 'consumer', 'minIdleMs']);
  const count = toCount('count', o.count, 50);
  const position = pagePosition(o);
  const consumer = o.consumer === undefined ? undefined : toConsumer('consumer', o.consumer);
  const minIdleMs = o.minIdleMs === undefined ? undefined : toCount('minIdleMs', o.minIdleMs, 0, 1, RELEASE_IDLE_MS);
  const s = await ctx.resources.stream(id);
  const op = 'RespireAdmin pending';
  // XPENDING key group [IDLE ms] start end count [consumer], as rows.
  const read = async (start: string, end: string, n: number): Promise<PendingEntry[]> => {
    const args: RedisArg[] = ['XPENDING', s.stream, g, ...(minIdleMs === undefined ? [] : ['IDLE', String(minIdleMs)]), start, end, String(n)];
    if (consumer !== undefined) args.push(consumer);
    const reply = await ctx.redis.trySend(s.stream, args, op, true);
    if (!Array.isArray(reply)) {
      missingOrThrow(reply, null, op);
      throw groupNotFound(s, g, await groupsOf(ctx, s.stream, op));
    }
    return reply.map(pendingRow);
  };
  if (position.at === 'first' || position.at === 'after') {
    // The page starts right after the cursor (an inclusive start: no exclusive-range syntax needed).
    const start = position.at === 'first' ? '-' : nextEntryId(position.id);
    if (start === undefined) {
      await groupOf(ctx, s, g, op); // a missing group is still "not found", at the end of the ID space too
      return { items: [], next: undefined, previous: position.at === 'after' ? position.id : undefined };
    }
    const rows = await read(start, '+', count + 1);
    const items = rows.slice(0, count);
    return {
      items,
      next: rows.length > count ? items[items.length - 1]!.id : undefined,
      previous: position.at === 'after' ? (items[0]?.id ?? position.id) : undefined,
    };
  }
  // Backwards: the page before a cursor, or the last page (no pending entry is above the group's last-delivered-id).
  const info = await groupOf(ctx, s, g, op);
  const end = position.at === 'before' ? position.id : undefined;
  if (end === '0-0') return { items: [], next: end, previous: undefined };
  const { rows, more } = await pendingBefore((start, n) => read(start, end === undefined ? '+' : `(${end}`, n), count, end, info.lastDeliveredId);
  return {
    items: rows,
    next: end === undefined ? undefined : (rows[rows.length - 1]?.id ?? end),
    previous: more ? rows[0]?.id : undefined,
  };
}

/** One XPENDING extended-form row. */
export function pendingRow(r: unknown): PendingEntry {
  const row = r as unknown[];
  const consumer = text(row[1]);
  const idleMs = Number(text(row[2]));
  return { id: text(row[0]), consumer, idleMs, deliveryCount: Number(text(row[3])), released: idleMs >= RELEASE_IDLE_MS || idleMs < 0 };
}

/** One entry body of the resource's main stream (XRANGE id id); null when deleted or trimmed. */
export async function entry(ctx: AdminContext, id: ResourceId, entryId: string): Promise<EntryBody | null> {
  const e = toEntryId('entryId', entryId);
  const stream = mainStream(await ctx.resources.get(id));
  const [found] = parseEntries(await ctx.redis.send(stream, ['XRANGE', stream, e, e, 'COUNT', '1'], 'RespireAdmin entry', true));
  return found ?? null;
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

/**
 * One page of a queue's delivered, uncompleted messages, by rank in its deadlines set; never the
 * receipt. The cursors are ranks: the first page, the one after `cursor`, the one before
 * `before`, or the last (by the set's size now).
 */
export async function queueDeliveries(
  ctx: AdminContext,
  id: ResourceId,
  options?: PageOptions,
): Promise<Page<QueueDelivery> & { readonly serverTimeMs: number; readonly total: number }> {
  const o = toOptions('options', options, ['count', 'cursor', 'before', 'last']);
  const count = toCount('count', o.count, 50);
  const rank = (name: string, value: unknown) => {
    if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) {
      throw new RespireValidationError(name, `must be a cursor from a previous page (a whole number), got ${JSON.stringify(value)}`);
    }
    return Number(value);
  };
  const given = [o.cursor !== undefined, o.before !== undefined, o.last === true].filter(Boolean).length;
  if (given > 1) throw new RespireValidationError('options', 'give at most one of cursor, before and last');
  if (o.last !== undefined && typeof o.last !== 'boolean') throw new RespireValidationError('last', `must be a boolean, got ${typeof o.last}`);
  // Checked before any I/O, like every other argument.
  const cursor = o.cursor === undefined ? undefined : rank('cursor', o.cursor);
  const before = o.before === undefined ? undefined : rank('before', o.before);
  const q = await ctx.resources.queue(id);
  const op = 'RespireAdmin queueDeliveries';
  const [now, size] = await Promise.all([ctx.redis.timeMs(q.keys.stream, op), ctx.redis.send(q.keys.stream, ['ZCARD', q.keys.deadlines], op)]);
  const total = Number(size);
  let start = 0;
  if (cursor !== undefined) start = cursor;
  else if (before !== undefined) start = Math.max(0, before - count);
  else if (o.last === true) start = Math.max(0, total - count);
  const reply = await ctx.redis.send(q.keys.stream, ['ZRANGE', q.keys.deadlines, String(start), String(start + count), 'WITHSCORES'], op);
  const rows = parseWithScores(reply);
  const items: QueueDelivery[] = [];
  for (const [member, score] of rows.slice(0, count)) {
    const d = queueDelivery(member, score, now);
    if (d) items.push(d);
  }
  return {
    items,
    next: rows.length > count ? String(start + count) : undefined,
    previous: start > 0 ? String(start) : undefined,
    serverTimeMs: now,
    total,
  };
}
