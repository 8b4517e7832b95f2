import { IcError } from '../core/errors';
import type { Lock, LockType } from '../core/lock';
import { insertEvent } from '../store/events';
import { getLock, listLocks, markReleased, withoutBase, type StoredLock } from '../store/locks';
import { writeTransaction, type CoordContext } from './context';

export interface ReleaseInput {
  ids: string[];
  owner: string | undefined;
  /** Canonical pattern (file) to release by. */
  pattern?: string;
  type?: LockType;
  all: boolean;
  force: boolean;
  reason: string | null;
  /** How the release is recorded when it is not forced: `released`, or e.g. `session_end`. */
  releaseReason?: string;
}

export type NotReleasedWhy = 'not_found' | 'not_owner' | 'already_released';

export interface ReleaseResult {
  released: Lock[];
  not_released: { id: string; why: NotReleasedWhy }[];
}

// Releases what was asked for: only the owner's own locks, unless --force, which is audited as force_released.
export function release(ctx: CoordContext, input: ReleaseInput): ReleaseResult {
  if (input.ids.length === 0 && input.pattern === undefined && !input.all) {
    throw new IcError('USAGE', 'say what to release: lock IDs, --pattern P or --all', { hint: 'Try: coord release --all --owner alice' });
  }
  if (!input.owner && (!input.force || input.all)) {
    throw new IcError('USAGE', 'an owner is required: pass --owner NAME or set IC_OWNER (only --force works without one, and not with --all)');
  }
  return writeTransaction(ctx, (now) => {
    const result: ReleaseResult = { released: [], not_released: [] };
    const releaseOne = (lock: StoredLock) => {
      const forced = lock.owner !== input.owner;
      const why = forced ? 'force_released' : (input.releaseReason ?? 'released');
      if (!markReleased(ctx.db, lock.seq, now, why)) return false;
      insertEvent(ctx.db, {
        type: forced ? 'force_released' : 'released',
        lock_id: lock.id,
        scope: lock.scope,
        owner: lock.owner,
        pattern: lock.pattern,
        reason: input.reason,
        created_at: now,
        detail: forced ? { by: input.owner ?? null } : null,
      });
      result.released.push(withoutBase({ ...lock, released_at: now, release_reason: why }));
      return true;
    };
    for (const id of new Set(input.ids)) {
      const lock = getLock(ctx.db, id);
      if (!lock) result.not_released.push({ id, why: 'not_found' });
      else if (lock.released_at !== null) result.not_released.push({ id, why: 'already_released' });
      else if (lock.owner !== input.owner && !input.force) result.not_released.push({ id, why: 'not_owner' });
      else releaseOne(lock);
    }
    if (input.pattern !== undefined || input.all) {
      // --force with a pattern takes whoever holds it; --all is always the owner's own locks.
      const owner = input.force && !input.all ? undefined : input.owner;
      const byPattern = listLocks(ctx.db, { scope: ctx.scope, owner, pattern: input.pattern, type: input.type, unreleased: true });
      for (const lock of byPattern) if (!result.released.some((done) => done.id === lock.id)) releaseOne(lock);
    }
    return result;
  });
}
