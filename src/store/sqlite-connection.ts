import type Database from 'better-sqlite3';
import { cached, type Connection, type Sql, type Statement, type WriteScope } from './connection';
import { isBusyError } from './errors';
import { monotonicMs } from './clock';

const WRITE_LOCK_POLL_MS = 1;
const pollSleeper = new Int32Array(new SharedArrayBuffer(4));

// The embedded engine: a better-sqlite3 handle behind the store's Connection. SQLite-only work (pragmas,
// migrations, checkpoints, integrity, the application id) takes `.sqlite` through sqliteHandle() and
// does nothing, or is not offered, on another engine.
export class SqliteConnection implements Connection {
  readonly engine = 'sqlite' as const;
  private readonly statements = new Map<string, Statement>();
  // The transaction control statements, run directly.
  private readonly sqliteStatements = new Map<string, Database.Statement>();
  // Open transactions, the outer one included: a write or read inside another is a savepoint.
  private depth = 0;
  private lockWaitMs: number | undefined;

  constructor(
    readonly sqlite: Database.Database,
    readonly location: string,
  ) {}

  // Each text is prepared once per connection; the Statement answers with better-sqlite3's synchronous
  // result, as a settled promise.
  prepare(sql: Sql): Statement {
    const text = typeof sql === 'string' ? sql : sql.sqlite;
    return cached(this.statements, text, () => promised(this.sqlite.prepare(text)));
  }

  // BEGIN IMMEDIATE takes the one write lock of the whole file, so the scope needs no lock of its own.
  // The transaction is run here, not by better-sqlite3's db.transaction(), which cannot await its body: one
  // connection per process and one statement at a time keep the awaited body alone on the connection.
  // async: a busy lock (or any failure to begin) is a rejection, as every other failure of the store is.
  async write<T>(_scope: WriteScope, work: () => Promise<T>): Promise<T> {
    if (this.depth > 0 || this.sqlite.inTransaction) return this.savepoint(work);
    this.takeWriteLock();
    return this.transaction(work);
  }

  async read<T>(work: () => Promise<T>): Promise<T> {
    if (this.depth > 0 || this.sqlite.inTransaction) return this.savepoint(work);
    this.sqliteStatement('BEGIN').run();
    return this.transaction(work);
  }

  private async transaction<T>(work: () => Promise<T>): Promise<T> {
    this.depth = 1;
    let committed = false;
    try {
      const result = await work();
      this.sqliteStatement('COMMIT').run();
      committed = true;
      return result;
    } finally {
      this.depth = 0;
      // SQLite may have rolled back already (some errors end the transaction themselves)
      if (!committed && this.sqlite.inTransaction) this.sqliteStatement('ROLLBACK').run();
    }
  }

  // A transaction inside another, as better-sqlite3 nests them: a savepoint, released when `work` settles,
  // rolled back to (and released) when it throws, while the outer transaction is still open.
  private async savepoint<T>(work: () => Promise<T>): Promise<T> {
    const name = `ic_${this.depth}`;
    this.sqlite.exec(`SAVEPOINT ${name}`);
    this.depth += 1;
    try {
      const result = await work();
      this.sqlite.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      if (this.sqlite.inTransaction) this.sqlite.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
      throw error;
    } finally {
      this.depth -= 1;
    }
  }

  private sqliteStatement(text: string): Database.Statement {
    return cached(this.sqliteStatements, text, () => this.sqlite.prepare(text));
  }

  setLockWait(ms: number): void {
    this.lockWaitMs = Math.max(0, Math.floor(ms));
    this.sqliteStatement(`PRAGMA busy_timeout = ${this.lockWaitMs}`).get(); // the same text as takeWriteLock's restore: prepared once
  }

  async now(clientClock: () => number): Promise<number> {
    return clientClock();
  }

  close(): void {
    this.sqlite.close();
  }

  /** Open and not inside a transaction: another open in this process may use it (a hook process shares its connections). */
  idle(): boolean {
    return this.sqlite.open && !this.sqlite.inTransaction;
  }

  // Waits for the write lock by trying every millisecond instead of through SQLite's busy handler, whose
  // sleeps grow to 100 ms: a writer that gives the lock back for a moment between short transactions (a
  // bulk operation's chunks) would otherwise keep it from a waiter that wakes up too seldom to see the gap.
  private takeWriteLock(): void {
    const begin = this.sqliteStatement('BEGIN IMMEDIATE');
    const waitMs = (this.lockWaitMs ??= Number(this.sqlite.pragma('busy_timeout', { simple: true })));
    if (waitMs === 0) return void begin.run();
    this.sqliteStatement('PRAGMA busy_timeout = 0').get();
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
      this.sqliteStatement(`PRAGMA busy_timeout = ${waitMs}`).get();
    }
  }
}

// better-sqlite3's statement behind the store's Statement: its synchronous results as settled promises (a
// throw becomes a rejection).
function promised(prepared: Database.Statement): Statement {
  return {
    get: async (...params: unknown[]) => prepared.get(...params),
    all: async (...params: unknown[]) => prepared.all(...params),
    run: async (...params: unknown[]) => prepared.run(...params),
  };
}

/** The better-sqlite3 handle under a SQLite connection; undefined on any other engine. */
export function sqliteHandle(connection: Connection): Database.Database | undefined {
  return connection instanceof SqliteConnection ? connection.sqlite : undefined;
}

// A hook process opens its database more than once (the liveness step, then the hook's own work, then the
// custody view): each open costs a file check, SQLite's schema parse and the pragmas (on a server, a connect
// and a schema check). In a hook process (and only there: a CLI call or a test may close a database and expect
// it gone) those opens share one connection per database and mode, kept under a key naming both.
let sharing = false;
const connections = new Map<string, Connection & { idle(): boolean }>();

export function shareConnections(): void {
  sharing = true;
}

// The kept connection to reuse, if there is one outside a transaction, given the caller's lock wait.
export function sharedConnection(key: string, lockWaitMs: number): Connection | undefined {
  const kept = connections.get(key);
  if (kept === undefined || !kept.idle()) return undefined;
  kept.setLockWait(lockWaitMs);
  return kept;
}

// Keeps a freshly opened connection for the next open under the same key; its close() then does nothing.
export function keepShared<T extends Connection & { idle(): boolean }>(key: string, connection: T): T {
  if (!sharing || connections.has(key)) return connection;
  connections.set(key, connection);
  connection.close = () => undefined;
  return connection;
}
