// The fake server's sorted sets.
/** One member of a sorted set. */
export interface ZMember {
  readonly member: string;
  readonly score: number;
}

/** Redis's order: by score, then bytewise by member (latin1 strings compare bytewise). */
export function compareMembers(a: ZMember, b: ZMember): number {
  if (a.score !== b.score) return a.score < b.score ? -1 : 1;
  return a.member < b.member ? -1 : a.member > b.member ? 1 : 0;
}

/**
 * A chunk holds at most this many members. A flat sorted array made every insert an O(n)
 * splice (the queue's deadlines set grows by 10 per receive); chunks keep it O(log n + CHUNK).
 */
const CHUNK = 256;

/**
 * A sorted set: members ordered by score, then bytewise by member, as Redis orders them.
 * Stored as a list of sorted, non-empty chunks (a flat B-tree of height 2) plus a score map.
 */
export class SortedSet {
  private readonly scores = new Map<string, number>();
  private readonly chunks: ZMember[][] = [];

  get size(): number {
    return this.scores.size;
  }

  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  /** Adds or updates a member; returns true when it was new. */
  set(member: string, score: number): boolean {
    const old = this.scores.get(member);
    if (old !== undefined) {
      if (old === score) return false;
      this.remove({ member, score: old });
    }
    this.scores.set(member, score);
    this.insert({ member, score });
    return old === undefined;
  }

  delete(member: string): boolean {
    const old = this.scores.get(member);
    if (old === undefined) return false;
    this.scores.delete(member);
    this.remove({ member, score: old });
    return true;
  }

  /** Members from rank `start` to `stop` inclusive (already clamped, non-negative). */
  byRank(start: number, stop: number): ZMember[] {
    const out: ZMember[] = [];
    let base = 0;
    for (const chunk of this.chunks) {
      if (base > stop) break;
      const end = base + chunk.length;
      if (end > start) {
        for (let i = Math.max(0, start - base); i < chunk.length && base + i <= stop; i++) out.push(chunk[i]!);
      }
      base = end;
    }
    return out;
  }

  /** Members whose score lies within the bounds, in order; at most `limit` of them. */
  byScore(min: number, minExclusive: boolean, max: number, maxExclusive: boolean, limit = Infinity): ZMember[] {
    const out: ZMember[] = [];
    if (limit <= 0) return out;
    // First chunk whose last member reaches the lower bound, then the first such member in it.
    const below = (e: ZMember) => e.score < min || (minExclusive && e.score === min);
    let c = this.firstChunk((last) => !below(last));
    let i = c < this.chunks.length ? lowerIndex(this.chunks[c]!, (e) => !below(e)) : 0;
    for (; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c]!;
      for (; i < chunk.length; i++) {
        const entry = chunk[i]!;
        if (entry.score > max || (maxExclusive && entry.score === max)) return out;
        out.push(entry);
        if (out.length >= limit) return out;
      }
    }
    return out;
  }

  /** Members whose name lies within lexicographic bounds (`null` = unbounded). */
  byLex(min: string | null, minExclusive: boolean, max: string | null, maxExclusive: boolean): ZMember[] {
    const out: ZMember[] = [];
    for (const chunk of this.chunks) {
      for (const e of chunk) {
        if (min !== null && (e.member < min || (minExclusive && e.member === min))) continue;
        if (max !== null && (e.member > max || (maxExclusive && e.member === max))) continue;
        out.push(e);
      }
    }
    return out;
  }

  rank(member: string): number | undefined {
    const score = this.scores.get(member);
    if (score === undefined) return undefined;
    const entry = { member, score };
    const c = this.firstChunk((last) => compareMembers(last, entry) >= 0);
    let base = 0;
    for (let k = 0; k < c; k++) base += this.chunks[k]!.length;
    return base + lowerIndex(this.chunks[c]!, (e) => compareMembers(e, entry) >= 0);
  }

  /** Every member in order (a new array). */
  all(): readonly ZMember[] {
    return this.chunks.flat();
  }

  /** Index of the first chunk whose last member satisfies `reached` (monotone); chunks.length if none. */
  private firstChunk(reached: (last: ZMember) => boolean): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid]!;
      if (reached(chunk[chunk.length - 1]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private insert(entry: ZMember): void {
    if (this.chunks.length === 0) {
      this.chunks.push([entry]);
      return;
    }
    // The first chunk that ends at or after `entry`, or the last chunk when `entry` is the largest.
    const c = Math.min(
      this.firstChunk((last) => compareMembers(last, entry) >= 0),
      this.chunks.length - 1,
    );
    const chunk = this.chunks[c]!;
    chunk.splice(
      lowerIndex(chunk, (e) => compareMembers(e, entry) >= 0),
      0,
      entry,
    );
    if (chunk.length > 2 * CHUNK) this.chunks.splice(c + 1, 0, chunk.splice(CHUNK));
  }

  private remove(entry: ZMember): void {
    const c = this.firstChunk((last) => compareMembers(last, entry) >= 0);
    const chunk = this.chunks[c]!;
    chunk.splice(
      lowerIndex(chunk, (e) => compareMembers(e, entry) >= 0),
      1,
    );
    if (chunk.length === 0) this.chunks.splice(c, 1);
    else if (chunk.length < CHUNK / 4) {
      // Merge a shrunken chunk into its successor so deletions cannot leave many tiny chunks.
      const next = this.chunks[c + 1];
      if (next && chunk.length + next.length <= CHUNK) {
        next.unshift(...chunk);
        this.chunks.splice(c, 1);
      }
    }
  }
}

/** Index of the first element satisfying `reached` (monotone over the sorted array). */
function lowerIndex(items: readonly ZMember[], reached: (e: ZMember) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (reached(items[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
