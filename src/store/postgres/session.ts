// One connection to a PostgreSQL server, as PostgresConnection uses it (worker-session.ts makes it with
// node-postgres). Values travel as text.

export interface ResultSet {
  columns: { name: string; typeOid: number }[];
  rows: (string | null)[][];
  // The rows the statement changed (or returned), from its command tag.
  changes: number;
}

export interface Query {
  sql: string;
  parameters: readonly (string | null)[];
}

export type TransactionState = 'idle' | 'active' | 'failed' | 'unknown';

// What the server (or the driver) said went wrong. `lost`: the connection is gone, not a statement refused.
export class SessionError extends Error {
  constructor(
    message: string,
    readonly sqlstate: string | undefined,
    readonly lost: boolean,
    // The system's error code when the socket failed (ECONNREFUSED, ETIMEDOUT, …).
    readonly systemCode?: string,
  ) {
    super(message);
  }
}

export interface PgSession {
  readonly driver: 'pg';
  // Whether the connection is encrypted (TLS).
  readonly tls: boolean;
  // Statements without parameters, several separated by `;` (the simple query protocol).
  exec(sql: string): void;
  // The same, sent with the next statement instead of on its own (one round trip fewer); an error it meets is
  // thrown by that next statement. For statements whose only failure is one the next would meet too (BEGIN, SAVEPOINT).
  execLater(sql: string): void;
  // The same, sent now without waiting for the reply, which is read before the next statement's (the server
  // runs it at once; the caller does not wait a round trip). For a read's COMMIT, which cannot fail in a way
  // the caller would act on: an error it met is thrown by the next statement.
  sendAhead(sql: string): void;
  // One statement with `$n` parameters.
  query(sql: string, parameters: readonly (string | null)[]): ResultSet;
  // One such statement sent with the next statement instead of on its own, its result not read (its error is
  // thrown by that next statement): for a write whose result nobody reads, inside a transaction.
  queryLater(sql: string, parameters: readonly (string | null)[]): void;
  // Several such statements in one exchange: sent together and run in turn (each sees what the ones before it
  // did and waited for), their results in order; the first error is thrown once every reply is read.
  queries(statements: readonly Query[]): ResultSet[];
  transactionState(): TransactionState;
  serverVersion(): number;
  close(): void;
}
