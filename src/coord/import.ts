import { statSync } from 'node:fs';
import type { Conflict } from '../core/conflict';
import { IcError, isIcError } from '../core/errors';
import { MAX_TTL_MS } from '../core/time';
import type { Lock } from '../core/lock';
import { checkText, validateName } from '../core/names';
import { validateOwner } from '../core/owner';
import { checkReadableDbFile } from '../store/db-file';
import { readLiveLocks, type ImportableLock } from '../store/legacy';
import { canonicalFilePattern } from './paths';
import { writeTransaction, type CoordContext, type Project } from './context';
import { EVERYTHING } from '../store/connection';
import { reserveOnce } from './reserve';

export interface ImportResult {
  locks: Lock[];
  skipped: { lock: ImportableLock; conflicts: Conflict[] }[];
}

// A row of the source, checked by the rules every CLI input follows, and where it lands here.
export interface ImportRow extends Pick<Lock, 'scope' | 'type' | 'pattern' | 'owner' | 'mode' | 'reason'> {
  lock: ImportableLock;
}

// Reads and checks the whole source before anything is created or written here (a failed import leaves
// no database behind): every row must name an owner, pattern or name and reason the CLI would accept, a
// known type and mode, and this project's scope (the work tree, or the repository for claims). One bad row
// refuses the import, naming it. The old work tree's claims move to the repository's claim scope.
export function readImport(project: Pick<Project, 'scope' | 'claimScope' | 'ignoreCase'>, path: string, dbPath: string, now: number): ImportRow[] {
  checkReadableDbFile(path, 'the database to import'); // a FIFO there hung init --import
  // Compared as files, not as spellings: through a symlink the same database has another path.
  if (sameFile(path, dbPath)) throw new IcError('INVALID_INPUT', 'cannot import a database into itself', { path });
  return readLiveLocks(path, now).map((lock, index) => {
    try {
      return checkRow(project, lock);
    } catch (error) {
      if (!isIcError(error)) throw error;
      throw new IcError(
        'INVALID_INPUT',
        `${path}: live lock ${index + 1} (${JSON.stringify(lock.type)} ${JSON.stringify(lock.pattern)} of ${JSON.stringify(lock.owner)}) is not one ic would accept: ${error.message}; nothing was imported`,
        { path, row: index + 1 },
      );
    }
  });
}

function checkRow(project: Pick<Project, 'scope' | 'claimScope' | 'ignoreCase'>, lock: ImportableLock): ImportRow {
  if (lock.type !== 'file' && lock.type !== 'named' && lock.type !== 'claim') throw new IcError('INVALID_INPUT', `unknown type ${JSON.stringify(lock.type)}`);
  if (lock.mode !== 'exclusive' && lock.mode !== 'shared') throw new IcError('INVALID_INPUT', `unknown mode ${JSON.stringify(lock.mode)}`);
  if (typeof lock.expires_at !== 'number' || !Number.isFinite(lock.expires_at)) throw new IcError('INVALID_INPUT', 'expires_at is not a time');
  if (lock.scope !== project.scope && lock.scope !== project.claimScope) {
    throw new IcError('INVALID_INPUT', `its scope ${JSON.stringify(lock.scope)} is not this project (${project.scope})`);
  }
  const owner = validateOwner(typeof lock.owner === 'string' ? lock.owner : undefined, 'owner');
  const reason = lock.reason === null ? null : checkText(String(lock.reason), 'reason');
  const scope = lock.type === 'claim' ? project.claimScope : project.scope;
  if (typeof lock.pattern !== 'string') throw new IcError('INVALID_INPUT', 'pattern is not text');
  const pattern =
    lock.type === 'file'
      ? canonicalFilePattern({ scope, ignoreCase: project.ignoreCase }, checkText(lock.pattern, 'pattern'))
      : validateName(lock.pattern, lock.type === 'claim' ? 'claim item' : 'lock name');
  return { lock, scope, type: lock.type, pattern, owner, mode: lock.mode, reason };
}

// Brings the checked rows in, each through the ordinary reserve rule: it keeps its type, pattern, owner,
// mode, reason and expiry and gets a new id and fencing token; one that would conflict with a lock held
// here is skipped, never forced in. All in one write transaction: every row lands (or is skipped) or none does.
export async function importLocks(ctx: CoordContext, rows: readonly ImportRow[]): Promise<ImportResult> {
  return writeTransaction(ctx, EVERYTHING, async (now) => {
    const result: ImportResult = { locks: [], skipped: [] };
    for (const row of rows) {
      const ttlMs = Math.min(MAX_TTL_MS, Math.max(1_000, row.lock.expires_at - now));
      const outcome = await reserveOnce({ ...ctx, scope: row.scope }, { type: row.type, patterns: [row.pattern], owner: row.owner, mode: row.mode, ttlMs, reason: row.reason });
      if (outcome.granted) result.locks.push(...outcome.locks);
      else result.skipped.push({ lock: row.lock, conflicts: outcome.conflicts });
    }
    return result;
  });
}

function sameFile(a: string, b: string): boolean {
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return a === b;
  }
}
