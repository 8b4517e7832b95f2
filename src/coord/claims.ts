import type { Lock } from '../core/lock';
import { listLocks, withoutBase } from '../store/locks';
import { readTransaction, type CoordContext } from './context';

export interface HeldClaim {
  claim: Lock;
  /** Held right now (else it ended within the window). */
  active: boolean;
}

// The claims `isMine` accepts that are held now or ended (released, expired) within `windowMs`, newest
// first. Claims live in the repository's scope, whatever the worktree.
export async function recentClaims(ctx: CoordContext, isMine: (owner: string) => boolean, windowMs: number): Promise<HeldClaim[]> {
  return readTransaction(ctx, async (now) => {
    const claims = (await listLocks(ctx.db, { scope: ctx.claimScope, type: 'claim' })).filter((lock) => isMine(lock.owner));
    const result: HeldClaim[] = [];
    for (const stored of claims) {
      const active = stored.released_at === null && stored.expires_at > now;
      const ended = stored.released_at ?? stored.expires_at;
      if (active || ended >= now - windowMs) result.push({ claim: withoutBase(stored), active });
    }
    return result.reverse();
  });
}
