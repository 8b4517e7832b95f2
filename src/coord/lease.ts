import type { Lock } from '../core/lock';
import { getLock, markReleased, type StoredLock } from '../store/locks';
import { forgetRunProcess } from '../store/run-processes';
import { writeTransaction, type CoordContext } from './context';
import { inScopes } from '../store/connection';
import { expireLock } from './reserve';
import { extendLock, lockEvent } from './renewal';

// Why a lease is no longer ours: it ran out (ic was stopped or starved past its expiry), someone
// released or transferred it, or the row is gone.
export type LeaseLost = 'expired' | 'released' | 'not_owner' | 'not_found';

export type LeaseState = { held: true; expiresAt: number } | { held: false; why: LeaseLost };

// The lease of a run under `coord lock NAME -- CMD`, judged in one transaction: still ours, unreleased
// and not yet expired (an expired lease was free for others, even if nobody took it).
async function judge(ctx: CoordContext, lock: Lock, now: number): Promise<{ held: true; row: StoredLock } | { held: false; why: LeaseLost }> {
  const row = await getLock(ctx.db, lock.id);
  if (!row) return { held: false, why: 'not_found' };
  if (row.owner !== lock.owner || row.token !== lock.token) return { held: false, why: 'not_owner' };
  if (row.released_at !== null) return { held: false, why: row.release_reason === 'expired' ? 'expired' : 'released' };
  if (row.expires_at <= now) {
    await expireLock(ctx, row, now);
    return { held: false, why: 'expired' };
  }
  return { held: true, row };
}

// Extends the lease by ttlMs from now, or reports that it was lost.
export async function renewLease(ctx: CoordContext, lock: Lock, ttlMs: number): Promise<LeaseState> {
  return writeTransaction(ctx, inScopes(lock.scope), async (now) => {
    const state = await judge(ctx, lock, now);
    if (!state.held) return state;
    return { held: true, expiresAt: await extendLock(ctx.db, state.row, now, ttlMs) };
  });
}

// Releases the lease when the command has ended; reports whether it was still held up to that moment.
export async function endLease(ctx: CoordContext, lock: Lock, reason: string): Promise<LeaseState> {
  return writeTransaction(ctx, inScopes(lock.scope), async (now) => {
    const stored = await getLock(ctx.db, lock.id);
    if (stored !== undefined) await forgetRunProcess(ctx.db, stored.seq); // the command has ended: it holds nothing now
    const state = await judge(ctx, lock, now);
    if (!state.held) return state;
    await markReleased(ctx.db, state.row.seq, now, 'released');
    await lockEvent(ctx.db, 'released', lock, now, { reason });
    return { held: true, expiresAt: state.row.expires_at };
  });
}
