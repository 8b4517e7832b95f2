import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SessionError, type PgSession, type Query, type ResultSet, type TransactionState } from '../session';
import { passwordFromPgpass } from './pgpass';
import {
  authenticationName,
  extendedQuery,
  passwordMessage,
  queryMessage,
  readAuthentication,
  readCString,
  readDataRow,
  readFields,
  readParameterStatus,
  readRowDescription,
  rowsOfTag,
  saslInitialResponse,
  saslResponse,
  serverVersionNumber,
  splitMessages,
  startupMessage,
  terminateMessage,
  type BackendMessage,
  type Column,
} from './protocol';
import { md5Password, SCRAM_MECHANISM, scramClient, verifyServerFinal, type ScramClient } from './scram';
import { SyncSocket } from './socket';
import { loginStartedFor, rememberLogin, takeLoginAhead, type SentEndpoint } from './login-ahead';
import type { ConnectionTarget } from './target';
import { os } from '../../../lazy-builtins';

export interface WireOptions {
  // Connecting and logging in (connect_timeout). Afterwards the socket blocks, as libpq's does (socket.ts).
  connectTimeoutMs: number;
}

// Once logged in, reads and writes wait in the kernel: no deadline of the client's own.
const NO_DEADLINE = Number.POSITIVE_INFINITY;

const EMPTY = Buffer.alloc(0);
const STATES: Record<string, TransactionState> = { I: 'idle', T: 'active', E: 'failed' };

// ic's built-in PostgreSQL client: the wire protocol over a SyncSocket, synchronous like the rest of the store,
// with no native code to load (libpq costs a hook ~15 ms to dlopen). See docs/postgres.md, "Drivers".
export class WireSession implements PgSession {
  readonly driver = 'builtin' as const;
  private pending = Buffer.alloc(0);
  private queue: BackendMessage[] = [];
  private state: TransactionState = 'idle';
  private version = 0;
  private broken = false;
  // Simple queries waiting to go out with the next statement (execLater), and how many replies are owed for them.
  private later: Buffer[] = [];
  private owed = 0;

  private constructor(private readonly socket: SyncSocket) {}

  // Tries each address in turn (localhost is 127.0.0.1, then ::1) until one answers; a server that answers
  // and refuses (a wrong password, no such database) is final. The login bin/ic started ahead is used first
  // when it is this very login (wire/login-ahead.ts); one that was lost on the way is made again, as usual.
  static connect(target: ConnectionTarget, options: WireOptions): WireSession {
    const deadline = Date.now() + options.connectTimeoutMs;
    const startup = startupMessage(startupParameters(target));
    const ahead = takeLoginAhead();
    const started = loginStartedFor(ahead, target.endpoint, startup);
    let last: SessionError | undefined;
    if (started) {
      const outcome = WireSession.logIn(SyncSocket.adopt(started.stream), target, startup.subarray(started.written), deadline);
      if (outcome instanceof WireSession) return outcome;
      last = outcome;
    }
    for (const [endpoint, open] of socketsFor(target)) {
      let socket: SyncSocket;
      try {
        socket = open();
      } catch (error) {
        last = new SessionError(String(error), undefined, true, (error as NodeJS.ErrnoException).code);
        continue;
      }
      const outcome = WireSession.logIn(socket, target, startup, deadline);
      if (outcome instanceof WireSession) {
        if (ahead && !started) rememberLogin(ahead, endpoint, startup);
        return outcome;
      }
      last = outcome;
    }
    throw new SessionError(connectFailure(last, target), undefined, true, last?.systemCode);
  }

  // A logged-in session, or why the connection was lost (the next address may answer); a refusal is thrown.
  private static logIn(socket: SyncSocket, target: ConnectionTarget, unsent: Buffer, deadline: number): WireSession | SessionError {
    const session = new WireSession(socket);
    try {
      session.startUp(target, unsent, deadline);
      socket.block();
      return session;
    } catch (error) {
      socket.close();
      if (!(error instanceof SessionError)) return new SessionError(String(error), undefined, true, (error as NodeJS.ErrnoException).code);
      if (error.lost) return error;
      throw error;
    }
  }

  exec(sql: string): void {
    this.send(queryMessage(sql));
    this.collect();
  }

  execLater(sql: string): void {
    this.later.push(queryMessage(sql));
  }

  sendAhead(sql: string): void {
    this.send(queryMessage(sql));
    this.owed += 1; // its reply is read with the next statement's (collect)
  }

  query(sql: string, parameters: readonly (string | null)[]): ResultSet {
    this.send(extendedQuery(sql, parameters));
    return this.collect();
  }

  queryLater(sql: string, parameters: readonly (string | null)[]): void {
    this.later.push(extendedQuery(sql, parameters)); // its own Sync: one reply owed, read as execLater's are
  }

  queries(statements: readonly Query[]): ResultSet[] {
    this.send(Buffer.concat(statements.map((statement) => extendedQuery(statement.sql, statement.parameters))));
    // Each statement has its own Sync, so one refused leaves the stream in step: every reply is read, in order
    // (collect reads the replies owed to statements sent earlier first).
    let failure: unknown;
    const results: ResultSet[] = [];
    for (let at = 0; at < statements.length; at++) {
      try {
        results.push(at === 0 ? this.collect() : this.collectOne());
      } catch (error) {
        if (!(error instanceof SessionError) || error.lost) throw error;
        failure ??= error;
      }
    }
    if (failure) throw failure;
    return results;
  }

  transactionState(): TransactionState {
    return this.broken ? 'unknown' : this.state;
  }

  serverVersion(): number {
    return this.version;
  }

  close(): void {
    this.later = [];
    if (!this.broken) {
      try {
        this.socket.write(terminateMessage(), Date.now() + 1_000);
      } catch {
        // the server is gone already
      }
    }
    this.broken = true;
    this.socket.close();
  }

  // `unsent`: what of the startup message is still to be written (none when bin/ic sent it ahead).
  private startUp(target: ConnectionTarget, unsent: Buffer, deadline: number): void {
    if (unsent.length > 0) this.write(unsent, deadline);
    // SCRAM's two steps: the client that answers the server's challenge, then what the server's proof must be.
    let scram: ScramClient | undefined;
    let expectedServerFinal: string | undefined;
    for (;;) {
      const message = this.next(deadline);
      if (message.type === 'E') throw this.serverError(message.body);
      if (message.type === 'R') {
        const auth = readAuthentication(message.body);
        if (auth.kind === 'ok') continue;
        if (auth.kind === 'cleartext') this.write(passwordMessage(this.passwordFor(target)), deadline);
        else if (auth.kind === 'md5') this.write(passwordMessage(md5Password(target.user, this.passwordFor(target), auth.salt)), deadline);
        else if (auth.kind === 'sasl') {
          if (!auth.mechanisms.includes(SCRAM_MECHANISM))
            throw new SessionError(`the server offers only ${auth.mechanisms.join(', ')}, which ic's built-in driver does not speak; set IC_PG_DRIVER=libpq`, '28000', false);
          scram = scramClient(this.passwordFor(target));
          this.write(saslInitialResponse(SCRAM_MECHANISM, scram.firstMessage), deadline);
        } else if (auth.kind === 'sasl-continue' && scram) {
          const answer = scram.respond(auth.data);
          expectedServerFinal = answer.expectedServerFinal;
          this.write(saslResponse(answer.finalMessage), deadline);
        } else if (auth.kind === 'sasl-final' && expectedServerFinal !== undefined) {
          if (!verifyServerFinal(auth.data, expectedServerFinal)) throw new SessionError('the server could not prove it knows the password (SCRAM)', '28000', false);
        } else if (auth.kind === 'other') {
          throw new SessionError(`the server asks for ${authenticationName(auth.code)} authentication, which ic's built-in driver does not speak; set IC_PG_DRIVER=libpq`, '28000', false);
        } else throw new SessionError('the server sent an unexpected authentication message', '08P01', true);
      } else if (message.type === 'S') {
        const [name, value] = readParameterStatus(message.body);
        if (name === 'server_version') this.version = serverVersionNumber(value);
      } else if (message.type === 'Z') {
        this.state = STATES[String.fromCharCode(message.body[0]!)] ?? 'unknown';
        return;
      }
      // BackendKeyData, notices, NegotiateProtocolVersion: nothing ic needs
    }
  }

  // The password from the URL or PGPASSWORD, else the password file; asked only when the server wants one.
  private passwordFor(target: ConnectionTarget): string {
    if (target.password !== undefined) return target.password;
    const fromFile = readPgpass(target);
    if (fromFile.password !== undefined) return fromFile.password;
    const why = fromFile.ignored ? `; the password file ${passfileOf(target)} was ignored: others may read it (chmod 600 it, as libpq also requires)` : '';
    throw new SessionError(`the server asks for a password and none was given (URL, PGPASSWORD or ~/.pgpass)${why}`, '28P01', false);
  }

  private send(bytes: Buffer): void {
    if (this.broken) throw new SessionError('the connection is closed', undefined, true);
    const batch = this.later.length === 0 ? bytes : Buffer.concat([...this.later, bytes]);
    this.owed += this.later.length; // replies still owed to a statement sent ahead stay owed
    this.later = [];
    this.write(batch, NO_DEADLINE);
  }

  private write(bytes: Buffer, deadline: number): void {
    try {
      this.socket.write(bytes, deadline);
    } catch (error) {
      throw this.lost(error);
    }
  }

  // Reads the replies owed to statements sent earlier, then this exchange's: its rows and tag, or the first
  // error of them all (a deferred BEGIN that failed is what to report, not the next statement's refusal).
  private collect(): ResultSet {
    let earlier: SessionError | undefined;
    for (; this.owed > 0; this.owed--) {
      try {
        this.collectOne();
      } catch (error) {
        if (!(error instanceof SessionError) || error.lost) throw error;
        earlier ??= error;
      }
    }
    try {
      const result = this.collectOne();
      if (earlier) throw earlier;
      return result;
    } catch (error) {
      throw earlier ?? error;
    }
  }

  private collectOne(): ResultSet {
    const deadline = NO_DEADLINE;
    let columns: Column[] = [];
    let rows: (string | null)[][] = [];
    let changes = 0;
    let failure: SessionError | undefined;
    for (;;) {
      const message = this.next(deadline);
      switch (message.type) {
        case 'T':
          columns = readRowDescription(message.body);
          rows = [];
          break;
        case 'D':
          rows.push(readDataRow(message.body));
          break;
        case 'C':
          changes = rowsOfTag(readCString(message.body));
          break;
        case 'E':
          failure ??= this.serverError(message.body);
          break;
        case 'Z':
          this.state = STATES[String.fromCharCode(message.body[0]!)] ?? 'unknown';
          if (failure) throw failure;
          return { columns, rows, changes };
        default:
        // ParseComplete, BindComplete, NoData, EmptyQueryResponse, notices, parameter changes
      }
    }
  }

  private next(deadline: number): BackendMessage {
    for (;;) {
      const queued = this.queue.shift();
      if (queued) return queued;
      let bytes: Buffer | undefined;
      try {
        bytes = this.socket.read(deadline);
      } catch (error) {
        throw this.lost(error);
      }
      if (bytes === undefined) throw this.lost(Object.assign(new Error('no reply from the server in time'), { code: 'ETIMEDOUT' }));
      if (bytes.length === 0) throw this.lost(new Error('the server closed the connection'));
      // Every message is read before the next read reuses the socket's buffer; an incomplete tail is copied.
      const { messages, rest } = splitMessages(this.pending.length === 0 ? bytes : Buffer.concat([this.pending, bytes]));
      this.pending = rest.length === 0 ? EMPTY : Buffer.from(rest);
      this.queue = messages;
    }
  }

  private serverError(body: Buffer): SessionError {
    const fields = readFields(body);
    const fatal = fields.S === 'FATAL' || fields.S === 'PANIC' || fields.V === 'FATAL' || fields.V === 'PANIC';
    if (fatal) this.broken = true;
    return new SessionError(fields.M ?? 'unknown error', fields.C, false);
  }

  private lost(error: unknown): SessionError {
    this.broken = true;
    this.socket.close();
    const code = (error as NodeJS.ErrnoException).code;
    const text = error instanceof Error ? error.message : String(error);
    return new SessionError(code === 'ECONNRESET' || code === 'EPIPE' ? 'the server closed the connection' : text, undefined, true, code);
  }
}

function startupParameters(target: ConnectionTarget): Record<string, string> {
  const parameters: Record<string, string> = { user: target.user, database: target.database, client_encoding: 'UTF8' };
  if (target.applicationName) parameters.application_name = target.applicationName;
  if (target.options) parameters.options = target.options;
  return parameters;
}

function socketsFor(target: ConnectionTarget): [SentEndpoint, () => SyncSocket][] {
  const { endpoint } = target;
  if (endpoint.kind === 'socket') {
    const open = (): SyncSocket => {
      try {
        statSync(endpoint.path);
      } catch {
        throw Object.assign(new Error(`no server socket at ${endpoint.path}`), { code: 'ENOENT' });
      }
      return SyncSocket.connectUnix(endpoint.path);
    };
    return [[endpoint, open]];
  }
  return endpoint.addresses.map((address) => {
    const family: 4 | 6 = address.includes(':') ? 6 : 4;
    return [{ kind: 'tcp', address, port: endpoint.port, family }, () => SyncSocket.connectTcp(address, endpoint.port, family)];
  });
}

function connectFailure(error: SessionError | undefined, target: ConnectionTarget): string {
  const code = error?.systemCode;
  const where = target.endpoint.kind === 'socket' ? target.endpoint.path : `${target.host} port ${target.port}`;
  if (code === 'ENOENT') return `no server socket at ${where}: is the server running locally and accepting connections on that socket?`;
  if (code === 'ECONNREFUSED' || code === 'ENOTCONN') return `connection to ${where} refused: is the server running and accepting connections there?`;
  if (code === 'ETIMEDOUT') return `timed out connecting to ${where}`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return `the server at ${where} closed the connection`;
  return `could not connect to ${where} (${error?.message ?? 'no address to try'})`;
}

const passfileOf = (target: ConnectionTarget): string => target.passfile ?? join(os().homedir(), '.pgpass');

// libpq ignores a password file that others may read; so does ic, and says so when no password is left.
function readPgpass(target: ConnectionTarget): { password?: string; ignored?: true } {
  const file = passfileOf(target);
  try {
    if ((statSync(file).mode & 0o077) !== 0) return { ignored: true };
    return { password: passwordFromPgpass(readFileSync(file, 'utf8'), { host: target.host, port: String(target.port), database: target.database, user: target.user }) };
  } catch {
    return {};
  }
}
