// "Not found": a resource, queue, stream or consumer group that does not exist, with the names that do.
import { RespireValidationError, isRespireError } from './redis.js';

/** What was not found. */
export type NotFoundKind = 'resource' | 'queue' | 'stream' | 'group';

/** What a not-found error says: what was asked for, and the nearest names that do exist. */
export interface NotFoundDetail {
  readonly kind: NotFoundKind;
  /** The name or id that was asked for. */
  readonly name: string;
  /** Names of that kind that do exist, nearest first (at most {@link MAX_SUGGESTIONS}). */
  readonly known: readonly string[];
}

/** At most this many existing names are suggested. */
export const MAX_SUGGESTIONS = 5;

/**
 * A name that names nothing: a mistyped queue, stream or consumer group. Still a
 * `RespireValidationError` (code `INVALID_ARGUMENT`, `argument` = the kind) so that callers that
 * catch those keep working; {@link isNotFound} tells it apart and `notFound` has the details.
 */
export class RespireNotFoundError extends RespireValidationError {
  readonly notFound: NotFoundDetail;

  constructor(detail: NotFoundDetail, message: string) {
    super(detail.kind, message + hint(detail.known));
    this.notFound = detail;
  }
}

function hint(known: readonly string[]): string {
  if (known.length === 0) return '';
  return `; nearest that exist: ${known.map((k) => `'${k.length > 80 ? `${k.slice(0, 80)}…` : k}'`).join(', ')}`;
}

/**
 * The details when `error` says that something does not exist (an unknown resource id, a queue
 * with no keys, a missing stream or consumer group), else undefined. Reads fields rather than
 * using `instanceof`, so it holds across two installed copies of the package.
 *
 * @example
 * ```ts
 * try {
 *   await admin.pending(id, 'fulfilment');
 * } catch (error) {
 *   const missing = isNotFound(error);
 *   if (missing) console.error(`no group ${missing.name}; groups: ${missing.known.join(', ')}`);
 * }
 * ```
 */
export function isNotFound(error: unknown): NotFoundDetail | undefined {
  if (!isRespireError(error, 'INVALID_ARGUMENT')) return undefined;
  const detail = (error as { notFound?: unknown }).notFound;
  if (typeof detail !== 'object' || detail === null) return undefined;
  const { kind, name, known } = detail as Partial<NotFoundDetail>;
  if (typeof kind !== 'string' || typeof name !== 'string' || !Array.isArray(known)) return undefined;
  return { kind: kind as NotFoundKind, name, known };
}

/**
 * The names of `candidates` nearest to `name`, nearest first, at most {@link MAX_SUGGESTIONS}: by
 * edit distance of their first 64 characters (case-insensitive), ties in the candidates' order.
 * Names further than half their length away are left out, unless none is that near: then the
 * first candidates, so that a hint still names some that exist.
 */
export function nearest(name: string, candidates: Iterable<string>, limit = MAX_SUGGESTIONS): string[] {
  const wanted = name.slice(0, 64).toLowerCase();
  const scored: [number, number, string][] = [];
  const all: string[] = [];
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const d = distance(wanted, candidate.slice(0, 64).toLowerCase());
    if (d <= Math.max(2, Math.ceil(Math.max(wanted.length, Math.min(candidate.length, 64)) / 2))) scored.push([d, all.length, candidate]);
    all.push(candidate);
  }
  if (scored.length === 0) return all.slice(0, limit);
  return scored
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .slice(0, limit)
    .map(([, , c]) => c);
}

/** Levenshtein distance (two rows). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
