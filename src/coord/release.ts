import { mayChange } from '../core/authority';
import { IcError } from '../core/errors';
import { overlaps } from '../core/glob';
import type { Lock, LockType } from '../core/lock';
import { insertEvent } from '../store/events';
import { getLock, listLocks, markReleased, withoutBase, type StoredLock } from '../store/locks';
import { locksInView } from './list';
import { writeTransaction, type CoordContext } from './context';

export interface ReleaseInput {
  ids: string[];
  /** Who releases: required, and recorded as `by` when the release is forced (core/authority.ts). */
  owner: string | undefined;
  /** Canonical pattern (file) to release by. */
  pattern?: string;
  type?: LockType;
  /** Release all of the owner's locks in the scope, of `allTypes` (every type when absent). */
  all: boolean;
  allTypes?: readonly LockType[];
  force: boolean;
  reason: string | null;
  /** How the release is recorded when it is not forced: `released`, or e.g. `session_end`. */
  releaseReason?: string;
}

export type NotReleasedWhy = 'not_found' | 'not_owner' | 'already_released';

export interface ReleaseResult {
  released: Lock[];
  /** `owner`: who holds it, for not_owner (so the refusal can say whose lock it is). */
  not_released: { id: string; why: NotReleasedWhy; owner?: string }[];
  /** With `pattern` and nothing on exactly it: the active file locks it overlaps, to say what was meant. */
  near?: Lock[];
}

// Releases what was asked for: only the owner's own locks, unless --force, which is audited as force_released.
export function release(ctx: CoordContext, input: ReleaseInput): ReleaseResult {
  if (input.ids.length === 0 && input.pattern === undefined && !input.all) {
    throw new IcError('USAGE', 'say what to release: lock IDs, --pattern P or --all', { hint: 'Try: coord release --all --owner alice' });
  }
  if (!input.owner) {
    throw new IcError('USAGE', 'an owner is required: pass --owner NAME or set IC_OWNER (a forced release records who did it)', { hint: 'Try: export IC_OWNER=alice' });
  }
  const owner = input.owner;
  return writeTransaction(ctx, (now) => {
    const result: ReleaseResult = { released: [], not_released: [] };
    const releaseOne = (lock: StoredLock) => {
      const forced = lock.owner !== owner;
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
        detail: forced ? { by: owner } : null,
      });
      result.released.push(withoutBase({ ...lock, released_at: now, release_reason: why }));
      return true;
    };
    for (const id of new Set(input.ids)) {
      const lock = getLock(ctx.db, id);
      if (!lock) result.not_released.push({ id, why: 'not_found' });
      else if (lock.released_at !== null) result.not_released.push({ id, why: 'already_released' });
      else if (!mayChange(owner, lock.owner, input.force)) result.not_released.push({ id, why: 'not_owner', owner: lock.owner });
      else releaseOne(lock);
    }
    const done = (lock: StoredLock) => result.released.some((released) => released.id === lock.id);
    if (input.pattern !== undefined) {
      // --force with a pattern takes whoever holds it.
      const byPattern = listLocks(ctx.db, { scope: ctx.scope, owner: input.force ? undefined : owner, pattern: input.pattern, type: input.type, unreleased: true });
      for (const lock of byPattern) if (!done(lock)) releaseOne(lock);
      if (byPattern.length === 0 && input.type === 'file') result.near = nearMatches(ctx, input.pattern, input.force ? undefined : owner, now);
    }
    if (input.all) {
      // --all is always the owner's own locks, forced or not.
      const types = new Set(input.allTypes ?? ['file', 'named', 'claim']);
      const mine = locksInView(ctx, false, { owner, unreleased: true });
      for (const lock of mine) if (types.has(lock.type) && !done(lock)) releaseOne(lock);
    }
    return result;
  });
}

// The active file locks whose patterns overlap `pattern`: `release --pattern 'src/*'` when `src/**` is held.
function nearMatches(ctx: CoordContext, pattern: string, owner: string | undefined, now: number): Lock[] {
  const active = listLocks(ctx.db, { scope: ctx.scope, owner, type: 'file', activeAt: now });
  return active
    .filter((lock) => overlapsSafely(pattern, lock.pattern))
    .slice(0, 10)
    .map(withoutBase);
}

// A hint must never fail the command: a pair past the complexity limits is simply not listed.
function overlapsSafely(a: string, b: string): boolean {
  try {
    return overlaps(a, b).overlap;
  } catch {
    return false;
  }
}
