import { findConflicts, type Conflict } from '../core/conflict';
import type { LockMode, LockType } from '../core/lock';
import { readTransaction, type CoordContext } from './context';
import { gatherCandidates, toRequests } from './reserve';

// Would a reserve by `owner` be granted now? Read-only: writes nothing, not even a conflict event.
export function check(ctx: CoordContext, input: { type: LockType; patterns: string[]; owner: string; mode: LockMode }): Conflict[] {
  const requests = toRequests(ctx, input);
  return readTransaction(ctx, (now) => findConflicts(requests, gatherCandidates(ctx.db, requests, now, ctx.lockDelayMs), now, ctx.lockDelayMs));
}
