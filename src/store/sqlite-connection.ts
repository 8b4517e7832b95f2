import type Database from 'better-sqlite3';
import type { Connection, Sql, Statement, WriteScope } from './connection';
import { isBusyError } from './errors';
import { monotonicMs } from './clock';

type Runner = Database.Transaction<(work: () => unknown) => unknown>;

const WRITE_LOCK_POLL_MS = 1;
const pollSleeper = new Int32Array(new SharedArrayBuffer(4));

// The embedded engine: a better-sqlite3 handle behind the store's Connection. SQLite-only work (pragmas,
// migrations, checkpoints, integrity, the application id) takes `.sqlite` through sqliteHandle() and
// does nothing, or is not offered, on another engine.
export class SqliteConnection implements Connection {
  readonly engine = 'sqlite' as const;
  private readonly statements = new Map<string, Database.Statement>();
  private runner: Runner | undefined;
  private lockWaitMs: number | undefined;

  constructor(
    readonly sqlite: Database.Database,
    readonly location: string,
  ) {}

  // Each text is prepared once per connection: better-sqlite3's own statement is the Statement, so a call
  // through the interface costs what a direct call did.
  prepare(sql: Sql): Statement {
    const text = typeof sql === 'string' ? sql : sql.sqlite;
    let prepared = this.statements.get(text);
    if (prepared === undefined) {
      prepared = this.sqlite.prepare(text);
      this.statements.set(text, prepared);
    }
    return prepared;
  }

  // BEGIN IMMEDIATE takes the one write lock of the whole file, so the scope needs no lock of its own.
  // A write inside a write is a savepoint of the outer one (better-sqlite3's nesting).
  write<T>(_scope: WriteScope, work: () => T): T {
    if (this.sqlite.inTransaction) return this.transactions().immediate(work) as T;
    this.takeWriteLock();
    let committed = false;
    try {
      const result = work();
      this.prepare('COMMIT').run();
      committed = true;
      return result;
    } finally {
      if (!committed && this.sqlite.inTransaction) this.prepare('ROLLBACK').run();
    }
  }

  read<T>(work: () => T): T {
    return this.transactions().deferred(work) as T;
  }

  setLockWait(ms: number): void {
    this.lockWaitMs = Math.max(0, Math.floor(ms));
    this.sqlite.pragma(`busy_timeout = ${this.lockWaitMs}`);
  }

  now(clientClock: () => number): number {
    return clientClock();
  }

  close(): void {
    this.sqlite.close();
  }

  // Waits for the write lock by trying every millisecond instead of through SQLite's busy handler, whose
  // sleeps grow to 100 ms: a writer that gives the lock back for a moment between short transactions (a
  // bulk operation's chunks) would otherwise keep it from a waiter that wakes up too seldom to see the gap.
  private takeWriteLock(): void {
    const begin = this.prepare('BEGIN IMMEDIATE');
    const waitMs = (this.lockWaitMs ??= Number(this.sqlite.pragma('busy_timeout', { simple: true })));
    if (waitMs === 0) return void begin.run();
    this.prepare('PRAGMA busy_timeout = 0').get();
    try {
      const giveUpAt = monotonicMs() + waitMs;
      for (;;) {
        try {
          begin.run();
          return;
        } catch (error) {
          if (!isBusyError(error) || monotonicMs() >= giveUpAt) throw error;
        }
        Atomics.wait(pollSleeper, 0, 0, WRITE_LOCK_POLL_MS);
      }
    } finally {
      this.prepare(`PRAGMA busy_timeout = ${waitMs}`).get();
    }
  }

  // One transaction function per connection, given the work as an argument: better-sqlite3 builds a new
  // wrapper (several closures and property definitions) for every db.transaction() call.
  private transactions(): Runner {
    this.runner ??= this.sqlite.transaction((work: () => unknown) => work());
    return this.runner;
  }
}

/** The better-sqlite3 handle under a SQLite connection; undefined on any other engine. */
export function sqliteHandle(connection: Connection): Database.Database | undefined {
  return connection instanceof SqliteConnection ? connection.sqlite : undefined;
}

// A hook process opens its database more than once (the liveness step, then the hook's own work, then the
// custody view): each open costs a file check, SQLite's schema parse and the pragmas. In a hook process
// (and only there: a CLI call or a test may close a database and expect it gone) those opens share one
// connection per file and mode, closed at the hook's end (closeSharedConnections).
let sharing = false;
const connections = new Map<string, SqliteConnection>();

export function shareConnections(): void {
  sharing = true;
}

/** True in a hook process: connections are kept for the process's next open (PostgreSQL's too: postgres/open.ts). */
export function sharingConnections(): boolean {
  return sharing;
}

function keyOf(path: string, write: boolean): string {
  return `${write ? 'w' : 'r'}\0${path}`;
}

// The open connection to reuse, if there is one (the caller sets its own busy timeout on it).
export function sharedConnection(path: string, write: boolean): SqliteConnection | undefined {
  if (!sharing) return undefined;
  const connection = connections.get(keyOf(path, write));
  return connection !== undefined && connection.sqlite.open && !connection.sqlite.inTransaction ? connection : undefined;
}

// Keeps a freshly opened connection for the next open of the same file; its close() then does nothing.
export function keepShared(path: string, write: boolean, connection: SqliteConnection): SqliteConnection {
  if (!sharing || connections.has(keyOf(path, write))) return connection;
  connections.set(keyOf(path, write), connection);
  connection.close = () => undefined;
  return connection;
}

// Closes the kept SQLite connections, before a hook process exits without Node's teardown (which is where
// better-sqlite3 would close them): the last connection's close checkpoints the WAL into the database file,
// whose header is how ic tells a database from an empty file (store/db-file.ts). A server's connection
// needs nothing: the exit closes its socket, as a natural exit does.
export function closeSharedConnections(): void {
  for (const connection of connections.values()) {
    try {
      if (connection.sqlite.open) connection.sqlite.close();
    } catch {
      // closing is best effort: the WAL stays valid and the next connection recovers it
    }
  }
  connections.clear();
}
