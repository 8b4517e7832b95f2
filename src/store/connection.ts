// The store's one boundary with a database engine (docs/design/architecture.md, "The store interface"): every
// store function takes a Connection, and coord, core and hooks see nothing else of the engine. SQLite is
// the embedded default (sqlite-connection.ts); a PostgreSQL engine implements the same interface.

export type Engine = 'sqlite' | 'postgres';

/** One statement's text for each engine, where their dialects differ. Keep it a module-level constant: it is looked up by its text, once per connection. */
export interface DialectSql {
  readonly sqlite: string;
  readonly postgres: string;
}

/** Every dialect statement of the modules loaded so far (the conformance test checks each). */
export const dialectStatements: DialectSql[] = [];

/** A statement whose text differs by engine: declared once, at module level, and listed for the conformance test and docs/design/architecture.md. */
export function dialect(sql: DialectSql): DialectSql {
  const frozen = Object.freeze({ sqlite: sql.sqlite, postgres: sql.postgres });
  dialectStatements.push(frozen);
  return frozen;
}

/** The value kept in `map` for a statement's text, made once (a connection prepares each text once). */
export function cached<T>(map: Map<string, T>, text: string, make: () => T): T {
  let value = map.get(text);
  if (value === undefined) map.set(text, (value = make()));
  return value;
}

/** SQL with `?` placeholders: one text for both engines, or a DialectSql where they differ. */
export type Sql = string | DialectSql;

export interface RunResult {
  changes: number;
  /** SQLite: the inserted row's rowid. PostgreSQL: the first column of the first row a RETURNING clause gives. */
  lastInsertRowid: number | bigint;
}

/** A prepared statement: positional parameters, rows as plain objects, numbers as JS numbers. */
export interface Statement {
  get(...params: unknown[]): Promise<unknown>;
  all(...params: unknown[]): Promise<unknown[]>;
  run(...params: unknown[]): Promise<RunResult>;
  /** Optional: a write whose result nobody reads, sent with the next statement (PostgreSQL: one round trip fewer; its error is reported there). */
  runLater?(...params: unknown[]): void;
}

// A write inside a transaction whose result nobody reads: an engine that can sends it with the next statement
// (its error then fails that one, and so the transaction); SQLite runs it at once.
export async function runWithoutResult(prepared: Statement, ...params: unknown[]): Promise<void> {
  if (prepared.runLater) prepared.runLater(...params);
  else await prepared.run(...params);
}

/**
 * What a write transaction may change: the scopes (stored scope keys) whose rows it reads to decide and
 * writes, or everything. SQLite ignores it (BEGIN IMMEDIATE locks the whole file); PostgreSQL takes one
 * lock per scope, so writers in different scopes run in parallel. `owners`: rows of these owners that no
 * grant decides by (their sessions, their open commands) in any scope; writers naming one owner run one at a
 * time. A write that touches rows of scopes it cannot name beforehand (a sweep, an import, the clock,
 * settings) says `everything`.
 */
export type WriteScope = { readonly scopes: readonly string[]; readonly owners?: readonly string[] } | { readonly everything: true };

export const EVERYTHING: WriteScope = Object.freeze({ everything: true as const });

export function inScopes(...scopes: string[]): WriteScope {
  return { scopes };
}

export interface Connection {
  readonly engine: Engine;
  /** Where the data lives, for messages: a file path (or ':memory:'), or a server address without credentials. */
  readonly location: string;
  /** The statement for this text, prepared once per connection and cached (preparing is a measurable part of a short-lived call). */
  prepare(sql: Sql): Statement;
  /** Runs `work` in one write transaction holding the scope's write lock: it commits when `work` settles and rolls back when it throws. Nested, it is a savepoint. */
  write<T>(scope: WriteScope, work: () => Promise<T>): Promise<T>;
  /** Runs `work` in one read transaction: one consistent snapshot, no write lock. */
  read<T>(work: () => Promise<T>): Promise<T>;
  /** How long a statement waits for another writer's lock before the engine reports busy (BUSY, exit 75). SQLite: busy_timeout; PostgreSQL: lock_timeout. */
  setLockWait(ms: number): void;
  /** The time a transaction acts at. SQLite: the client's clock. PostgreSQL: the server's (clock_timestamp()), so a client clock hours off cannot grant over a live lock. */
  now(clientClock: () => number): Promise<number>;
  /** Closes the connection (a connection shared within a hook process ignores it; the process exit closes it). */
  close(): void;
  /**
   * Optional, inside a read: a statement the read will run, which an engine may send with the read's next
   * statement (PostgreSQL: one round trip for both); the read's own run of it then gets those rows.
   */
  prefetch?(sql: Sql, params: readonly unknown[]): void;
  /**
   * Optional, at the start of a write: the newest event's time when the engine already read it with the
   * write's lock (PostgreSQL, in the same round trip as the scope's lock), once; undefined otherwise.
   */
  newestEventRead?(): number | null | undefined;
}
