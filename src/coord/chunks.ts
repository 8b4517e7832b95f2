import { writeTransaction, type CoordContext } from './context';

// The one place bulk writes are cut into bounded transactions (docs/guarantees.md, "Bulk operations"): a
// chunk is at most CHUNK.rows items and stops early once it has held the write lock for CHUNK.budgetMs,
// then commits; the next chunk takes the write lock again, so a hook waiting for it is answered in between.
// Each chunk is atomic; the operation as a whole is not (a reader may see it half done, chunk by chunk).
export const CHUNK = {
  rows: 1_000,
  // Time spent on items inside one transaction before it commits: the commit itself and one last item
  // come on top, and the whole must stay well under the ~50 ms a concurrent hook can afford to wait.
  budgetMs: 20,
} as const;

// Applies `apply` to every item, in order, in as many write transactions as the budget calls for. Each
// transaction reads its own `now` (after the write lock is held); `apply` must re-check its item against
// the row as it is then, since other writers run between chunks. Returns the results `apply` kept.
export function inChunks<T, R>(ctx: CoordContext, items: readonly T[], apply: (item: T, now: number) => R | undefined, limits: { rows: number; budgetMs: number } = CHUNK): R[] {
  const results: R[] = [];
  let next = 0;
  while (next < items.length) {
    writeTransaction(ctx, (now) => {
      const started = performance.now();
      const end = Math.min(items.length, next + limits.rows);
      let i = next;
      const kept: R[] = [];
      while (i < end) {
        const result = apply(items[i]!, now);
        i++;
        if (result !== undefined) kept.push(result);
        if (performance.now() - started >= limits.budgetMs) break;
      }
      // Only after the commit: a chunk rolled back (an error thrown) is retried or reported by the caller.
      return () => {
        next = i;
        results.push(...kept);
      };
    })();
  }
  return results;
}

// Repeats a bounded statement (e.g. a DELETE of at most CHUNK.rows rows) in its own write transaction
// until it reports fewer than `rows` changes: for purges, which need no list of items first.
export function repeatInChunks(ctx: CoordContext, step: (now: number, rows: number) => number, rows: number = CHUNK.rows): number {
  let total = 0;
  for (;;) {
    const changed = writeTransaction(ctx, (now) => step(now, rows));
    total += changed;
    if (changed < rows) return total;
  }
}
