import { IcError } from '../../core/errors';

// SQLSTATEs a caller may simply try again after, as it does after SQLite's SQLITE_BUSY: a lock wait that ran
// out (lock_timeout), a statement cancelled by statement_timeout, a serialisation failure or deadlock (the
// server rolled the transaction back), a session ended by an administrator or a server restart, too many
// connections at once.
const BUSY_STATES = new Map<string, string>([
  ['55P03', 'a lock wait timed out'],
  ['57014', 'a statement timed out'],
  ['40001', 'a serialisation failure'],
  ['40P01', 'a deadlock'],
  ['57P01', 'the server is shutting down or restarting'],
  ['25P03', 'the transaction stayed idle too long'],
  ['53300', 'the server has too many connections'],
]);

// Classes that mean this database cannot be used as it is: a broken connection (08), a refused login (28), a
// missing database (3D) or schema (3F), the server out of disk or memory (53), an operator intervention (57).
const UNAVAILABLE_CLASSES = new Set(['08', '28', '3D', '3F', '53', '57']);

export interface ServerError {
  sqlstate: string | undefined;
  message: string;
}

// Turns an error the server (or libpq) reported into ic's codes; `message` is already free of secrets.
export function translateServerError(error: ServerError, shownUrl: string): IcError {
  const { sqlstate, message } = error;
  const details: Record<string, unknown> = { url: shownUrl };
  if (sqlstate) details.sqlstate = sqlstate;
  // The driver names a socket the server closed under a write (a restart) by Node's code, not a SQLSTATE.
  if (sqlstate === 'EPIPE' || sqlstate === 'ECONNRESET') return lostConnectionError(message, shownUrl);
  const busy = sqlstate ? BUSY_STATES.get(sqlstate) : undefined;
  if (busy) return new IcError('BUSY', `the PostgreSQL database is busy (${busy}: ${message}); try again`, details);
  if (sqlstate === '42P01') {
    const hint = 'create the schema with `ic init --db URL`';
    return new IcError('DB_UNAVAILABLE', `the PostgreSQL database at ${shownUrl} has no ic schema (${message}); ${hint}`, { ...details, hint });
  }
  if (sqlstate && UNAVAILABLE_CLASSES.has(sqlstate.slice(0, 2))) {
    return new IcError('DB_UNAVAILABLE', `cannot use the PostgreSQL database at ${shownUrl}: ${message}`, details);
  }
  return new IcError('INTERNAL', `the PostgreSQL server refused a statement: ${message}${sqlstate ? ` (${sqlstate})` : ''}`, details);
}

// The URL (or a PG* variable) cannot be used as written: a usage error, as a bad flag is.
export function badUrlError(message: string, shownUrl: string): IcError {
  return new IcError('USAGE', `the PostgreSQL URL ${shownUrl} cannot be used: ${message}`, { url: shownUrl });
}

export function connectError(message: string, shownUrl: string): IcError {
  const hint = 'check that the server runs and the URL, PG* variables or ~/.pgpass are right; run `ic doctor`';
  return new IcError('DB_UNAVAILABLE', `cannot connect to the PostgreSQL server at ${shownUrl}: ${message}`, { url: shownUrl, hint });
}

// The connection broke after it was made (the server restarted, the network dropped): the transaction was
// rolled back, unless the break came during COMMIT, when the server may have committed it (the caller
// cannot tell, as after a SQLite process killed mid-commit). Like BUSY, it says: try again.
export function lostConnectionError(message: string, shownUrl: string): IcError {
  return new IcError('BUSY', `the connection to the PostgreSQL server at ${shownUrl} was lost (${message}); try again`, { url: shownUrl });
}

// The server stopped answering (a stopped backend or host, a listener that never replies) or replied with
// something that is not PostgreSQL's protocol: this database cannot be used now. Not BUSY: trying again at
// once would wait as long again.
export function unusableServerError(message: string, shownUrl: string): IcError {
  const hint = 'check that the server runs and answers (a stopped or overloaded server, or something else listening at that address); run `ic doctor`';
  return new IcError('DB_UNAVAILABLE', `cannot use the PostgreSQL server at ${shownUrl}: ${message}`, { url: shownUrl, hint });
}
