import { isLiteral } from '../core/glob';
import { listLocks } from '../store/locks';
import { refusedSince } from '../store/status';
import { readTransaction, type CoordContext } from './context';

export interface StatusCounts {
  agents: number;
  /** File locks whose pattern names one file (a literal path). */
  files: number;
  /** File locks whose pattern is a glob (may cover many files). */
  globs: number;
  waiting: number;
  /** Of `files` and `globs`, how many are `me`'s. */
  mine: number;
}

const WAITING_WINDOW_MS = 5 * 60_000;

// Who is active, what is held, and who is blocked in the context's scope. "Waiting" = owners refused in the
// last five minutes by a lock that is still held, and granted nothing since.
export async function statusCounts(ctx: CoordContext, me?: string): Promise<StatusCounts> {
  return readTransaction(ctx, async (now) => {
    const active = await listLocks(ctx.db, { scope: ctx.scope, activeAt: now });
    const fileLocks = active.filter((lock) => lock.type === 'file');
    const activeIds = new Set(active.map((lock) => lock.id));
    const refused = await refusedSince(ctx.db, ctx.scope, now - WAITING_WINDOW_MS);
    const literal = fileLocks.filter((lock) => isLiteral(lock.pattern)).length;
    return {
      agents: new Set(active.map((lock) => lock.owner)).size,
      files: literal,
      globs: fileLocks.length - literal,
      waiting: new Set(refused.filter((row) => activeIds.has(row.lock_id)).map((row) => row.owner)).size,
      mine: me ? fileLocks.filter((lock) => lock.owner === me).length : 0,
    };
  });
}
