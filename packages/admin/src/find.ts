// Find the one message an incident is about: by entry ID, dead-letter record ID, source ID or deduplication ID.
import type { EntryInGroup, FindResult, ResourceId } from './api.js';
import type { AdminContext } from './context.js';
import { deadLetters } from './dead-letter-pages.js';
import { groupsOf } from './groups.js';
import { deadLetter, entry, pendingRow } from './pages.js';
import { queueMessage } from './queue-messages.js';
import { RespireValidationError, queueKeys, text } from './redis.js';
import { compareEntryIds, toCount, toEntryId, toName, toOptions } from './validate.js';

/** Groups of a stream looked at, at most: one bounded XPENDING each. */
const MAX_GROUPS = 32;

/**
 * Looks `query` up in a resource: as an entry ID (the main stream's entry and its state, a
 * dead-letter record with that ID, and the dead letters whose source ID it is: a bounded search
 * from that ID's time on) and, for a queue, as a deduplication ID (the entry it names while its
 * window lasts). Every read is bounded.
 */
export async function find(ctx: AdminContext, id: ResourceId, query: string, options?: { readonly scanLimit?: number }): Promise<FindResult> {
  const q = toName('query', typeof query === 'string' ? query.trim() : query, 65_536);
  const o = toOptions('options', options, ['scanLimit']);
  const scanLimit = toCount('scanLimit', o.scanLimit, 10_000, 1, 100_000);
  const r = await ctx.resources.get(id);
  const op = 'RespireAdmin find';
  const serverTimeMs = await ctx.redis.timeMs(r.kind === 'queue' ? r.keys.stream : r.stream, op);
  let entryId: string | undefined;
  try {
    entryId = toEntryId('query', q);
  } catch (error) {
    if (!(error instanceof RespireValidationError)) throw error;
  }

  let deduplication: FindResult['deduplication'] = null;
  if (r.kind === 'queue') {
    const key = `${queueKeys(r.name, r.keyPrefix).deduplicationPrefix}${q}`;
    const [value, ttl] = await Promise.all([ctx.redis.send(r.keys.stream, ['GET', key], op), ctx.redis.send(r.keys.stream, ['PTTL', key], op)]);
    if (value !== null && value !== undefined) {
      deduplication = { entryId: text(value), expiresInMs: Number(ttl) >= 0 ? Number(ttl) : null };
      entryId ??= text(value);
    }
  }
  if (entryId === undefined) return { query: q, entry: null, deadLetter: null, bySource: null, deduplication, serverTimeMs };

  const hasDead = r.kind === 'queue' || r.deadLetterStream !== undefined;
  const [body, record, bySource] = await Promise.all([
    entry(ctx, id, entryId),
    hasDead ? deadLetter(ctx, id, entryId) : null,
    hasDead ? deadLetters(ctx, id, { order: 'oldest', count: 20, scanLimit, filter: { sourceId: entryId } }) : null,
  ]);
  const result = { query: q, entry: body, deadLetter: record, bySource, deduplication, serverTimeMs };
  if (r.kind === 'queue') return { ...result, message: body ? await queueMessage(ctx, id, entryId) : null };
  if (!body) return result;
  return { ...result, groups: await inGroups(ctx, r.stream, entryId, op) };
}

/** Where an entry stands in each group of its stream (at most {@link MAX_GROUPS}). */
async function inGroups(ctx: AdminContext, stream: string, entryId: string, op: string): Promise<EntryInGroup[]> {
  const groups = ((await groupsOf(ctx, stream, op)) ?? []).slice(0, MAX_GROUPS);
  return Promise.all(
    groups.map(async (g): Promise<EntryInGroup> => {
      if (compareEntryIds(entryId, g.lastDeliveredId) > 0) return { group: g.name, state: 'waiting' };
      const rows = (await ctx.redis.send(stream, ['XPENDING', stream, g.name, entryId, entryId, '1'], op, true)) as unknown[];
      return rows[0] === undefined ? { group: g.name, state: 'done' } : { group: g.name, state: 'pending', pending: pendingRow(rows[0]) };
    }),
  );
}
