/** One member of a sorted set. */
export interface ZMember {
  readonly member: string;
  readonly score: number;
}

function compare(a: ZMember, b: ZMember): number {
  if (a.score !== b.score) return a.score < b.score ? -1 : 1;
  return a.member < b.member ? -1 : a.member > b.member ? 1 : 0;
}

/** A sorted set: members ordered by score, then bytewise by member, as Redis orders them. */
export class SortedSet {
  private readonly scores = new Map<string, number>();
  private readonly ordered: ZMember[] = [];

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
      this.ordered.splice(this.indexOf({ member, score: old }), 1);
    }
    this.scores.set(member, score);
    const entry = { member, score };
    this.ordered.splice(this.lowerBound(entry), 0, entry);
    return old === undefined;
  }

  delete(member: string): boolean {
    const old = this.scores.get(member);
    if (old === undefined) return false;
    this.scores.delete(member);
    this.ordered.splice(this.indexOf({ member, score: old }), 1);
    return true;
  }

  /** Members from rank `start` to `stop` inclusive (already clamped, non-negative). */
  byRank(start: number, stop: number): ZMember[] {
    return this.ordered.slice(start, stop + 1);
  }

  /** Members whose score lies within the bounds, in order. */
  byScore(min: number, minExclusive: boolean, max: number, maxExclusive: boolean): ZMember[] {
    const out: ZMember[] = [];
    for (const entry of this.ordered) {
      if (entry.score < min || (minExclusive && entry.score === min)) continue;
      if (entry.score > max || (maxExclusive && entry.score === max)) break;
      out.push(entry);
    }
    return out;
  }

  /** Members whose name lies within lexicographic bounds (`null` = unbounded). */
  byLex(min: string | null, minExclusive: boolean, max: string | null, maxExclusive: boolean): ZMember[] {
    return this.ordered.filter((e) => {
      if (min !== null && (e.member < min || (minExclusive && e.member === min))) return false;
      if (max !== null && (e.member > max || (maxExclusive && e.member === max))) return false;
      return true;
    });
  }

  rank(member: string): number | undefined {
    const score = this.scores.get(member);
    return score === undefined ? undefined : this.indexOf({ member, score });
  }

  all(): readonly ZMember[] {
    return this.ordered;
  }

  private lowerBound(entry: ZMember): number {
    let lo = 0;
    let hi = this.ordered.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.ordered[mid]!, entry) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private indexOf(entry: ZMember): number {
    return this.lowerBound(entry);
  }
}
