import type { Lock } from '../core/lock';
import { withoutBase } from '../store/locks';
import { locksInView } from './list';
import { allLastSeen } from '../store/owners';
import { readTransaction, type CoordContext } from './context';

export interface OwnerActivity {
  owner: string;
  last_active: number;
  locks: Lock[];
  claims: Lock[];
}

// Active locks and claims grouped by owner, most recently active (heartbeat or grant) first.
export function who(ctx: CoordContext, allScopes: boolean): OwnerActivity[] {
  return readTransaction(ctx, (now) => {
    const seen = allLastSeen(ctx.db);
    const byOwner = new Map<string, OwnerActivity>();
    for (const stored of locksInView(ctx, allScopes, { activeAt: now })) {
      const lock = withoutBase(stored);
      let entry = byOwner.get(lock.owner);
      if (!entry) {
        entry = { owner: lock.owner, last_active: seen.get(lock.owner) ?? 0, locks: [], claims: [] };
        byOwner.set(lock.owner, entry);
      }
      entry.last_active = Math.max(entry.last_active, lock.created_at, lock.expires_at - stored.ttl_ms);
      (lock.type === 'claim' ? entry.claims : entry.locks).push(lock);
    }
    return [...byOwner.values()].sort((a, b) => b.last_active - a.last_active || a.owner.localeCompare(b.owner));
  });
}
