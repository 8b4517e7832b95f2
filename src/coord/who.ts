import type { Lock } from '../core/lock';
import { withoutBase } from '../store/locks';
import { heldInView } from './list';
import { allLastSeen } from '../store/owners';
import { readTransaction, type CoordContext } from './context';
import { claimsOf } from './handoff';

export interface OwnerActivity {
  owner: string;
  last_active: number;
  locks: Lock[];
  claims: Lock[];
  /** Claims whose owner showed no activity for the repository's stall-after setting: anyone may take them (`claim ITEM --take`). */
  stalled_claims: string[];
  /** Open hand-off requests for this owner's claims. */
  handoff_requests: { item: string; by: string; at: number }[];
}

// Active locks and claims grouped by owner, most recently active (heartbeat or grant) first.
export async function who(ctx: CoordContext, allScopes: boolean): Promise<OwnerActivity[]> {
  return readTransaction(ctx, async (now) => {
    const seen = await allLastSeen(ctx.db);
    const byOwner = new Map<string, OwnerActivity>();
    for (const stored of await heldInView(ctx, allScopes, { activeAt: now })) {
      const lock = withoutBase(stored);
      let entry = byOwner.get(lock.owner);
      if (!entry) {
        entry = { owner: lock.owner, last_active: seen.get(lock.owner) ?? 0, locks: [], claims: [], stalled_claims: [], handoff_requests: [] };
        byOwner.set(lock.owner, entry);
      }
      entry.last_active = Math.max(entry.last_active, lock.created_at, lock.expires_at - stored.ttl_ms);
      (lock.type === 'claim' ? entry.claims : entry.locks).push(lock);
    }
    for (const state of await claimsOf(ctx, (owner) => byOwner.has(owner))) {
      const entry = byOwner.get(state.claim.owner)!;
      if (state.stalled) entry.stalled_claims.push(state.claim.pattern);
      for (const request of state.requests) entry.handoff_requests.push({ item: state.claim.pattern, by: request.by, at: request.at });
    }
    return [...byOwner.values()].sort((a, b) => b.last_active - a.last_active || a.owner.localeCompare(b.owner));
  });
}
