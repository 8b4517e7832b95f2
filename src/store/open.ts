import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { translateDbError } from './errors';
import { migrate } from './migrate';

export interface OpenOptions {
  /** Writers create the file (and its directory) on first use; readers of a missing file see an empty database. */
  write: boolean;
  busyTimeoutMs: number;
  now: number;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

// Opens the project database with the pragmas every invocation relies on, migrated to the latest schema.
export function openDb(path: string, options: OpenOptions): Database.Database {
  try {
    if (!options.write && !existsSync(path)) return openEmpty(options.now);
    if (options.write) mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path, { timeout: options.busyTimeoutMs, fileMustExist: !options.write });
    try {
      configure(db, path, options);
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  } catch (error) {
    throw translateDbError(error, path);
  }
}

function configure(db: Database.Database, path: string, options: OpenOptions): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
  db.pragma('foreign_keys = ON');
  // A reader of an old-schema file migrates it too: the file exists, so it will be written again.
  if (!options.write) return migrate(db, path, options.now);
  // WAL lets readers run beside the one writer; the setting is persistent, so only set it when it is not.
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  migrate(db, path, options.now);
}

// A read of a database that does not exist yet answers from an empty in-memory one: no file is created.
function openEmpty(now: number): Database.Database {
  const db = new Database(':memory:');
  migrate(db, ':memory:', now);
  return db;
}
