import { checkpointPassive, pauseAutoCheckpoint } from '../store/checkpoint';
import { monotonicMs } from '../store/clock';
import { blockingSleep } from './wait';
import { writeTransaction, type CoordContext } from './context';
import type { WriteScope } from '../store/connection';

// The one place bulk writes are cut into bounded transactions (docs/guarantees.md, "Bulk operations"): a
// chunk is at most CHUNK.rows items and stops early once it has held the write lock for CHUNK.budgetMs,
// then commits; the next chunk takes the write lock again, so a hook waiting for it is answered in between.
// Each chunk is atomic; the operation as a whole is not (a reader may see it half done, chunk by chunk).
export const CHUNK = {
  rows: 1_000,
  // Time spent on items inside one transaction before it commits: the commit itself and one last item
  // come on top, and the whole must stay well under the ~50 ms a concurrent hook can afford to wait.
  budgetMs: 15,
  // Past this many items, the WAL is checkpointed between chunks rather than inside a chunk's commit.
  manualCheckpointFrom: 100,
  // A pause with the write lock free between chunks, longer than a waiting writer's poll (1 ms,
  // store/sqlite-connection.ts), so a hook waiting for the lock always gets it before the next chunk.
  yieldMs: 3,
} as const;

// Applies `apply` to every item, in order, in as many write transactions as the budget calls for. Each
// transaction reads its own `now` (after the write lock is held); `apply` must re-check its item against
// the row as it is then, since other writers run between chunks. Returns the results `apply` kept.
// `scope`: what every chunk may change (context.ts, writeTransaction).
export async function inChunks<T, R>(ctx: CoordContext, scope: WriteScope, items: readonly T[], apply: (item: T, now: number) => Promise<R | undefined>): Promise<R[]> {
  const results: R[] = [];
  const bulk = items.length >= CHUNK.manualCheckpointFrom;
  const resume = bulk ? pauseAutoCheckpoint(ctx.db) : undefined;
  try {
    let next = 0;
    while (next < items.length) {
      // One write transaction from item `next` on; its results count only once it has committed.
      const chunk = await writeTransaction(ctx, scope, async (now) => {
        const started = monotonicMs();
        const end = Math.min(items.length, next + CHUNK.rows);
        const kept: R[] = [];
        let i = next;
        while (i < end) {
          const result = await apply(items[i]!, now);
          i++;
          if (result !== undefined) kept.push(result);
          if (monotonicMs() - started >= CHUNK.budgetMs) break;
        }
        return { next: i, kept };
      });
      results.push(...chunk.kept);
      next = chunk.next;
      if (bulk) checkpointPassive(ctx.db);
      if (next < items.length) blockingSleep(CHUNK.yieldMs);
    }
  } finally {
    resume?.();
  }
  return results;
}

// Repeats a bounded statement (e.g. a DELETE of at most `rows` rows) in its own write transaction until it
// reports fewer than `rows` changes: for purges, which need no list of items first.
export async function repeatInChunks(ctx: CoordContext, scope: WriteScope, step: (now: number, rows: number) => Promise<number>, rows: number = CHUNK.rows / 4): Promise<number> {
  const resume = pauseAutoCheckpoint(ctx.db);
  try {
    let total = 0;
    for (;;) {
      const changed = await writeTransaction(ctx, scope, (now) => step(now, rows));
      total += changed;
      if (changed < rows) return total;
      checkpointPassive(ctx.db);
      blockingSleep(CHUNK.yieldMs);
    }
  } finally {
    resume();
  }
}
