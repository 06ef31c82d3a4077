// Pages of a stream in either order, from either end, with an optional filter read under a budget.
import type { PageOptions } from './api.js';
import type { AdminContext } from './context.js';
import { RespireValidationError, parseEntries } from './redis.js';
import { nextEntryId, previousEntryId, toEntryId } from './validate.js';

/** The greatest entry ID part. */
const MAX_PART = '18446744073709551615';
/** Entries read per command while a filter searches (each XRANGE / XREVRANGE carries COUNT). */
const SEARCH_CHUNK = 1000;

export type Entry = { id: string; fields: [Buffer, Buffer][] };

/** Which page of a stream, in which order, over which ID range (both ends inclusive). */
export interface StreamPageRequest<T> {
  readonly key: string;
  readonly order: 'oldest' | 'newest';
  readonly count: number;
  readonly page: PagePosition;
  /** Lowest ID to read (inclusive). @defaultValue '-' */
  readonly low?: string;
  /** Highest ID to read (inclusive). @defaultValue '+' */
  readonly high?: string;
  /** Entry → row; undefined leaves the entry out (a filter). */
  readonly read: (entry: Entry) => T | undefined;
  /** Entries read at most when `read` filters (it is then a search). */
  readonly budget?: number;
  readonly operation: string;
}

/** Where a page starts: the first, after a cursor, before a cursor, or the last. */
export type PagePosition =
  { readonly at: 'first' } | { readonly at: 'after'; readonly id: string } | { readonly at: 'before'; readonly id: string } | { readonly at: 'last' };

/** The page position that `options` ask for (cursor, before, last: at most one). */
export function pagePosition(options: PageOptions): PagePosition {
  const given = [options.cursor !== undefined, options.before !== undefined, options.last === true].filter(Boolean).length;
  if (given > 1) throw new RespireValidationError('options', 'give at most one of cursor, before and last');
  if (options.last !== undefined && typeof options.last !== 'boolean') throw new RespireValidationError('last', 'must be a boolean');
  if (options.cursor !== undefined) return { at: 'after', id: toEntryId('cursor', options.cursor) };
  if (options.before !== undefined) return { at: 'before', id: toEntryId('before', options.before) };
  return options.last ? { at: 'last' } : { at: 'first' };
}

/** A page of rows with its cursors, and how many entries were read to make it. */
export interface StreamPage<T> {
  readonly items: T[];
  readonly next: string | undefined;
  readonly previous: string | undefined;
  readonly scanned: number;
  readonly complete: boolean;
}

/**
 * Reads one page. In page order, "forward" from the first page to the last is ascending IDs for
 * `oldest` and descending for `newest`; a page before a cursor or the last page is read
 * backwards and turned around. Every command carries COUNT; with a filter at most `budget`
 * entries are read, and an incomplete page's cursor continues from the last entry read.
 */
export async function readStreamPage<T>(ctx: AdminContext, r: StreamPageRequest<T>): Promise<StreamPage<T>> {
  const forwardAscending = r.order === 'oldest';
  // Backwards pages (before a cursor, the last page) walk against the page order.
  const backwards = r.page.at === 'before' || r.page.at === 'last';
  const ascending = forwardAscending !== backwards;
  const from = r.page.at === 'after' || r.page.at === 'before' ? r.page.id : undefined;
  const found = await scan(ctx, r, ascending, from);
  const rows = found.rows.slice(0, r.count);
  const more = found.rows.length > r.count || !found.complete;
  // The cursor that continues in the reading direction: the last row shown, or the last entry read.
  const onward = found.rows.length > r.count ? found.lastRowId(r.count - 1) : found.lastRead;
  const started = from !== undefined;
  if (!backwards) {
    return {
      items: rows,
      next: more ? onward : undefined,
      previous: started ? (found.firstRowId ?? from) : undefined,
      scanned: found.scanned,
      complete: found.complete,
    };
  }
  rows.reverse();
  return {
    items: rows,
    next: r.page.at === 'before' ? (found.firstRowId ?? from) : undefined,
    previous: more ? onward : undefined,
    scanned: found.scanned,
    complete: found.complete,
  };
}

interface Scan<T> {
  rows: T[];
  /** The ID of the row at an index. */
  lastRowId(index: number): string | undefined;
  firstRowId: string | undefined;
  /** The last entry read (a cursor that resumes a search). */
  lastRead: string | undefined;
  scanned: number;
  /** False when the budget ran out before the page was full (plus one) or the range ended. */
  complete: boolean;
}

/** Reads up to count + 1 rows in one direction, strictly past `from`. */
async function scan<T>(ctx: AdminContext, r: StreamPageRequest<T>, ascending: boolean, from: string | undefined): Promise<Scan<T>> {
  const low = r.low ?? '-';
  const high = r.high ?? '+';
  const filtering = r.budget !== undefined;
  const want = r.count + 1;
  const rows: T[] = [];
  const ids: string[] = [];
  let cursor = from;
  let scanned = 0;
  let lastRead: string | undefined;
  let ended = false;
  while (rows.length < want) {
    const limit = filtering ? Math.min(SEARCH_CHUNK, r.budget! - scanned) : want;
    if (limit <= 0) break;
    const start = cursor === undefined ? (ascending ? low : high) : ascending ? nextEntryId(cursor) : previousEntryId(cursor);
    if (start === undefined) {
      ended = true;
      break;
    }
    const args = ascending ? ['XRANGE', r.key, start, high, 'COUNT', String(limit)] : ['XREVRANGE', r.key, start, low, 'COUNT', String(limit)];
    const entries: Entry[] = parseEntries(await ctx.redis.send(r.key, args, r.operation, true));
    scanned += entries.length;
    for (const entry of entries) {
      lastRead = entry.id;
      const row = r.read(entry);
      if (row !== undefined && rows.length < want) {
        rows.push(row);
        ids.push(entry.id);
        // A filtered search stops reading once it has a full page plus one.
        if (filtering && rows.length === want) {
          lastRead = entry.id;
          break;
        }
      }
    }
    if (entries.length < limit) {
      ended = true;
      break;
    }
    cursor = entries[entries.length - 1]!.id;
    if (!filtering) break;
  }
  return {
    rows,
    lastRowId: (index) => ids[index],
    firstRowId: ids[0],
    lastRead,
    scanned,
    complete: ended || rows.length >= want || !filtering,
  };
}

/** The inclusive ID range of a time range in ms (either end optional). */
export function idRange(sinceMs: number | undefined, untilMs: number | undefined): { low: string; high: string } {
  return { low: sinceMs === undefined ? '-' : `${sinceMs}-0`, high: untilMs === undefined ? '+' : `${untilMs}-${MAX_PART}` };
}
