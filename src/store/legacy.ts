import type Database from 'better-sqlite3';
import type { Lock } from '../core/lock';
import { IcError } from '../core/errors';
import { IC_APPLICATION_ID } from './application-id';
import { classifyDbFile } from './db-file';
import { openSqlite } from './driver';
import { LATEST_VERSION } from './migrations';

// A lock as any ic database stores it: ic 0.1 (schema 1 and 2) and this schema share these columns.
export type ImportableLock = Pick<Lock, 'type' | 'scope' | 'pattern' | 'owner' | 'mode' | 'reason' | 'expires_at'>;

// The schemas an import reads: ic 0.1 wrote no application id and user_version 1 or 2; every later ic
// marks its files and counts its schema up to the one this ic knows.
const LEGACY_VERSIONS = new Set([1, 2]);
const NEEDED_COLUMNS = ['type', 'scope', 'pattern', 'owner', 'mode', 'reason', 'expires_at', 'released_at'];

// The locks still in force in another ic database, read through a read-only connection: the source is
// never changed, not even checkpointed (its -wal stays as it was). Anything that is not an ic database
// of a schema this ic knows is refused before a row is read (that it is a regular file, checkReadableDbFile says first).
export function readLiveLocks(path: string, now: number): ImportableLock[] {
  const file = classifyDbFile(path);
  if (file.kind === 'not_sqlite' || file.kind === 'blank') throw new IcError('INVALID_INPUT', `${path} is not an ic database (not a SQLite file with a schema)`, { path });
  let db: Database.Database;
  try {
    db = openSqlite(path, { fileMustExist: true, readonly: true, timeout: 5_000 });
  } catch (error) {
    throw new IcError('DB_UNAVAILABLE', `cannot open ${path} to import it: ${(error as Error).message}`, { path }, { cause: error });
  }
  try {
    return db.transaction(() => {
      requireKnownSchema(db, path);
      return db.prepare('SELECT type, scope, pattern, owner, mode, reason, expires_at FROM locks WHERE released_at IS NULL AND expires_at > ? ORDER BY token').all(now) as ImportableLock[];
    })();
  } catch (error) {
    if (error instanceof IcError) throw error;
    throw new IcError('DB_UNAVAILABLE', `cannot read the locks of ${path}: ${(error as Error).message}`, { path }, { cause: error });
  } finally {
    db.close();
  }
}

function requireKnownSchema(db: Database.Database, path: string): void {
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  const columns = new Set((db.prepare("SELECT name FROM pragma_table_info('locks')").all() as { name: string }[]).map((row) => row.name));
  const isIc = applicationId === IC_APPLICATION_ID;
  const known = isIc ? version >= 1 && version <= LATEST_VERSION : applicationId === 0 && LEGACY_VERSIONS.has(version);
  if (isIc && version > LATEST_VERSION) {
    throw new IcError('INVALID_INPUT', `${path} has schema version ${version}, newer than this ic knows (${LATEST_VERSION}); import it with a newer ic`, {
      path,
      schema_version: version,
      supported: LATEST_VERSION,
    });
  }
  if (!known || !NEEDED_COLUMNS.every((column) => columns.has(column))) {
    throw new IcError('INVALID_INPUT', `${path} is not an ic database of a schema this ic knows (application_id ${applicationId}, user_version ${version})`, {
      path,
      application_id: applicationId,
      schema_version: version,
    });
  }
}
