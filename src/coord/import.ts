import { statSync } from 'node:fs';
import type { Conflict } from '../core/conflict';
import { IcError } from '../core/errors';
import { MAX_TTL_MS } from '../core/duration';
import type { Lock } from '../core/lock';
import { checkReadableDbFile } from '../store/db-file';
import { readLiveLocks, type ImportableLock } from '../store/legacy';
import type { CoordContext } from './context';
import { reserveOnce } from './reserve';

export interface ImportResult {
  locks: Lock[];
  skipped: { lock: ImportableLock; conflicts: Conflict[] }[];
}

// Brings the live locks of another ic database (the 0.1 in-tree one) into this one, each through the
// ordinary reserve rule: it keeps its type, pattern, owner, mode, reason and expiry and gets a new id and
// fencing token; one that would conflict with a lock held here is skipped, never forced in. The old
// work tree's claims move to the repository's claim scope, as claims live there now.
export function importLocks(ctx: CoordContext, path: string): ImportResult {
  checkReadableDbFile(path, 'the database to import'); // a FIFO there hung init --import
  // Compared as files, not as spellings: through a symlink the same database has another path.
  if (sameFile(path, ctx.dbLocation.path)) throw new IcError('INVALID_INPUT', 'cannot import a database into itself', { path });
  const result: ImportResult = { locks: [], skipped: [] };
  for (const old of readLiveLocks(path, ctx.clock())) {
    const scope = old.type === 'claim' && old.scope === ctx.scope ? ctx.claimScope : old.scope;
    const ttlMs = Math.min(MAX_TTL_MS, Math.max(1_000, old.expires_at - ctx.clock()));
    const outcome = reserveOnce({ ...ctx, scope }, { type: old.type, patterns: [old.pattern], owner: old.owner, mode: old.mode, ttlMs, reason: old.reason });
    if (outcome.granted) result.locks.push(...outcome.locks);
    else result.skipped.push({ lock: old, conflicts: outcome.conflicts });
  }
  return result;
}

function sameFile(a: string, b: string): boolean {
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return a === b;
  }
}
