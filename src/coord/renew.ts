import { mayChange } from '../core/authority';
import type { Lock } from '../core/lock';
import { getLock, withoutBase, type StoredLock } from '../store/locks';
import { locksInView } from './list';
import { extendLock } from './renewal';
import { writeTransaction, type CoordContext } from './context';

export interface RenewResult {
  locks: Lock[];
  not_renewed: { id: string; why: 'not_found' | 'not_owner' | 'not_active' }[];
}

// Extends the owner's active locks by --ttl (or the TTL each was taken with); expired locks are not revived.
// Only one's own: there is no forced renew (core/authority.ts).
export function renew(ctx: CoordContext, input: { ids: string[]; owner: string; ttlMs?: number }): RenewResult {
  return writeTransaction(ctx, (now) => {
    const result: RenewResult = { locks: [], not_renewed: [] };
    const targets: StoredLock[] = [];
    if (input.ids.length === 0) {
      targets.push(...locksInView(ctx, false, { owner: input.owner, activeAt: now }));
    }
    for (const id of new Set(input.ids)) {
      const lock = getLock(ctx.db, id);
      if (!lock) result.not_renewed.push({ id, why: 'not_found' });
      else if (!mayChange(input.owner, lock.owner, false)) result.not_renewed.push({ id, why: 'not_owner' });
      else if (lock.released_at !== null || lock.expires_at <= now) result.not_renewed.push({ id, why: 'not_active' });
      else targets.push(lock);
    }
    for (const lock of targets) {
      const ttlMs = input.ttlMs ?? lock.ttl_ms;
      extendLock(ctx.db, lock, now, ttlMs);
      result.locks.push(withoutBase({ ...lock, expires_at: now + ttlMs, ttl_ms: ttlMs }));
    }
    return result;
  });
}
