import type { Lock, LockType } from '../core/lock';
import { listLocks, withoutBase } from '../store/locks';
import { readTransaction, type CoordContext } from './context';

export interface ListInput {
  active: boolean;
  owner?: string;
  type?: LockType;
  /** Only active locks expiring within this many ms. */
  expiringMs?: number;
  allScopes: boolean;
}

// Locks in the scope (or every scope), oldest grant first.
export function list(ctx: CoordContext, input: ListInput): Lock[] {
  return readTransaction(ctx, (now) => {
    const activeOnly = input.active || input.expiringMs !== undefined;
    return listLocks(ctx.db, {
      scope: input.allScopes ? undefined : ctx.scope,
      owner: input.owner,
      type: input.type,
      activeAt: activeOnly ? now : undefined,
      expiresBefore: input.expiringMs !== undefined ? now + input.expiringMs : undefined,
    }).map(withoutBase);
  });
}
