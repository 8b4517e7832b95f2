import type { Lock, LockType } from '../core/lock';
import { locksInView } from '../coord/list';
import { readTransaction, type CoordContext } from '../coord/context';
import { withoutBase } from '../store/locks';

// Locks that lapsed by expiry less than the lock-delay ago: no longer active, yet they still bind every
// owner but their own (README, "Concepts"). `list --active` and `who` show them, or a person sees
// nothing held while a reserve is refused. Swept ones count too: a sweep marks them released as expired.
export function lockDelayBlockers(ctx: CoordContext, allScopes: boolean, filter: { owner?: string; type?: LockType } = {}): Lock[] {
  if (ctx.lockDelayMs <= 0) return [];
  return readTransaction(ctx, (now) =>
    locksInView(ctx, allScopes, { ...filter, expiresBefore: now })
      .filter((lock) => lock.expires_at > now - ctx.lockDelayMs && (lock.released_at === null || lock.release_reason === 'expired'))
      .map(withoutBase),
  );
}
