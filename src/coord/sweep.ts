import { countEventsBefore, purgeEvents } from '../store/events';
import { countReleasedBefore, listLapsed, purgeReleased } from '../store/locks';
import { writeTransaction, type CoordContext } from './context';
import { expireLock } from './reserve';

export interface SweepResult {
  expired: number;
  purged_locks: number;
  purged_events: number;
  dry_run: boolean;
}

// Marks lapsed locks expired (one event each, however many sweeps race: the UPDATE only takes unreleased
// rows) and, with olderThanMs, deletes released locks and events older than that.
export function sweep(ctx: CoordContext, input: { olderThanMs?: number; dryRun: boolean }): SweepResult {
  return writeTransaction(ctx, (now) => {
    const lapsed = listLapsed(ctx.db, now);
    const cutoff = input.olderThanMs !== undefined ? now - input.olderThanMs : undefined;
    if (input.dryRun) {
      return {
        expired: lapsed.length,
        purged_locks: cutoff === undefined ? 0 : countReleasedBefore(ctx.db, cutoff),
        purged_events: cutoff === undefined ? 0 : countEventsBefore(ctx.db, cutoff),
        dry_run: true,
      };
    }
    let expired = 0;
    for (const lock of lapsed) if (expireLock(ctx, lock, now)) expired++;
    return {
      expired,
      purged_locks: cutoff === undefined ? 0 : purgeReleased(ctx.db, cutoff),
      purged_events: cutoff === undefined ? 0 : purgeEvents(ctx.db, cutoff),
      dry_run: false,
    };
  });
}
