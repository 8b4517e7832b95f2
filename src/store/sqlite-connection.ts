import type Database from 'better-sqlite3';
import type { Connection, Sql, Statement, WriteScope } from './connection';
import { isBusyError } from './errors';
import { monotonicMs } from './monotonic';

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
