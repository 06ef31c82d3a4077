// Shrinking a failing history: the smallest part of a recorded run that still fails the same check.

/**
 * The smallest sub-list of `items` (order kept) for which `fails` still holds, by delta debugging
 * (Zeller's ddmin): drop ever smaller chunks while the rest still fails, down to single items. The
 * result is 1-minimal: removing any one of its items makes `fails` false. `fails(items)` must hold;
 * `fails` should be cheap and pure (it is called O(n²) times at worst).
 * @param maxChecks - stop after this many calls of `fails` with what is left (it still fails).
 * @throws Error when `fails(items)` does not hold.
 */
export function shrinkFailing<T>(items: readonly T[], fails: (candidate: readonly T[]) => boolean, maxChecks = 10_000): T[] {
  if (!fails(items)) throw new Error('shrinkFailing: the whole list does not fail');
  let current = [...items];
  let chunks = 2;
  let checks = 0;
  while (current.length >= 2 && checks < maxChecks) {
    const size = Math.ceil(current.length / chunks);
    let reduced = false;
    for (let start = 0; start < current.length && checks < maxChecks; start += size) {
      const rest = [...current.slice(0, start), ...current.slice(start + size)];
      checks++;
      if (rest.length > 0 && fails(rest)) {
        current = rest;
        chunks = Math.max(chunks - 1, 2);
        reduced = true;
        break;
      }
    }
    if (reduced) continue;
    if (chunks >= current.length) break;
    chunks = Math.min(chunks * 2, current.length);
  }
  return current;
}
