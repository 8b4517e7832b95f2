import type { Lock } from '../core/lock';
import { listLocks, withoutBase } from '../store/locks';
import { readTransaction, type CoordContext } from './context';

// The file locks active now in the context's scope: what the git guard matches staged paths against.
export async function activeFileLocks(ctx: CoordContext): Promise<Lock[]> {
  return readTransaction(ctx, async (now) => (await listLocks(ctx.db, { scope: ctx.scope, type: 'file', activeAt: now })).map(withoutBase));
}
