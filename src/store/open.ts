import type Database from 'better-sqlite3';
import { openSqlite } from './driver';
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { IcError } from '../core/errors';
import { shellQuote } from '../core/shell';
import { isBusyError, translateDbError } from './errors';
import { detectFileSystem, knownLocalFileSystem, networkFsAllowed } from './filesystem';
import { LATEST_VERSION } from './migrations';
import { migrate, refuseNewerSchema } from './migrate';
import { IC_APPLICATION_ID } from './application-id';
import { classifyDbFile, oddSidecar, walHasFrames, type DbFileKind } from './db-file';
import type { Connection } from './connection';
import { keepShared, sharedConnection, SqliteConnection } from './sqlite-connection';
import type { DbLocation } from './discover';
import { openPostgres } from './postgres/open';

export interface OpenOptions {
  /** Writers create the file on first use; readers of a missing default file see an empty database. */
  write: boolean;
  busyTimeoutMs: number;
  now: number;
  /** Where IC_ALLOW_NETWORK_FS and IC_MOUNTINFO are read from (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface OpenedDb {
  db: Connection;
  /** The read found no database (or a blank file) and answers from an empty one; nothing was created. */
  missing: boolean;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

// Opens the project database with the pragmas every invocation relies on, migrated to the latest schema.
// Only writers create, convert or migrate; a file that is not ic's is refused before SQLite touches it.
// The engine is the location's (a server's URL: PostgreSQL, docs/postgres.md). A file named by --db or $IC_DB
// must have its directory already (a typo must not start a second database).
export function openDb(location: DbLocation, options: OpenOptions): OpenedDb {
  if (location.url !== undefined)
    return { db: openPostgres(location.url, { write: options.write, busyTimeoutMs: options.busyTimeoutMs, now: options.now, env: options.env ?? process.env }), missing: false };
  const path = location.path;
  const explicit = location.source === '--db' || location.source === 'IC_DB';
  const key = `${options.write ? 'w' : 'r'}\0${path}`;
  const shared = sharedConnection(key, options.busyTimeoutMs);
  if (shared) return { db: shared, missing: false };
  try {
    const file = classifyDbFile(path);
    refuseUnusable(file, path);
    refuseOddSidecar(path);
    if (!options.write) {
      if (file.kind === 'missing' && explicit) throw missingExplicitDb(path);
      if (file.kind === 'missing' || (file.kind === 'blank' && !walHasFrames(path))) return { db: openEmpty(options.now), missing: true };
      if (file.kind === 'blank') probeReadOnly(path, options); // its schema may be in the WAL: ic's, or someone else's
      return { db: keepShared(key, new SqliteConnection(openExisting(path, options, false, file.kind === 'ic'), path)), missing: false };
    }
    refuseNetworkFileSystem(path, options.env ?? process.env); // before anything is created there
    if (file.kind === 'missing') makeDatabaseDirectory(dirname(path), explicit);
    else if (file.kind === 'blank') probeReadOnly(path, options); // a foreign WAL file must not be checkpointed by our close
    return { db: keepShared(key, new SqliteConnection(openExisting(path, options, true, file.kind === 'ic'), path)), missing: false };
  } catch (error) {
    throw withAdvice(translateDbError(error, path), path);
  }
}

// `marked`: the header already carries ic's application id, so SQLite need not be asked (the common case:
// a prepared query on every call would cost each hook about half a millisecond).
function openExisting(path: string, options: OpenOptions, write: boolean, marked: boolean): Database.Database {
  const db = openSqlite(path, { timeout: options.busyTimeoutMs, fileMustExist: !write });
  try {
    if (!marked) refuseForeignSchema(db, path);
    configureRetryingBusy(db, path, options, write);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

// Only the default location may be absent and read as empty: a path someone named (--db, IC_DB) that does
// not exist is a typo or a missing mount, and reading it as "nothing is held" would pass a held file.
function missingExplicitDb(path: string): IcError {
  return new IcError('DB_UNAVAILABLE', `no database at ${path} (named by --db or IC_DB); a read never creates one`, {
    path,
    hint: `check the path for a typo; to start a database there: ic init --db ${shellQuote(path)}`,
  });
}

function refuseUnusable(file: DbFileKind, path: string): void {
  if (file.kind === 'not_regular') {
    throw new IcError('DB_UNAVAILABLE', `the database path ${path} is ${file.what}, not a file`, { path, hint: `remove or rename ${path}, or point --db/IC_DB at a file` });
  }
  if (file.kind === 'not_sqlite') {
    throw new IcError('DB_UNAVAILABLE', `${path} is not a database ic can read (not a SQLite file)`, { path, sqlite_code: 'SQLITE_NOTADB' });
  }
  if (file.kind === 'foreign') throw foreignDatabase(path, file.applicationId);
}

function refuseOddSidecar(path: string): void {
  const odd = oddSidecar(path);
  if (odd !== undefined)
    throw new IcError('DB_UNAVAILABLE', `${odd.path} is ${odd.what}, not a file; SQLite would wait on it forever`, { path: odd.path, hint: `remove ${odd.path} (SQLite recreates it)` });
}

function foreignDatabase(path: string, applicationId: number): IcError {
  const hint = `point --db/IC_DB at another file; if ${path} is a database of ic 0.1, import its live locks with: ic init --import ${shellQuote(path)}`;
  return new IcError('DB_UNAVAILABLE', `${path} is a SQLite database that ic did not create (application_id ${applicationId}); ic leaves it alone`, { path, application_id: applicationId, hint });
}

// A header with no schema may hide a foreign database whose pages are all still in its -wal. A read-write
// connection that refused it would, on closing, checkpoint that WAL into the file and delete it; a
// read-only one reads the WAL and leaves the file and its -wal byte for byte as they were.
function probeReadOnly(path: string, options: OpenOptions): void {
  let db: Database.Database;
  try {
    db = openSqlite(path, { timeout: options.busyTimeoutMs, fileMustExist: true, readonly: true });
  } catch {
    return; // e.g. removed meanwhile: the read-write open below reports what is wrong
  }
  try {
    refuseForeignSchema(db, path);
  } finally {
    db.close();
  }
}

// The header said "no schema", but a WAL may hold newer pages than the file: ask SQLite, which reads both.
function refuseForeignSchema(db: Database.Database, path: string): void {
  // One statement, so one read snapshot: read apart, another process's first migration could commit
  // between the two reads and look like a schema without ic's mark.
  const row = db.prepare("SELECT (SELECT application_id FROM pragma_application_id) AS id, (SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%') AS tables").get() as {
    id: number;
    tables: number;
  };
  if (row.id !== IC_APPLICATION_ID && row.tables > 0) throw foreignDatabase(path, row.id);
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

// The default location's own directory (git's common dir/ic, or <root>/.ic) is made on first write; its
// parent always exists. An explicit path's directory is never made: a typo must fail, not fork the state.
function makeDatabaseDirectory(dir: string, explicit: boolean): void {
  let stat;
  try {
    stat = statSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (stat?.isDirectory()) return;
  if (stat) throw Object.assign(new Error(`ENOTDIR: ${dir} is a file, not a directory`), { code: 'ENOTDIR' });
  if (explicit) {
    throw new IcError('DB_UNAVAILABLE', `the directory ${dir} does not exist; ic never creates one for --db or IC_DB`, {
      path: dir,
      hint: `check the path for a typo, or create it first: mkdir -p ${shellQuote(dir)}`,
    });
  }
  try {
    mkdirSync(dir);
  } catch (error) {
    // Another process's first write made it between our look and now: that is the directory we want.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(dir).isDirectory()) throw error;
  }
}

// WAL keeps its index in shared memory (the -shm file, mmap'ed by every process); network file systems
// neither share that memory between hosts nor lock reliably, so two hosts could both be granted a lock.
// A hook judges it once: its later opens reuse the connection (sqlite-connection.ts).
function refuseNetworkFileSystem(path: string, env: NodeJS.ProcessEnv): void {
  if (knownLocalFileSystem(dirname(path), env)) return;
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
function configureRetryingBusy(db: Database.Database, path: string, options: OpenOptions, write: boolean): void {
  const giveUpAt = Date.now() + options.busyTimeoutMs;
  for (;;) {
    try {
      return configure(db, path, options, write);
    } catch (error) {
      if (!isBusyError(error) || Date.now() >= giveUpAt) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5 + Math.random() * 20);
    }
  }
}

function configure(db: Database.Database, path: string, options: OpenOptions, write: boolean): void {
  db.pragma('foreign_keys = ON'); // how long a statement waits for another connection's lock: the open's `timeout` (better-sqlite3 sets it)
  // A reader never migrates or converts: it needs the schema this ic reads, or it says what to do.
  if (!write) return requireCurrentSchema(db, path);
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

// A reader cannot upgrade the file it reads (that is a write), and an older schema would be read wrongly.
function requireCurrentSchema(db: Database.Database, path: string): void {
  if (refuseNewerSchema(db, path) >= LATEST_VERSION) return;
  throw new IcError('DB_UNAVAILABLE', `the database at ${path} has an older schema; a write upgrades it`, { path, hint: 'Try: ic init (upgrades the database in place, keeping every lock)' });
}

// A read of a database that does not exist yet answers from an empty in-memory one: no file is created.
function openEmpty(now: number): Connection {
  const db = openSqlite(':memory:');
  migrate(db, ':memory:', now);
  return new SqliteConnection(db, ':memory:');
}
