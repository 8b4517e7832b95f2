import { existsSync, renameSync } from 'node:fs';
import type { Lock } from '../core/lock';
import { IcError } from '../core/errors';
import { openSqlite } from './driver';

// A lock as any ic database stores it: ic 0.1 (schema 1 and 2) and this schema share these columns.
export type ImportableLock = Pick<Lock, 'type' | 'scope' | 'pattern' | 'owner' | 'mode' | 'reason' | 'expires_at'>;

// The locks still in force in another ic database, read without changing it (read-only connection).
export function readLiveLocks(path: string, now: number): ImportableLock[] {
  let db;
  try {
    db = openSqlite(path, { fileMustExist: true, readonly: true, timeout: 5_000 });
  } catch (error) {
    throw new IcError('DB_UNAVAILABLE', `cannot open ${path} to import it: ${(error as Error).message}`, { path }, { cause: error });
  }
  try {
    const hasLocks = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'locks'").get();
    if (!hasLocks) throw new IcError('INVALID_INPUT', `${path} is not an ic database (it has no locks table)`, { path });
    return db.prepare('SELECT type, scope, pattern, owner, mode, reason, expires_at FROM locks WHERE released_at IS NULL AND expires_at > ? ORDER BY token').all(now) as ImportableLock[];
  } catch (error) {
    if (error instanceof IcError) throw error;
    throw new IcError('DB_UNAVAILABLE', `cannot read the locks of ${path}: ${(error as Error).message}`, { path }, { cause: error });
  } finally {
    db.close();
  }
}

// Puts an imported database aside as PATH.imported (its -wal and -shm follow, so SQLite still reads it
// whole), never over an earlier archive: the notice about the old location stops, and nothing is deleted.
export function archiveImported(path: string): string {
  let target = `${path}.imported`;
  for (let n = 2; existsSync(target); n++) target = `${path}.imported-${n}`;
  renameSync(path, target);
  for (const suffix of ['-wal', '-shm']) if (existsSync(`${path}${suffix}`)) renameSync(`${path}${suffix}`, `${target}${suffix}`);
  return target;
}
