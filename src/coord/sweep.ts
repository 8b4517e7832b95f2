import { purgeEvents } from '../store/events';
import { listLapsed, purgeReleased } from '../store/locks';
import { writeTransaction, type CoordContext } from './context';
import { expireLock } from './reserve';
import { allLastActivity } from '../store/activity';
import { indexDirOf, sweepIndexFiles } from './private-index';

export interface SweepResult {
  expired: number;
  purged_locks: number;
  purged_events: number;
  /** Private staging areas (git index files) of sessions idle for 24 h, deleted (README, "Private staging areas"). */
  index_files: number;
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
        index_files: sweepIndexes(ctx, now, input.dryRun),
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

// The cleanup loop of private indexes: a session that ended without its SessionEnd hook leaves its index
// behind; after 24 h with no write to it and no event of its owner, it goes.
function sweepIndexes(ctx: CoordContext, now: number, dryRun: boolean): number {
  const dir = indexDirOf(ctx.cwd);
  if (dir === undefined) return 0;
  const activity = allLastActivity(ctx.db);
  return sweepIndexFiles(dir, now, (owner) => activity.get(owner), dryRun).length;
}
