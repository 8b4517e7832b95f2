import type { Lock, LockType } from '../core/lock';
import { listLocks, withoutBase, type LockFilter, type StoredLock } from '../store/locks';
import { readTransaction, type CoordContext } from './context';
import { liveOrphanRunLocks } from './run-process';

export interface ListInput {
  active: boolean;
  owner?: string;
  type?: LockType;
  /** Only active locks expiring within this many ms. */
  expiringMs?: number;
  allScopes: boolean;
}

// Locks in the scope (or every scope), oldest grant first.
export async function list(ctx: CoordContext, input: ListInput): Promise<Lock[]> {
  return readTransaction(ctx, async (now) => {
    const activeOnly = input.active || input.expiringMs !== undefined;
    const expiresBefore = input.expiringMs !== undefined ? now + input.expiringMs : undefined;
    const held = await heldInView(ctx, input.allScopes, { owner: input.owner, type: input.type, activeAt: activeOnly ? now : undefined, expiresBefore });
    return held.map(withoutBase);
  });
}

// The locks a project sees: its scope's file and named locks plus the repository's claims (one scope
// when they coincide, as in the main worktree), or every scope. Oldest grant first.
export async function locksInView(ctx: Pick<CoordContext, 'db' | 'scope' | 'claimScope'>, allScopes: boolean, filter: Omit<LockFilter, 'scope'>): Promise<StoredLock[]> {
  if (allScopes) return listLocks(ctx.db, filter);
  const own = await listLocks(ctx.db, { ...filter, scope: ctx.scope });
  if (ctx.claimScope === ctx.scope || (filter.type !== undefined && filter.type !== 'claim')) return own;
  const claims = await listLocks(ctx.db, { ...filter, scope: ctx.claimScope, type: 'claim' });
  return [...own, ...claims].sort((a, b) => a.token - b.token);
}

// What people see as held (list, who): the active locks and also a run lock whose lease lapsed while its
// command still runs on this host. That lock holds (a waiter is told so), with its command's pid.
export async function heldInView(ctx: Pick<CoordContext, 'db' | 'scope' | 'claimScope'>, allScopes: boolean, filter: Omit<LockFilter, 'scope'>): Promise<StoredLock[]> {
  const locks = await locksInView(ctx, allScopes, filter);
  const orphans = await orphanRunsInView(ctx, allScopes, filter);
  return orphans.length === 0 ? locks : [...locks, ...orphans].sort((a, b) => a.token - b.token);
}

async function orphanRunsInView(ctx: Pick<CoordContext, 'db' | 'scope'>, allScopes: boolean, filter: Omit<LockFilter, 'scope'>): Promise<StoredLock[]> {
  if (filter.activeAt === undefined || filter.expiresBefore !== undefined || filter.pattern !== undefined) return [];
  if (filter.type !== undefined && filter.type !== 'named') return [];
  return (await liveOrphanRunLocks(ctx.db, filter.activeAt)).filter((lock) => (allScopes || lock.scope === ctx.scope) && (filter.owner === undefined || lock.owner === filter.owner));
}

// Locks that lapsed by expiry less than the lock-delay ago: no longer active, yet they still bind every
// owner but their own (README, "Concepts"). `list --active` and `who` show them, or a person sees
// nothing held while a reserve is refused. Swept ones count too: a sweep marks them released as expired.
export async function lockDelayBlockers(ctx: CoordContext, allScopes: boolean, filter: { owner?: string; type?: LockType } = {}): Promise<Lock[]> {
  if (ctx.lockDelayMs <= 0) return [];
  return readTransaction(ctx, async (now) =>
    (await locksInView(ctx, allScopes, { ...filter, expiresBefore: now }))
      .filter((lock) => lock.expires_at > now - ctx.lockDelayMs && (lock.released_at === null || lock.release_reason === 'expired'))
      .map(withoutBase),
  );
}
