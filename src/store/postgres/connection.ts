import type PQ from 'libpq';
import { IcError } from '../../core/errors';
import { loadLibpq } from './driver';
import { connectError, lostConnectionError, translateServerError } from './errors';
import { numberPlaceholders } from './placeholders';
import { redactText, redactUrl, secretsOf, parameterOf, withDefaults, withParameter } from './url';
import { decoderFor, encodeParameter, type SqlParameter } from './values';

export interface PostgresOptions {
  // How long connecting may take (libpq's connect_timeout, whole seconds, at least 2). Default 5 s.
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

// libpq's PQtransactionStatus: the connection is bad (PQTRANS_UNKNOWN).
const TRANSACTION_UNKNOWN = 4;

let driver: typeof PQ | undefined;

// The native driver is loaded on first use only: SQLite users never pay for it, and a machine without it gets
// a clear DB_UNAVAILABLE instead of a crash at start.
function loadDriver(): typeof PQ {
  driver ??= loadLibpq();
  return driver;
}

// node-libpq's finish() closes its libuv poll handle, which libuv completes in the closing phase at the end
// of the event loop's next turn, yet lets the JavaScript wrapper (whose native half holds that handle) be
// garbage-collected at once: a collection in between frees the handle under libuv, and the process aborts
// in uv__finish_close (seen in the test suite). The reference is dropped by a timer set from the check
// phase, which runs only after that turn's closing phase, however long the caller then computes. Both are
// unref'd: they never keep a process alive.
const closing = new Set<PQ>();
function keepUntilClosed(pq: PQ): void {
  closing.add(pq);
  setImmediate(() => setTimeout(() => closing.delete(pq), 0).unref()).unref();
}

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

export interface RunResult {
  changes: number;
}

// One synchronous connection to PostgreSQL through libpq: the same shape of calls the SQLite store makes
// (`?` placeholders, rows as plain objects, integers as numbers), so that store code can be written once per
// statement rather than once per engine. Every error leaves here as an IcError whose text holds no password.
export class PostgresConnection {
  private readonly pq: PQ;
  private readonly secrets: readonly string[];
  readonly shownUrl: string;
  private inTransaction = false;

  private constructor(pq: PQ, shownUrl: string, secrets: readonly string[]) {
    this.pq = pq;
    this.shownUrl = shownUrl;
    this.secrets = secrets;
  }

  static open(url: string, options: PostgresOptions = {}): PostgresConnection {
    const secrets = secretsOf(url, options.env ?? process.env);
    const shownUrl = redactText(redactUrl(url), secrets);
    const Driver = loadDriver();
    const connectSeconds = Math.max(2, Math.ceil(milliseconds(options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS) / 1000));
    const conninfo = withParameter(withDefaults(url, { connect_timeout: String(connectSeconds), application_name: 'ic' }), 'options', sessionOptions(url, options));
    const pq = new Driver();
    try {
      pq.connectSync(conninfo);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw connectError(redactText(message.trim(), secrets), shownUrl);
    }
    return new PostgresConnection(pq, shownUrl, secrets);
  }

  close(): void {
    this.pq.finish();
    keepUntilClosed(this.pq);
  }

  serverVersion(): number {
    return this.pq.serverVersion();
  }

  // Runs statements without parameters (several may be separated by `;`).
  exec(sql: string): void {
    this.pq.exec(sql);
    this.check();
  }

  run(sql: string, params: readonly SqlParameter[] = []): RunResult {
    this.execute(sql, params);
    const changes = Number(this.pq.cmdTuples() || 0);
    this.pq.clear();
    return { changes };
  }

  all<Row = Record<string, unknown>>(sql: string, params: readonly SqlParameter[] = []): Row[] {
    this.execute(sql, params);
    const rows = this.readRows<Row>();
    this.pq.clear();
    return rows;
  }

  // One statement's rows and the number of rows it changed (for an INSERT … RETURNING, both).
  query<Row = Record<string, unknown>>(sql: string, params: readonly SqlParameter[] = []): { rows: Row[]; changes: number } {
    this.execute(sql, params);
    const changes = Number(this.pq.cmdTuples() || 0);
    const rows = this.readRows<Row>();
    this.pq.clear();
    return { rows, changes };
  }

  get<Row = Record<string, unknown>>(sql: string, params: readonly SqlParameter[] = []): Row | undefined {
    return this.all<Row>(sql, params)[0];
  }

  // The server's clock in epoch milliseconds, read now (not at the transaction's start): every expiry and
  // liveness time comes from here, so clients with wrong clocks still agree.
  serverNowMs(): number {
    return this.get<{ now: number }>('SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now')!.now;
  }

  // One transaction at READ COMMITTED holding the scope's lock: the single writer per scope that SQLite's
  // database-wide write lock gives, while other scopes proceed in parallel. The scope's row is created first
  // when missing: FOR UPDATE on a row that is not there locks nothing. `lockTimeoutMs` bounds the wait for
  // the scope (0 = do not wait); past it the call is BUSY.
  transaction<T>(scope: string, body: () => T, options: { lockTimeoutMs?: number } = {}): T {
    if (this.inTransaction) throw new IcError('INTERNAL', 'a PostgreSQL transaction was started inside another');
    const lockTimeout = options.lockTimeoutMs === undefined ? '' : `; SET LOCAL lock_timeout = ${Math.max(0, Math.floor(options.lockTimeoutMs)) || 1}`;
    this.exec(`BEGIN ISOLATION LEVEL READ COMMITTED${lockTimeout}`);
    this.inTransaction = true;
    try {
      this.lockScope(scope);
      const result = body();
      this.exec('COMMIT');
      return result;
    } catch (error) {
      this.rollbackQuietly();
      throw error;
    } finally {
      this.inTransaction = false;
    }
  }

  // Locks the scope's row inside the open transaction (the single writer per scope). The common case (the
  // row exists) costs one statement; a new scope costs three.
  lockScope(scope: string): void {
    const lock = 'SELECT scope FROM scopes WHERE scope = ? FOR UPDATE';
    if (this.all(lock, [scope]).length > 0) return;
    this.run('INSERT INTO scopes (scope, created_at) VALUES (?, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) ON CONFLICT (scope) DO NOTHING', [scope]);
    if (this.all(lock, [scope]).length === 0) throw new IcError('INTERNAL', `could not lock the scope ${scope}`);
  }

  rollbackQuietly(): void {
    if (this.pq.transactionStatus() === TRANSACTION_UNKNOWN) return;
    try {
      this.pq.exec('ROLLBACK');
    } catch {
      // the original error is the one to report
    }
  }

  private execute(sql: string, params: readonly SqlParameter[]): void {
    const numbered = numberPlaceholders(sql);
    if (numbered.count !== params.length) {
      throw new IcError('INTERNAL', `the SQL statement has ${numbered.count} placeholders but ${params.length} parameters were given`);
    }
    this.pq.execParams(numbered.sql, params.map(encodeParameter));
    this.check();
  }

  private readRows<Row>(): Row[] {
    const pq = this.pq;
    const fields = pq.nfields();
    const names: string[] = [];
    const decoders: (((text: string) => unknown) | undefined)[] = [];
    for (let field = 0; field < fields; field++) {
      names.push(pq.fname(field));
      decoders.push(decoderFor(pq.ftype(field)));
    }
    const rows: Row[] = [];
    const count = pq.ntuples();
    for (let row = 0; row < count; row++) {
      const record: Record<string, unknown> = {};
      for (let field = 0; field < fields; field++) {
        if (pq.getisnull(row, field)) {
          record[names[field]!] = null;
        } else {
          const text = pq.getvalue(row, field);
          const decode = decoders[field];
          record[names[field]!] = decode ? decode(text) : text;
        }
      }
      rows.push(record as Row);
    }
    return rows;
  }

  // Throws the last result's error, if any, as an IcError with no secret in it.
  private check(): void {
    const status = this.pq.resultStatus();
    if (status !== 'PGRES_FATAL_ERROR' && status !== 'PGRES_BAD_RESPONSE' && status !== 'PGRES_NONFATAL_ERROR') return;
    const fields = this.pq.resultErrorFields();
    const raw = (fields?.messagePrimary || this.pq.resultErrorMessage() || this.pq.errorMessage() || 'unknown error').trim();
    const message = redactText(raw, this.secrets);
    const sqlstate = fields?.sqlState;
    this.pq.clear();
    if (!sqlstate && this.pq.transactionStatus() === TRANSACTION_UNKNOWN) throw lostConnectionError(message, this.shownUrl);
    throw translateServerError({ sqlstate, message }, this.shownUrl);
  }
}
