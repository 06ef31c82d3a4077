// Pages of dead letters: both orders, first / previous / next / last, and a filtered search under a budget.
import type { DeadLetterFilter, DeadLetterOptions, DeadLetterPage, DeadLetterRecord, ResourceId } from './api.js';
import type { AdminContext } from './context.js';
import { queueRecord, workerRecord } from './records.js';
import { RespireValidationError } from './redis.js';
import { deadLetterKey } from './resources.js';
import { idRange, pagePosition, readStreamPage } from './stream-pages.js';
import { toCount, toEntryId, toName, toOptions } from './validate.js';

/** The reason of every queue dead letter: a queue moves a message to its dead letters only at its delivery limit. */
export const QUEUE_REASON = 'delivery-limit';

/** One page of dead-letter records (see `RespireAdmin.deadLetters`). */
export function deadLetters(ctx: AdminContext, id: ResourceId, options?: DeadLetterOptions): Promise<DeadLetterPage> {
  return deadLetterPage(ctx, options, async () => {
    const r = await ctx.resources.get(id);
    return { key: deadLetterKey(r), parse: r.kind === 'queue' ? queueRecord : workerRecord };
  });
}

/**
 * One page of the dead-letter stream `locate` resolves (after the options are checked, before any
 * read), its records read by `parse`: the one pager of queue, worker and topic subscription dead letters.
 */
export async function deadLetterPage(
  ctx: AdminContext,
  options: DeadLetterOptions | undefined,
  locate: () => Promise<{ readonly key: string; readonly parse: typeof queueRecord }>,
): Promise<DeadLetterPage> {
  const o = toOptions('options', options, ['count', 'cursor', 'before', 'last', 'order', 'filter', 'scanLimit']);
  const count = toCount('count', o.count, 50);
  if (o.order !== undefined && o.order !== 'newest' && o.order !== 'oldest') {
    throw new RespireValidationError('order', `must be 'newest' or 'oldest', got ${JSON.stringify(o.order)}`);
  }
  const page = pagePosition(o);
  const filter = o.filter === undefined ? undefined : toFilter(o.filter);
  const scanLimit = toCount('scanLimit', o.scanLimit, 10_000, 1, 100_000);
  const { key, parse } = await locate();
  const match = filter && matcher(filter);
  const { low, high } = idRange(sinceBound(filter), filter?.untilMs);
  return readStreamPage<DeadLetterRecord>(ctx, {
    key,
    order: o.order ?? 'newest',
    count,
    page,
    low,
    high,
    read: (entry) => {
      const record = parse(entry.id, entry.fields);
      return !match || match(record) ? record : undefined;
    },
    ...(match ? { budget: scanLimit } : {}),
    operation: 'RespireAdmin deadLetters',
  });
}

/**
 * The lowest time a matching record can have: a record is appended when its entry is
 * dead-lettered, on the server that holds the entry (its slot), so never before the entry's own ID
 * time. An entry ID from the future (an explicit ID) gives no bound.
 */
function sinceBound(f: DeadLetterFilter | undefined): number | undefined {
  const source = f?.sourceId === undefined ? undefined : Number(f.sourceId.split('-')[0]);
  const usable = source !== undefined && source <= Date.now() + 60_000 ? source : undefined;
  if (usable === undefined) return f?.sinceMs;
  return f?.sinceMs === undefined ? usable : Math.max(usable, f.sinceMs);
}

/** The filter, checked: known conditions only, each well formed. */
function toFilter(value: unknown): DeadLetterFilter {
  const f = toOptions('filter', value as DeadLetterFilter, ['reason', 'group', 'exceptionType', 'sourceId', 'sinceMs', 'untilMs']);
  const time = (name: string, v: unknown) => (v === undefined ? undefined : toCount(`filter.${name}`, v, 0, 0, Number.MAX_SAFE_INTEGER));
  const out: { -readonly [K in keyof DeadLetterFilter]: DeadLetterFilter[K] } = {};
  if (f.reason !== undefined) out.reason = toName('filter.reason', f.reason, 64);
  if (f.group !== undefined) out.group = toName('filter.group', f.group, 65_536);
  if (f.exceptionType !== undefined) out.exceptionType = toName('filter.exceptionType', f.exceptionType, 256);
  if (f.sourceId !== undefined) out.sourceId = toEntryId('filter.sourceId', f.sourceId);
  const since = time('sinceMs', f.sinceMs);
  const until = time('untilMs', f.untilMs);
  if (since !== undefined) out.sinceMs = since;
  if (until !== undefined) out.untilMs = until;
  if (since !== undefined && until !== undefined && since > until) throw new RespireValidationError('filter.untilMs', 'must not be before filter.sinceMs');
  return out;
}

/** Whether a record matches every condition of the filter. */
export function matcher(f: DeadLetterFilter): (record: DeadLetterRecord) => boolean {
  return (record) => {
    const at = Number(record.id.split('-')[0]);
    if ((f.sinceMs !== undefined && at < f.sinceMs) || (f.untilMs !== undefined && at > f.untilMs)) return false;
    if (record.kind === 'foreign') return f.reason === undefined && f.group === undefined && f.exceptionType === undefined && f.sourceId === undefined;
    if (f.sourceId !== undefined && record.sourceId !== f.sourceId) return false;
    if (record.kind === 'queue') {
      return (f.reason === undefined || f.reason === QUEUE_REASON) && (f.group === undefined || record.group === f.group) && f.exceptionType === undefined;
    }
    return (
      (f.reason === undefined || record.reason === f.reason) &&
      (f.group === undefined || record.group === f.group) &&
      (f.exceptionType === undefined || record.exceptionType === f.exceptionType)
    );
  };
}
