import { findGroupConflicts, type Conflict } from '../core/conflict';
import type { LockMode, LockType } from '../core/lock';
import { readTransaction, type CoordContext } from './context';
import { checkComparisons, gatherGroups, toRequests } from './reserve';

// Would a reserve by `owner` be granted now? Read-only: writes nothing, not even a conflict event, and
// takes no write lock, so its work never delays a writer. Bounded by the same limits as reserve.
export async function check(ctx: CoordContext, input: { type: LockType; patterns: string[]; owner: string; mode: LockMode }): Promise<Conflict[]> {
  const requests = toRequests(ctx, input);
  return readTransaction(ctx, async (now) => {
    const groups = await gatherGroups(ctx.db, requests, now, ctx.lockDelayMs);
    checkComparisons(requests, groups);
    return findGroupConflicts(groups, now, ctx.lockDelayMs);
  });
}
