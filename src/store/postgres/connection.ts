import { IcError } from '../../core/errors';
import { badUrlError, connectError, lostConnectionError, translateServerError, unusableServerError } from './errors';
import { numberPlaceholders } from './placeholders';
import { Session, SessionError, type Query, type ResultSet } from './session';
import { redactText, redactUrl, secretsOf, parameterOf, withDefaults, withParameter } from './url';
import { decoderFor, encodeParameter, type SqlParameter } from './values';
import { monotonicMs } from '../clock';

export interface PostgresOptions {
  // How long connecting may take (connect_timeout, whole seconds, at least 2, as libpq counts). Default 5 s.
  connectTimeoutMs?: number;
  // How long one statement may wait for a lock (lock_timeout): past it the call is BUSY. Default 5 s, like SQLite's busy timeout.
  lockTimeoutMs?: number;
  // How long one statement may run (statement_timeout). Default 30 s.
  statementTimeoutMs?: number;
  // The PostgreSQL schema holding ic's tables (search_path). Default `ic`; a `search_path` in the URL's `options` wins.
  schema?: string;
  env?: NodeJS.ProcessEnv;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_LOCK_TIMEOUT_MS = 5_000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
export const DEFAULT_SCHEMA = 'ic';

/** The server's time as one SQL expression: epoch milliseconds of clock_timestamp() (the time now, not the transaction's start). */
export const SERVER_NOW_SQL = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

// How long one reading of the server's clock serves this connection (see serverNowMs).
const CLOCK_READING_REUSE_MS = 1_000;

function milliseconds(value: number | undefined, fallback: number): number {
  return Math.max(0, Math.floor(value ?? fallback));
}

// The settings every ic session runs with, passed at connect time (no extra round trip). A person's own
// `options` in the URL come after ours, so theirs win.
function sessionOptions(url: string, options: PostgresOptions): string {
  const flags = [
    `-c lock_timeout=${milliseconds(options.lockTimeoutMs, DEFAULT_LOCK_TIMEOUT_MS)}`,
    `-c statement_timeout=${milliseconds(options.statementTimeoutMs, DEFAULT_STATEMENT_TIMEOUT_MS)}`,
    // A backend notices a client killed mid-statement within a second and rolls its transaction back,
    // instead of holding the scope's lock until the statement ends (PostgreSQL 14+).
    '-c client_connection_check_interval=1000',
    // A client stopped (SIGSTOP, a frozen VM) inside a transaction, not killed, would hold its scope's lock until
    // TCP gives up: the server ends such a session after a minute idle in it. No ic transaction pauses that long
    // between two statements; the stopped client, resumed, gets BUSY (25P03) and its transaction is rolled back.
    '-c idle_in_transaction_session_timeout=60000',
    `-c search_path=${options.schema ?? DEFAULT_SCHEMA}`,
  ];
  const theirs = parameterOf(url, 'options');
  return theirs ? `${flags.join(' ')} ${theirs}` : flags.join(' ');
}

// One connection to PostgreSQL (node-postgres on this thread: session.ts): the same shape of calls the SQLite
// store makes (`?` placeholders, rows as plain objects, integers as numbers), so that store code can be written
// once per statement rather than once per engine. Every error leaves here as an IcError whose text holds no
// password.
export class PostgresConnection {
  // Reads announced ahead (prefetch): sent with the next statement, their rows kept until asked for once.
  private ahead: { key: string; query: Query }[] = [];
  private fetched = new Map<string, ResultSet>();
  // The last reading of the server's clock, and when it was taken on this host's monotonic clock.
  private clockReading: { serverMs: number; takenAt: number } | undefined;
  // What must run before anything else (openWith: the schema check); every call waits for it.
  private opening: Promise<void> | undefined;

  private constructor(
    // Reached directly for what needs no error translation: statements sent later (their errors are the next
    // statement's), the server's version and whether the connection is encrypted (after ready()).
    readonly session: Session,
    readonly shownUrl: string,
    private readonly secrets: readonly string[],
  ) {}

  // Starts connecting and returns at once: the login overlaps whatever the caller does before its first statement.
  static open(url: string, options: PostgresOptions = {}): PostgresConnection {
    const env = options.env ?? process.env;
    const secrets = secretsOf(url, env);
    const shownUrl = redactText(redactUrl(url), secrets);
    const connectSeconds = Math.max(2, Math.ceil(milliseconds(options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS) / 1000));
    const conninfo = withParameter(withDefaults(url, { connect_timeout: String(connectSeconds), application_name: 'ic' }), 'options', sessionOptions(url, options));
    const connectText = parameterOf(url, 'connect_timeout') || env.PGCONNECT_TIMEOUT; // the URL's, then the variable, then ours
    const connectTimeoutMs = Number(connectText) > 0 ? Math.max(2, Number(connectText)) * 1000 : connectSeconds * 1000;
    const statementWaitMs = milliseconds(options.statementTimeoutMs, DEFAULT_STATEMENT_TIMEOUT_MS) || DEFAULT_STATEMENT_TIMEOUT_MS;
    try {
      return new PostgresConnection(new Session(conninfo, env, { connectTimeoutMs, statementWaitMs }), shownUrl, secrets);
    } catch (error) {
      if (!(error instanceof SessionError)) throw error;
      throw (error.systemCode === 'CONFIG' ? badUrlError : connectError)(redactText(error.message.trim(), secrets), shownUrl);
    }
  }

  // Runs `first` (given this connection without the wait) before any other call on it; its failure closes the
  // connection and is every later call's.
  openWith(first: (db: PostgresConnection) => Promise<void>): void {
    const inner = new PostgresConnection(this.session, this.shownUrl, this.secrets);
    this.opening = first(inner).then(
      () => void (this.clockReading ??= inner.clockReading),
      (error: unknown) => {
        this.close();
        throw error;
      },
    );
    void this.opening.catch(() => undefined);
  }

  /** Resolves once logged in (and past openWith's work). */
  async ready(): Promise<void> {
    await this.guard(() => this.session.connected);
  }

  close(): void {
    this.session.close();
  }

  // Runs statements without parameters (several may be separated by `;`).
  async exec(sql: string): Promise<void> {
    await this.guard(() => this.session.exec(sql));
  }

  // A write whose result nobody reads, sent with the next statement (session.ts, execLater).
  runLater(sql: string, params: readonly SqlParameter[] = []): void {
    const query = queryOf(sql, params);
    this.session.execLater(query.sql, query.parameters);
  }

  async all<Row = Record<string, unknown>>(sql: string, params: readonly SqlParameter[] = []): Promise<Row[]> {
    return rowsOf<Row>(await this.execute(sql, params));
  }

  // One statement's rows and the number of rows it changed (for an INSERT … RETURNING, both).
  async run<Row = Record<string, unknown>>(sql: string, params: readonly SqlParameter[] = []): Promise<{ rows: Row[]; changes: number }> {
    const result = await this.execute(sql, params);
    return { rows: rowsOf<Row>(result), changes: result.changes };
  }

  async get<Row = Record<string, unknown>>(sql: string, params: readonly SqlParameter[] = []): Promise<Row | undefined> {
    return (await this.all<Row>(sql, params))[0];
  }

  // The server's clock in epoch milliseconds, now (not at the transaction's start): every expiry and liveness
  // time comes from here, so clients with wrong clocks still agree. A reading serves this connection for a
  // second, advanced by the time elapsed on this host's monotonic clock (which no clock step moves, and which
  // runs at the server's rate to within parts per million): a hook's four or five transactions then cost one
  // round trip for the time, not one each. An estimate is never ahead of the server's clock (see noteServerClock).
  async serverNowMs(): Promise<number> {
    await this.opening;
    const at = monotonicMs();
    const reading = this.clockReading;
    if (reading !== undefined && at - reading.takenAt < CLOCK_READING_REUSE_MS) return Math.floor(reading.serverMs + (at - reading.takenAt));
    return this.readServerClock();
  }

  // Reads the server's clock now (`ic doctor`'s skew check wants a reading, not an estimate).
  async readServerClock(): Promise<number> {
    const serverMs = (await this.get<{ now: number }>(`SELECT ${SERVER_NOW_SQL} AS now`))!.now;
    this.noteServerClock(serverMs);
    return serverMs;
  }

  // A reading of the server's clock that came with another statement (SERVER_NOW_SQL in its select list),
  // just answered: taken as read when its reply arrived, so an estimate may lag by a round trip
  // but never runs ahead. Taken halfway, it ran ahead by half of any pause between asking and sending (a SIGSTOP, a
  // loaded host): a lock's created_at then fell after its own commit (the PostgreSQL stress test caught it).
  noteServerClock(serverMs: number): void {
    this.clockReading = { serverMs, takenAt: monotonicMs() };
  }

  // Locks the scope's row inside the open transaction: the single writer per scope that SQLite's file lock
  // gives, while other scopes proceed in parallel. A missing row is created first (FOR UPDATE on a row that
  // is not there locks nothing): the common case costs one statement, a new scope three.
  async lockScope(scope: string): Promise<void> {
    if ((await this.all(LOCK_SCOPE_SQL, [scope])).length > 0) return;
    await this.createAndLockScope(scope);
  }

  // The same, and then `next` (a statement without parameters) in the same exchange: the server runs it once
  // the lock is held, and the caller waits one round trip for both. When the scope's row was missing, `next`
  // ran without the lock: its rows are thrown away and it runs again once the row is created and locked.
  async lockScopeAnd<Row>(scope: string, next: string): Promise<Row[]> {
    const [locked, rows] = await this.guard(() => this.session.queries([queryOf(LOCK_SCOPE_SQL, [scope]), queryOf(next, [])]));
    if (locked!.rows.length > 0) return rowsOf<Row>(rows!);
    await this.createAndLockScope(scope);
    return this.all<Row>(next);
  }

  private async createAndLockScope(scope: string): Promise<void> {
    await this.run(`INSERT INTO scopes (scope, created_at) VALUES (?, ${SERVER_NOW_SQL}) ON CONFLICT (scope) DO NOTHING`, [scope]);
    if ((await this.all(LOCK_SCOPE_SQL, [scope])).length === 0) throw new IcError('INTERNAL', `could not lock the scope ${scope}`);
  }

  async rollbackQuietly(): Promise<void> {
    if (this.session.transactionState() === 'unknown') return;
    try {
      await this.session.exec('ROLLBACK');
    } catch {
      // the original error is the one to report
    }
  }

  private async execute(sql: string, params: readonly SqlParameter[]): Promise<ResultSet> {
    const query = queryOf(sql, params);
    const ahead = this.ahead;
    this.ahead = [];
    const results = await this.guard(() => this.session.queries([...ahead.map((read) => read.query), query]));
    ahead.forEach((read, at) => this.fetched.set(read.key, results[at]!));
    return results[ahead.length]!;
  }

  // A read the caller will run in this transaction: sent with the next statement, so the two cost one round
  // trip; the caller's own run of it (the same text and values) then gets these rows, once. The caller keeps
  // it to a snapshot (a read transaction), where its rows cannot differ from a later run's.
  prefetch(sql: string, params: readonly SqlParameter[]): void {
    this.ahead.push({ key: prefetchKey(sql, params), query: queryOf(sql, params) });
  }

  // The rows of a prefetched read, once; undefined when there are none (not announced, or not yet sent).
  takePrefetched<Row = Record<string, unknown>>(sql: string, params: readonly SqlParameter[]): Row[] | undefined {
    if (this.fetched.size === 0) return undefined; // the common case: no key to build for every statement
    const key = prefetchKey(sql, params);
    const result = this.fetched.get(key);
    if (result === undefined) return undefined;
    this.fetched.delete(key);
    return rowsOf<Row>(result);
  }

  // At a transaction's end: what was announced and never asked for is forgotten (and not sent, if not yet).
  dropPrefetched(): void {
    this.ahead = [];
    this.fetched.clear();
  }

  // Waits for openWith's work, then turns a driver's error into an IcError with no secret in it.
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    await this.opening;
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof SessionError)) throw error;
      const message = redactText(error.message.trim() || 'unknown error', this.secrets);
      if (error.systemCode === 'ETIMEDOUT' || error.systemCode === 'EPROTO') throw unusableServerError(message, this.shownUrl);
      if (error.systemCode === 'CONNECT') throw connectError(message, this.shownUrl);
      if (error.lost && !error.sqlstate) throw lostConnectionError(message, this.shownUrl);
      throw translateServerError({ sqlstate: error.sqlstate, message }, this.shownUrl);
    }
  }
}

// A statement with ic's `?` placeholders as the server takes it: `$n` placeholders and the values as text.
function queryOf(sql: string, params: readonly SqlParameter[]): Query {
  const numbered = numberPlaceholders(sql);
  if (numbered.count !== params.length) {
    throw new IcError('INTERNAL', `the SQL statement has ${numbered.count} placeholders but ${params.length} parameters were given`);
  }
  return { sql: numbered.sql, parameters: params.map(encodeParameter) };
}

function prefetchKey(sql: string, params: readonly SqlParameter[]): string {
  return [sql, ...params.map((param) => `${typeof param}:${String(param)}`)].join('\u0000');
}

const LOCK_SCOPE_SQL = 'SELECT scope FROM scopes WHERE scope = ? FOR UPDATE';

// Rows as plain objects keyed by column name, integers and booleans decoded (values.ts).
function rowsOf<Row>(result: ResultSet): Row[] {
  const decoders = result.columns.map((column) => decoderFor(column.typeOid));
  return result.rows.map((values) => {
    const record: Record<string, unknown> = {};
    result.columns.forEach((column, index) => {
      const text = values[index] ?? null;
      const decode = decoders[index];
      record[column.name] = text === null ? null : decode ? decode(text) : text;
    });
    return record as Row;
  });
}
