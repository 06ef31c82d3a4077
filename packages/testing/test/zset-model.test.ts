// The fake server's sorted sets against a simple model.
import { describe, expect, it } from 'vitest';
import { SortedSet, compareMembers, type ZMember } from '../src/zset-model.js';

/** The obvious model: a map and a full sort on every read. */
class NaiveSet {
  readonly scores = new Map<string, number>();
  sorted(): ZMember[] {
    return [...this.scores].map(([member, score]) => ({ member, score })).sort(compareMembers);
  }
}

/** A deterministic PRNG so failures reproduce. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function expectSame(set: SortedSet, naive: NaiveSet): void {
  const sorted = naive.sorted();
  expect(set.size).toBe(sorted.length);
  expect(set.all()).toEqual(sorted);
}

describe('SortedSet', () => {
  it('is empty at first', () => {
    const set = new SortedSet();
    expect(set.size).toBe(0);
    expect(set.all()).toEqual([]);
    expect(set.byRank(0, 10)).toEqual([]);
    expect(set.byScore(-Infinity, false, Infinity, false)).toEqual([]);
    expect(set.byLex(null, false, null, false)).toEqual([]);
    expect(set.rank('a')).toBeUndefined();
    expect(set.delete('a')).toBe(false);
  });

  it('orders equal scores bytewise by member and reports new members only once', () => {
    const set = new SortedSet();
    expect(set.set('b', 1)).toBe(true);
    expect(set.set('a', 1)).toBe(true);
    expect(set.set('\u00ff', 1)).toBe(true);
    expect(set.set('a', 1)).toBe(false);
    expect(set.set('c', 0)).toBe(true);
    expect(set.all().map((m) => m.member)).toEqual(['c', 'a', 'b', '\u00ff']);
    expect(set.set('c', 2)).toBe(false); // moved, not new
    expect(set.all().map((m) => m.member)).toEqual(['a', 'b', '\u00ff', 'c']);
    expect(set.rank('c')).toBe(3);
  });

  it('honours exclusive and infinite score bounds and the limit', () => {
    const set = new SortedSet();
    for (const [m, s] of [
      ['n', -Infinity],
      ['a', 1],
      ['b', 2],
      ['c', 2],
      ['d', 3],
      ['p', Infinity],
    ] as const)
      set.set(m, s);
    const names = (ms: ZMember[]) => ms.map((m) => m.member);
    expect(names(set.byScore(2, false, 2, false))).toEqual(['b', 'c']);
    expect(names(set.byScore(2, true, 3, false))).toEqual(['d']);
    expect(names(set.byScore(1, false, 3, true))).toEqual(['a', 'b', 'c']);
    expect(names(set.byScore(-Infinity, false, Infinity, false))).toEqual(['n', 'a', 'b', 'c', 'd', 'p']);
    expect(names(set.byScore(-Infinity, true, Infinity, true))).toEqual(['a', 'b', 'c', 'd']);
    expect(names(set.byScore(1, false, 3, false, 2))).toEqual(['a', 'b']);
    expect(set.byScore(1, false, 3, false, 0)).toEqual([]);
    expect(set.byScore(4, false, 1, false)).toEqual([]);
  });

  it('matches a naive model through many inserts, moves and deletes across chunk splits and merges', () => {
    const random = prng(42);
    const set = new SortedSet();
    const naive = new NaiveSet();
    const member = () => `m${Math.floor(random() * 3000)}`;
    for (let step = 0; step < 20_000; step++) {
      const r = random();
      const name = member();
      if (r < 0.6) {
        const score = Math.floor(random() * 50); // many ties: ordering by member matters
        expect(set.set(name, score)).toBe(!naive.scores.has(name));
        naive.scores.set(name, score);
      } else {
        expect(set.delete(name)).toBe(naive.scores.delete(name));
      }
      if (step % 2000 === 0) expectSame(set, naive);
    }
    expectSame(set, naive);
    const sorted = naive.sorted();
    for (let i = 0; i < 200; i++) {
      const a = Math.floor(random() * (sorted.length + 5));
      const b = a + Math.floor(random() * 700);
      expect(set.byRank(a, b)).toEqual(sorted.slice(a, b + 1));
      const lo = Math.floor(random() * 50);
      const hi = lo + Math.floor(random() * 10);
      const loEx = random() < 0.5;
      const hiEx = random() < 0.5;
      expect(set.byScore(lo, loEx, hi, hiEx)).toEqual(sorted.filter((m) => (loEx ? m.score > lo : m.score >= lo) && (hiEx ? m.score < hi : m.score <= hi)));
      const probe = sorted[Math.floor(random() * sorted.length)];
      if (probe) expect(set.rank(probe.member)).toBe(sorted.indexOf(probe));
    }
    // Drain it completely, in a random order.
    for (const m of sorted.map((x) => x.member).sort(() => random() - 0.5)) expect(set.delete(m)).toBe(true);
    expect(set.size).toBe(0);
    expect(set.all()).toEqual([]);
  });

  it('stays correct when thinning leaves small chunks that merge', () => {
    const random = prng(7);
    const set = new SortedSet();
    const naive = new NaiveSet();
    for (let i = 0; i < 4000; i++) {
      set.set(`k${i}`, i % 97);
      naive.scores.set(`k${i}`, i % 97);
    }
    for (let i = 0; i < 4000; i++) {
      if (random() < 0.9) {
        set.delete(`k${i}`);
        naive.scores.delete(`k${i}`);
      }
    }
    expectSame(set, naive);
    const sorted = naive.sorted();
    sorted.forEach((m, i) => expect(set.rank(m.member)).toBe(i));
    expect(set.byRank(100, 150)).toEqual(sorted.slice(100, 151));
  });

  it('keeps appends at the end and deletes from the head cheap and correct (queue pattern)', () => {
    const set = new SortedSet();
    for (let i = 0; i < 5000; i++) set.set(`id-${String(i).padStart(5, '0')}`, 1000 + i);
    for (let i = 0; i < 4990; i++) expect(set.delete(`id-${String(i).padStart(5, '0')}`)).toBe(true);
    expect(set.all().map((m) => m.score)).toEqual([5990, 5991, 5992, 5993, 5994, 5995, 5996, 5997, 5998, 5999]);
    expect(set.byRank(0, 0)[0]!.member).toBe('id-04990');
    expect(set.rank('id-04999')).toBe(9);
  });
});
