import { IcError } from '../core/errors';

const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED_SHAREDCACHE']);

// SQLite reports a full disk as SQLITE_FULL, or, when the WAL index cannot grow, as an SHM I/O error.
const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'SQLITE_IOERR_SHMSIZE', 'ENOSPC']);

export function isDiskFull(code: string): boolean {
  return DISK_FULL_CODES.has(code);
}

export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && BUSY_CODES.has(code);
}

// Turns a driver error into the contract's codes: busy is retryable (75), a broken file is unusable (69).
export function translateDbError(error: unknown, dbPath: string): unknown {
  if (error instanceof IcError) return error;
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string') return error;
  const message = error instanceof Error ? error.message : String(error);
  if (BUSY_CODES.has(code)) {
    return new IcError('BUSY', `the database is busy (${code}); try again`, { path: dbPath }, { cause: error });
  }
  if (DISK_FULL_CODES.has(code)) {
    const hint = 'free some disk space and run the command again; the database and its locks are kept (do not move it aside)';
    return new IcError('DB_UNAVAILABLE', `disk full: cannot write the database at ${dbPath} (${code}); ${hint}`, { path: dbPath, sqlite_code: code, hint }, { cause: error });
  }
  if (code.startsWith('SQLITE_')) {
    return new IcError('DB_UNAVAILABLE', `cannot use the database at ${dbPath}: ${message} (${code}); run \`ic doctor\``, { path: dbPath, sqlite_code: code }, { cause: error });
  }
  if (['EACCES', 'EROFS', 'ENOENT', 'ENOTDIR', 'EPERM', 'ELOOP', 'ENAMETOOLONG', 'EISDIR', 'ENXIO'].includes(code)) {
    return new IcError('DB_UNAVAILABLE', `cannot use the database at ${dbPath}: ${message}`, { path: dbPath, errno: code }, { cause: error });
  }
  return error;
}
