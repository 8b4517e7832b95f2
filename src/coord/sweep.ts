import { purgeEvents } from '../store/events';
import { listLapsed, purgeReleased } from '../store/locks';
import { writeTransaction, type CoordContext } from './context';
import { expireLock } from './reserve';

export interface SweepResult {
  expired: number;
  purged_locks: number;
  purged_events: number;
  dry_run: boolean;
}

// Needs no owner (core/authority.ts): it changes only what time has already ended.
// Marks lapsed locks expired (one event each, however many sweeps race: the UPDATE only takes unreleased
// rows) and, with olderThanMs, deletes released locks and events older than that. A dry run does all of
// it inside a savepoint and rolls it back, so its counts are the real run's by construction (expiring
// locks writes events, which changes which event is the newest and so kept).
export function sweep(ctx: CoordContext, input: { olderThanMs?: number; dryRun: boolean }): SweepResult {
  return writeTransaction(ctx, (now) => {
    const apply = (): SweepResult => {
      const cutoff = input.olderThanMs !== undefined ? now - input.olderThanMs : undefined;
      let expired = 0;
      for (const lock of listLapsed(ctx.db, now)) if (expireLock(ctx, lock, now)) expired++;
      return {
        expired,
        purged_locks: cutoff === undefined ? 0 : purgeReleased(ctx.db, cutoff),
        purged_events: cutoff === undefined ? 0 : purgeEvents(ctx.db, cutoff),
        dry_run: input.dryRun,
      };
    };
    if (!input.dryRun) return apply();
    let counted: SweepResult | undefined;
    try {
      ctx.db.transaction(() => {
        counted = apply();
        throw ROLL_BACK;
      })();
    } catch (error) {
      if (error !== ROLL_BACK) throw error;
    }
    return counted!;
  });
}

const ROLL_BACK = Symbol('roll back the dry run');
