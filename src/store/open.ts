import type Database from 'better-sqlite3';
import { openSqlite } from './driver';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { IcError } from '../core/errors';
import { isBusyError, translateDbError } from './errors';
import { detectFileSystem, networkFsAllowed } from './filesystem';
import { migrate } from './migrate';

export interface OpenOptions {
  /** Writers create the file (and its directory) on first use; readers of a missing file see an empty database. */
  write: boolean;
  busyTimeoutMs: number;
  now: number;
  /** Where IC_ALLOW_NETWORK_FS and IC_MOUNTINFO are read from (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

// Opens the project database with the pragmas every invocation relies on, migrated to the latest schema.
export function openDb(path: string, options: OpenOptions): Database.Database {
  try {
    if (!options.write && !existsSync(path)) return openEmpty(options.now);
    if (options.write) {
      refuseNetworkFileSystem(path, options.env ?? process.env); // before anything is created there
      makeDirectory(dirname(path));
    }
    const db = openSqlite(path, { timeout: options.busyTimeoutMs, fileMustExist: !options.write });
    try {
      configureRetryingBusy(db, path, options);
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  } catch (error) {
    throw withAdvice(translateDbError(error, path), path);
  }
}

// What to do about a database that cannot be opened, by cause (the message already says what happened).
const ADVICE: Record<string, (path: string) => string> = {
  SQLITE_NOTADB: (path) => `${path} is not a SQLite database: move it aside (mv ${path} ${path}.bad) and run \`ic init\`, or set IC_DB to another path`,
  SQLITE_CORRUPT: (path) => `run \`ic doctor\`; then recover it (sqlite3 ${path} .recover | sqlite3 ${path}.recovered) or move it aside and run \`ic init\``,
  SQLITE_CANTOPEN: (path) => `make sure ${dirname(path)} exists and is writable: SQLite must create ${path}-wal and ${path}-shm next to the database`,
  SQLITE_READONLY: (path) => `make ${path} and ${dirname(path)} writable, or set IC_DB to a writable path`,
  EACCES: (path) => `make ${dirname(path)} writable, or set IC_DB to a writable path`,
  EROFS: (path) => `${dirname(path)} is on a read-only file system: set IC_DB to a writable path`,
  ENOTDIR: (path) => `a parent of ${dirname(path)} is a file, not a directory: set IC_DB (or --db) to a usable path`,
  EPERM: (path) => `the system refuses writes in ${dirname(path)} (immutable or locked down): set IC_DB to a writable path`,
  ENOSPC: () => 'the disk is full: free some space and try again',
};

function withAdvice(error: unknown, path: string): unknown {
  if (!(error instanceof IcError) || error.code !== 'DB_UNAVAILABLE' || error.details.hint !== undefined) return error;
  const cause = String(error.details.sqlite_code ?? error.details.errno ?? '');
  const advice = ADVICE[cause] ?? ADVICE[cause.replace(/^(SQLITE_[A-Z]+)_.*$/, '$1')];
  if (!advice) return error;
  return new IcError('DB_UNAVAILABLE', `${error.message}; ${advice(path)}`, { ...error.details, hint: advice(path) }, { cause: error });
}

// mkdir -p reports a file in the way as EEXIST, which would otherwise surface as an internal error.
function makeDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw Object.assign(new Error(`ENOTDIR: ${dir} or one of its parents is a file, not a directory`), { code: 'ENOTDIR', cause: error });
  }
}

// WAL keeps its index in shared memory (the -shm file, mmap'ed by every process); network file systems
// neither share that memory between hosts nor lock reliably, so two hosts could both be granted a lock.
function refuseNetworkFileSystem(path: string, env: NodeJS.ProcessEnv): void {
  const fs = detectFileSystem(dirname(path), env);
  if (!fs.network || networkFsAllowed(env)) return;
  throw new IcError(
    'DB_UNAVAILABLE',
    `refusing to write the database at ${path}: it is on a network file system (${fs.type} at ${fs.mountPoint}), where SQLite's WAL mode does not work (it needs shared memory and reliable locks that network file systems do not provide, so locks could be granted twice); put the database on a local disk with IC_DB or --db, or set IC_ALLOW_NETWORK_FS=1 if every process using it runs on this one host`,
    { path, filesystem: fs.type, mount_point: fs.mountPoint, hint: 'Try: IC_DB=/tmp/ic-project.db or set IC_ALLOW_NETWORK_FS=1' },
  );
}

// Two processes creating one database at once can meet SQLite's locks where its busy handler does not
// wait (switching to WAL, WAL recovery): every step of configure is idempotent or its own transaction, so
// it is retried with jitter until the busy timeout, like any other wait for the database.
function configureRetryingBusy(db: Database.Database, path: string, options: OpenOptions): void {
  const giveUpAt = Date.now() + options.busyTimeoutMs;
  for (;;) {
    try {
      return configure(db, path, options);
    } catch (error) {
      if (!isBusyError(error) || Date.now() >= giveUpAt) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5 + Math.random() * 20);
    }
  }
}

function configure(db: Database.Database, path: string, options: OpenOptions): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
  db.pragma('foreign_keys = ON');
  // A reader of an old-schema file migrates it too: the file exists, so it will be written again.
  if (!options.write) return migrate(db, path, options.now);
  // WAL lets readers run beside the one writer; the setting is persistent, so only set it when it is not.
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') {
    // Only a new (empty) file takes this: a WAL commit writes whole pages, and 1 KiB measured fastest for
    // ic's small rows (README, Performance). Existing files keep their page size.
    db.pragma('page_size = 1024');
    db.pragma('journal_mode = WAL');
  }
  db.pragma('synchronous = NORMAL');
  migrate(db, path, options.now);
}

// A read of a database that does not exist yet answers from an empty in-memory one: no file is created.
function openEmpty(now: number): Database.Database {
  const db = openSqlite(':memory:');
  migrate(db, ':memory:', now);
  return db;
}
