import type PQ from 'libpq';
import { loadLibpq } from './driver';
import { SessionError, type PgSession, type Query, type ResultSet, type TransactionState } from './session';

let driver: typeof PQ | undefined;

// The native driver is loaded on first use only: most users never load it (the built-in driver serves local
// servers), and a machine without it gets a clear DB_UNAVAILABLE instead of a crash at start.
function loadDriver(env: NodeJS.ProcessEnv): typeof PQ {
  driver ??= loadLibpq(env);
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

// libpq's PQtransactionStatus: idle, active (a command running), in a transaction, failed transaction, bad.
const STATES: TransactionState[] = ['idle', 'active', 'active', 'failed', 'unknown'];

// A session through the native libpq (the `libpq` package): for what the built-in driver does not do (TLS,
// host names, several hosts, service files, Kerberos). `conninfo` is libpq's URL.
export class LibpqSession implements PgSession {
  readonly driver = 'libpq' as const;

  private constructor(private readonly pq: PQ) {}

  // `env` says where the package is (IC_LIBPQ_DIR): the caller's environment, as every other setting is read.
  static connect(conninfo: string, env: NodeJS.ProcessEnv): LibpqSession {
    const pq = new (loadDriver(env))();
    try {
      pq.connectSync(conninfo);
    } catch (error) {
      throw new SessionError(error instanceof Error ? error.message.trim() : String(error), undefined, true);
    }
    return new LibpqSession(pq);
  }

  exec(sql: string): void {
    this.pq.exec(sql);
    this.check();
    this.pq.clear();
  }

  // libpq sends each statement on its own.
  execLater(sql: string): void {
    this.exec(sql);
  }

  queryLater(sql: string, parameters: readonly (string | null)[]): void {
    this.query(sql, parameters);
  }

  sendAhead(sql: string): void {
    this.exec(sql);
  }

  // libpq's synchronous calls cannot pipeline: the statements go one after another (the same results, a round
  // trip each).
  queries(statements: readonly Query[]): ResultSet[] {
    return statements.map((statement) => this.query(statement.sql, statement.parameters));
  }

  query(sql: string, parameters: readonly (string | null)[]): ResultSet {
    const pq = this.pq;
    pq.execParams(sql, [...parameters]);
    this.check();
    const fields = pq.nfields();
    const columns = Array.from({ length: fields }, (_, field) => ({ name: pq.fname(field), typeOid: pq.ftype(field) }));
    const count = pq.ntuples();
    const rows: (string | null)[][] = [];
    for (let row = 0; row < count; row++) {
      const values: (string | null)[] = [];
      for (let field = 0; field < fields; field++) values.push(pq.getisnull(row, field) ? null : pq.getvalue(row, field));
      rows.push(values);
    }
    const changes = Number(pq.cmdTuples() || 0);
    pq.clear();
    return { columns, rows, changes };
  }

  transactionState(): TransactionState {
    return STATES[this.pq.transactionStatus()] ?? 'unknown';
  }

  serverVersion(): number {
    return this.pq.serverVersion();
  }

  close(): void {
    this.pq.finish();
    keepUntilClosed(this.pq);
  }

  // Throws the last result's error, if any.
  private check(): void {
    const status = this.pq.resultStatus();
    if (status !== 'PGRES_FATAL_ERROR' && status !== 'PGRES_BAD_RESPONSE' && status !== 'PGRES_NONFATAL_ERROR') return;
    const fields = this.pq.resultErrorFields();
    const message = (fields?.messagePrimary || this.pq.resultErrorMessage() || this.pq.errorMessage() || 'unknown error').trim();
    const sqlstate = fields?.sqlState || undefined;
    this.pq.clear();
    throw new SessionError(message, sqlstate, !sqlstate && this.transactionState() === 'unknown');
  }
}
