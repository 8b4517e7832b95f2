import { cached, type Connection, type RunResult, type Sql, type Statement, type WriteScope } from '../connection';
import { PostgresConnection, type PostgresOptions } from './connection';
import type { SqlParameter } from './values';
import { NEWEST_EVENT_SQL } from '../clock';

// Every write takes this advisory lock shared and a write of `everything` takes it exclusively: a write
// that cannot name its scopes beforehand (a sweep, settings, the clock) then runs alone, as every write does
// on SQLite. Any key would do; this one is ic's, fixed forever.
export const EVERYTHING_LOCK_KEY = 7_130_120_725;
// A write naming owners takes, after the key above, one advisory lock per owner: (this class, hashtext(owner)),
// the two-key form, which never meets a one-key lock. A hash collision only serialises two owners' writes.
const OWNER_LOCK_CLASS = 713_012;

export interface PgConnectionOptions extends PostgresOptions {
  /**
   * Tests only (IC_TEST_CLOCK=1 with IC_TEST_PG_CLIENT_CLOCK=1): transactions act at the client's clock
   * (IC_NOW), as on SQLite, so a test can step past a TTL. Otherwise the server's clock decides.
   */
  clientClock?: boolean;
}

// The store's Connection on PostgreSQL (docs/postgres.md): statements through one connection (pipelined where
// the caller does not wait: runLater, prefetch, a read's COMMIT); each write one READ COMMITTED transaction holding its scopes' row locks (the single writer per
// scope that SQLite's file lock gives, while other scopes run in parallel); each read one snapshot; the
// time a transaction acts at read from the server's clock.
export class PgConnection implements Connection {
  readonly engine = 'postgres' as const;
  readonly location: string;
  private readonly statements = new Map<string, Statement>();
  private depth = 0;
  // In a read transaction (one snapshot): the only place prefetch() is honoured.
  private reading = false;
  // Read with the write's last scope lock, until the write's clock check takes it (newestEventRead).
  private newestEvent: number | null | undefined;
  private lockWaitMs: number;

  constructor(
    readonly pg: PostgresConnection,
    private readonly options: { lockWaitMs: number; clientClock: boolean },
  ) {
    this.location = pg.shownUrl;
    this.lockWaitMs = options.lockWaitMs;
  }

  static open(url: string, options: PgConnectionOptions = {}): PgConnection {
    const pg = PostgresConnection.open(url, options);
    return new PgConnection(pg, { lockWaitMs: options.lockTimeoutMs ?? 5_000, clientClock: options.clientClock === true });
  }

  prepare(sql: Sql): Statement {
    const text = typeof sql === 'string' ? sql : sql.postgres;
    return cached(this.statements, text, () => this.statementFor(text));
  }

  async write<T>(scope: WriteScope, work: () => Promise<T>): Promise<T> {
    if (this.depth > 0) return this.savepoint(work);
    await this.pg.ready();
    // Sent with the first statement of the work: the transaction, its lock wait and the shared side of the
    // everything lock (a lock wait that ran out is reported by that statement). PostgreSQL reads a lock
    // timeout of 0 as "wait forever"; ic's 0 means "do not wait".
    const everything = 'everything' in scope;
    this.pg.session.execLater(
      `BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = ${Math.max(1, this.lockWaitMs)}; SELECT ${everything ? 'pg_advisory_xact_lock' : 'pg_advisory_xact_lock_shared'}(${EVERYTHING_LOCK_KEY})`,
    );
    return this.inTransaction(async () => {
      if (everything) return work();
      // Always in this order (the everything key, owners, scopes; each sorted), so two writers cannot deadlock.
      for (const owner of [...new Set(scope.owners)].sort()) this.pg.runLater(`SELECT pg_advisory_xact_lock(${OWNER_LOCK_CLASS}, hashtext(?))`, [owner]);
      await this.lockScopes([...new Set(scope.scopes)].sort());
      return work();
    });
  }

  // The scopes' rows, in order; with the last lock the newest event's time, which the write's clock check reads
  // first thing (coord/context.ts): one round trip for both.
  private async lockScopes(keys: readonly string[]): Promise<void> {
    for (const [at, key] of keys.entries()) {
      if (at < keys.length - 1) {
        await this.pg.lockScope(key);
        continue;
      }
      const [newest] = await this.pg.lockScopeAnd<{ created_at: number }>(key, NEWEST_EVENT_SQL);
      this.newestEvent = newest ? newest.created_at : null;
    }
  }

  newestEventRead(): number | null | undefined {
    const read = this.newestEvent;
    this.newestEvent = undefined;
    return read;
  }

  // One snapshot for the whole read (REPEATABLE READ); READ ONLY, so a read that tried to write would fail
  // loudly instead of writing without its scope's lock. Inside a write it is part of that write.
  async read<T>(work: () => Promise<T>): Promise<T> {
    if (this.depth > 0) return work();
    await this.pg.ready();
    this.pg.session.execLater('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // Its COMMIT goes out at once (no snapshot stays open) but is not waited for: a read-only transaction's
    // commit has nothing to confirm, and a hook's three or four reads each save a round trip.
    this.reading = true;
    return this.inTransaction(work, () => this.pg.session.sendAhead('COMMIT'));
  }

  // Inside a read (one snapshot, so its rows cannot differ from the later run's): sent with the read's next
  // statement. Elsewhere nothing is done, and the statement runs when asked, as always.
  prefetch(sql: Sql, params: readonly unknown[]): void {
    if (this.reading) this.pg.prefetch(typeof sql === 'string' ? sql : sql.postgres, params as SqlParameter[]);
  }

  /** Not inside a transaction: another open in this process may use it (a hook process shares its connections). */
  idle(): boolean {
    return this.depth === 0;
  }

  setLockWait(ms: number): void {
    this.lockWaitMs = Math.max(0, Math.floor(ms));
  }

  // The server's clock (coord/context.ts asks once per transaction, after its locks are held, and nested
  // writes and reads act at that time).
  async now(clientClock: () => number): Promise<number> {
    return this.options.clientClock ? clientClock() : this.pg.serverNowMs();
  }

  close(): void {
    this.pg.close();
  }

  private async inTransaction<T>(work: () => Promise<T>, commit: () => Promise<void> | void = () => this.pg.exec('COMMIT')): Promise<T> {
    this.depth = 1;
    this.newestEvent = undefined;
    try {
      const result = await work();
      await commit();
      return result;
    } catch (error) {
      await this.pg.rollbackQuietly();
      throw error;
    } finally {
      this.depth = 0;
      this.reading = false;
      this.newestEvent = undefined;
      this.pg.dropPrefetched();
    }
  }

  private async savepoint<T>(work: () => Promise<T>): Promise<T> {
    const name = `ic_${this.depth}`;
    this.pg.session.execLater(`SAVEPOINT ${name}`);
    this.depth += 1;
    try {
      const result = await work();
      this.pg.session.execLater(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      try {
        await this.pg.exec(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`);
      } catch {
        // the original error is the one to report (the outer transaction rolls back)
      }
      throw error;
    } finally {
      this.depth -= 1;
    }
  }

  // Any statement of the write's own ends what newestEventRead may answer: only a clock check that comes
  // first may take the time read with the lock, never a later reader after the write's own events.
  private statementFor(text: string): Statement {
    const pg = this.pg;
    const rows = async (params: SqlParameter[]): Promise<Record<string, unknown>[]> => {
      this.newestEvent = undefined;
      return pg.takePrefetched(text, params) ?? pg.all(text, params);
    };
    return {
      get: async (...params: unknown[]) => (await rows(params as SqlParameter[]))[0],
      all: (...params: unknown[]) => rows(params as SqlParameter[]),
      runLater: (...params: unknown[]): void => {
        this.newestEvent = undefined;
        pg.runLater(text, params as SqlParameter[]);
      },
      run: async (...params: unknown[]): Promise<RunResult> => {
        this.newestEvent = undefined;
        const { rows, changes } = await pg.run(text, params as SqlParameter[]);
        const first = rows[0];
        const id = first === undefined ? 0 : Object.values(first)[0];
        return { changes, lastInsertRowid: typeof id === 'number' || typeof id === 'bigint' ? id : Number(id ?? 0) };
      },
    };
  }
}
