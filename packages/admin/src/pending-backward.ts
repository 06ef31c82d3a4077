// The PEL read backwards: XPENDING only reads forward, so the page before a cursor (or the last page) is found by search.

/** A stream entry ID as two unsigned 64-bit parts. */
interface Id {
  readonly ms: bigint;
  readonly seq: bigint;
}

const MAX_PART = 2n ** 64n - 1n;
const parse = (id: string): Id => {
  const [ms, seq] = id.split('-');
  return { ms: BigInt(ms!), seq: BigInt(seq!) };
};
const format = (id: Id) => `${id.ms}-${id.seq}`;

/**
 * Reads rows of the PEL from `start` (inclusive) up to the search's end, at most `count` of them:
 * one bounded XPENDING (with the caller's IDLE and consumer filters).
 */
export type PendingProbe<R> = (start: string, count: number) => Promise<R[]>;

/**
 * The last `count` pending rows before `end` (exclusive; undefined: the last page, `top` then
 * being an ID no pending entry is above, such as the group's last-delivered-id), in ascending
 * order, and whether any row comes before them.
 *
 * XPENDING has no reverse form, so the page's first ID is found by galloping down from the end
 * and bisecting, on the entry ID's time and then its sequence number: the number of rows from a
 * start to the end (capped at `count`) can only shrink as the start grows. Each step is one
 * XPENDING with COUNT `count`; a page near the end takes a few steps, a page far back about 2 ×
 * log2 of the distance in milliseconds (under 90 for any realistic ID).
 */
export async function pendingBefore<R extends { readonly id: string }>(
  probe: PendingProbe<R>,
  count: number,
  end: string | undefined,
  top: string,
): Promise<{ rows: R[]; more: boolean }> {
  const all = await probe('-', count);
  if (all.length < count) return { rows: all, more: false };
  const limit = parse(end ?? top);
  // Whether at least `count` rows lie in [start, end).
  const full = async (start: Id) => (await probe(format(start), count)).length >= count;

  // The greatest millisecond m whose rows from m-0 to the end are at least `count`; full(0-0) holds.
  let lo = 0n;
  let hi = limit.ms + 1n; // nothing lies in [(end.ms + 1)-0, end)
  for (let step = 1n; ; step *= 2n) {
    const candidate = hi - step;
    if (candidate <= lo) break;
    if (await full({ ms: candidate, seq: 0n })) {
      lo = candidate;
      break;
    }
    hi = candidate;
  }
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (await full({ ms: mid, seq: 0n })) lo = mid;
    else hi = mid;
  }
  const ms = lo;

  // Within that millisecond, the greatest sequence number s with the same property.
  let sLo = 0n;
  let bound: bigint | undefined = end !== undefined && ms === limit.ms ? limit.seq : undefined;
  for (let step = 1n; bound === undefined; step *= 2n) {
    const candidate = sLo + step;
    if (candidate > MAX_PART) bound = MAX_PART + 1n;
    else if (await full({ ms, seq: candidate })) sLo = candidate;
    else bound = candidate;
  }
  let sHi: bigint = bound;
  while (sHi - sLo > 1n) {
    const mid: bigint = (sLo + sHi) / 2n;
    if (await full({ ms, seq: mid })) sLo = mid;
    else sHi = mid;
  }
  const rows = await probe(format({ ms, seq: sLo }), count);
  // Rows come before the page unless it begins where the whole PEL (with these filters) begins.
  return { rows, more: rows[0]?.id !== all[0]?.id };
}
