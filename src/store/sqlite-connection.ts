import type Database from 'better-sqlite3';
import type { Connection, Sql, Statement, WriteScope } from './connection';

type Runner = Database.Transaction<(work: () => unknown) => unknown>;

// The embedded engine: a better-sqlite3 handle behind the store's Connection. SQLite-only work (pragmas,
// migrations, checkpoints, integrity, the application id) takes `.sqlite` through sqliteHandle() and
// does nothing, or is not offered, on another engine.
export class SqliteConnection implements Connection {
  readonly engine = 'sqlite' as const;
  private readonly statements = new Map<string, Database.Statement>();
  private runner: Runner | undefined;

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
  write<T>(_scope: WriteScope, work: () => T): T {
    return this.transactions().immediate(work) as T;
  }

  read<T>(work: () => T): T {
    return this.transactions().deferred(work) as T;
  }

  setLockWait(ms: number): void {
    this.sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(ms))}`);
  }

  now(clientClock: () => number): number {
    return clientClock();
  }

  close(): void {
    this.sqlite.close();
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
