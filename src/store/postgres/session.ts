import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client, QueryConfig, QueryResult } from 'pg';
import { ConfigError, connectPlan } from './driver/client-config';
import { guardReplies, MalformedReply, replyShapeProblem } from './driver/reply-guard';
import { serverWaitLimitMs } from './wait-limit';

// The one PostgreSQL driver (docs/design/postgres.md, "The driver"): node-postgres on this thread, asynchronous
// end to end. Statements sent "later" go out with the next one; every statement of an exchange is written at
// once (pg's pipeline mode: each keeps its own Sync, so each succeeds or fails on its own, in order). Every
// wait is bounded (its own bound, and a hook's deadline: wait-limit.ts): past it the socket is destroyed.

export interface ResultSet {
  columns: { name: string; typeOid: number }[];
  rows: (string | null)[][];
  // The rows the statement changed (or returned), from its command tag.
  changes: number;
}

export interface Query {
  sql: string;
  // Undefined: the simple query protocol (several statements separated by `;`, no parameters).
  parameters?: readonly (string | null)[];
}

export type TransactionState = 'idle' | 'active' | 'failed' | 'unknown';

// What the server (or the driver) said went wrong. `lost`: the connection is gone, not a statement refused.
export class SessionError extends Error {
  constructor(
    message: string,
    readonly sqlstate: string | undefined,
    readonly lost: boolean,
    // The system's error code when the socket failed (ECONNREFUSED, ETIMEDOUT, …); CONNECT: connecting failed.
    readonly systemCode?: string,
  ) {
    super(message);
  }
}

export interface SessionOptions {
  connectTimeoutMs: number;
  // How long one exchange of statements may take before the server counts as not answering: the session's
  // statement_timeout (the server's own bound) plus a margin for the round trip.
  statementWaitMs: number;
}

// What the session waits beyond the server's own timeouts before it gives up on the server.
const MARGIN_MS = 2_000;

const STATES: Record<string, TransactionState> = { I: 'idle', T: 'active', E: 'failed' };

// Values as the server sent them (text): values.ts decodes them.
const RAW = { getTypeParser: () => (value: string) => value };

export class Session {
  tls = false;
  serverVersion = 0;
  private client: Client | undefined;
  // The connection being made (a candidate of connect()'s attempts): what a bound that runs out destroys.
  private current: Client | undefined;
  // Resolves once logged in (a failed login rejects).
  readonly connected: Promise<void>;
  private queued: Query[] = [];
  // Exchanges sent without waiting (sendAhead): their outcome is read before the next exchange's.
  private ahead: Promise<PromiseSettledResult<unknown>[]>[] = [];
  private state: TransactionState = 'unknown';
  private dead: SessionError | undefined;

  // Starts connecting at once (the caller's work before its first statement overlaps the login); a bad URL
  // throws here.
  constructor(
    url: string,
    env: NodeJS.ProcessEnv,
    private readonly options: SessionOptions,
  ) {
    let plan;
    try {
      plan = connectPlan(url, env, options.connectTimeoutMs);
    } catch (error) {
      if (error instanceof ConfigError) throw new SessionError(error.message, undefined, true, error.usage ? 'CONFIG' : 'CONNECT');
      throw error;
    }
    // pg reads PGPASSWORD (and its other PG* defaults) from the process's environment; the password file is read by ic (driver/pgpass.ts).
    if (env !== process.env) for (const [key, value] of Object.entries(env)) if (value !== undefined && /^PG|^HOME$/.test(key)) process.env[key] = value;
    this.connected = this.bounded(this.connect(plan), options.connectTimeoutMs + MARGIN_MS, 'connecting').catch((error: unknown) => {
      throw new SessionError((error as Error).message, (error as SessionError).sqlstate, true, 'CONNECT');
    });
    void this.connected.catch(() => undefined); // a connection never used reports nothing
  }

  exec(sql: string): Promise<void> {
    return this.queries([{ sql }]).then(() => undefined);
  }

  // Sent with the next exchange instead of on its own (one round trip fewer); an error it meets is thrown by
  // that exchange. For BEGIN, SAVEPOINT and writes whose result nobody reads.
  execLater(sql: string, parameters?: readonly (string | null)[]): void {
    this.queued.push({ sql, parameters });
  }

  // Sent now (with what is queued) without waiting: its reply is read with the next exchange's, whose call
  // throws its error. For a read's COMMIT, which cannot fail in a way the caller would act on.
  sendAhead(sql: string): void {
    const statements = this.take([{ sql }]);
    if (this.client === undefined || this.dead) return void this.queued.push(...statements);
    this.ahead.push(Promise.allSettled(statements.map((statement) => this.send(statement))));
  }

  transactionState(): TransactionState {
    return this.dead ? 'unknown' : this.state;
  }

  // Sends Terminate without waiting (the socket keeps no process alive: connect() unrefs it).
  close(): void {
    this.queued = [];
    if (this.dead) return;
    this.dead = new SessionError('the connection is closed', undefined, true);
    void this.client?.end().catch(() => undefined);
  }

  // Several statements in one exchange: run in turn (each sees what the ones before it did), their results in
  // order; the first error is thrown once every reply is read.
  async queries(statements: readonly Query[]): Promise<ResultSet[]> {
    await this.connected;
    const all = this.take(statements);
    const ahead = this.ahead;
    this.ahead = [];
    if (this.dead) throw this.dead;
    const sent = Promise.allSettled(all.map((statement) => this.send(statement)));
    const [earlier, outcomes] = await this.bounded(Promise.all([Promise.all(ahead), sent]), this.options.statementWaitMs + MARGIN_MS, 'running a statement');
    const failed = [...earlier.flat(), ...outcomes].find((outcome) => outcome.status === 'rejected');
    if (failed) throw this.sessionError(failed.reason);
    const results = outcomes.slice(all.length - statements.length).map((outcome) => resultOf((outcome as PromiseFulfilledResult<QueryResult | QueryResult[]>).value));
    const wrong = statements.map((statement, at) => statement.parameters && replyShapeProblem(statement.sql, results[at]!.columns.length)).find(Boolean);
    if (wrong) throw (this.dead = new SessionError(wrong, undefined, true, 'EPROTO'));
    return results;
  }

  private send(statement: Query): Promise<QueryResult | QueryResult[]> {
    const config: QueryConfig = { text: statement.sql, rowMode: 'array', types: RAW };
    if (statement.parameters !== undefined) config.values = statement.parameters;
    return this.client!.query(config);
  }

  private take(statements: readonly Query[]): Query[] {
    const all = [...this.queued, ...statements];
    this.queued = [];
    return all;
  }

  private async connect(plan: ReturnType<typeof connectPlan>): Promise<void> {
    const { Client } = loadPg();
    const withTls = { ...plan.config };
    const plain = { ...plan.config, ssl: false as const };
    const attempts = plan.tls === 'never' ? [plain] : plan.tls === 'only' ? [withTls] : plan.tls === 'first' ? [withTls, plain] : [plain, withTls];
    for (const [index, attempt] of attempts.entries()) {
      const candidate = new Client({ ...attempt, pipeline: true });
      this.current = candidate;
      // After the login: the connection broke (a failed attempt's own error is connect()'s, below).
      candidate.on('error', (error: unknown) => {
        const failure = this.client === candidate ? this.sessionError(error, true) : undefined; // may set dead itself (FATAL)
        this.dead ??= failure;
      });
      candidate.connection.on('parameterStatus', (message: { parameterName?: string; parameterValue?: string }) => {
        if (message.parameterName === 'server_version' && message.parameterValue) this.serverVersion = versionNumber(message.parameterValue);
      });
      candidate.connection.on('readyForQuery', (message: { status?: string }) => {
        this.state = STATES[message.status ?? ''] ?? this.state;
      });
      const connecting = candidate.connect();
      // Where TLS is required: node:tls loaded and the certificates read while the server answers the TLS request
      // (pg sent it on this event, before this listener), not after; pg hands these options to tls.connect then.
      const ssl = attempt.ssl;
      if (ssl && plan.tls === 'only') candidate.connection.once('connect', () => secureContextInto(ssl));
      // pg's parser has its listener on the stream now (plain), or gets it on the TLS stream at 'sslconnect'.
      if (attempt.ssl === false) guardReplies(candidate.connection.stream);
      candidate.connection.once('sslconnect', () => guardReplies(candidate.connection.stream));
      try {
        await connecting;
        this.client = candidate;
        this.tls = attempt.ssl !== false && attempt.ssl !== undefined;
        this.state = 'idle';
        candidate.connection.stream.unref?.(); // a call's bounded waits keep the process alive, not an idle socket
        return;
      } catch (error) {
        await candidate.end().catch(() => undefined);
        // prefer: the server has no TLS; allow: the server wants TLS (its pg_hba.conf has only hostssl for us).
        const next = index + 1 < attempts.length;
        const message = error instanceof Error ? error.message : '';
        if (next && plan.tls === 'first' && /does not support SSL/i.test(message)) continue;
        if (next && plan.tls === 'fallback' && (error as { code?: string }).code === '28000') continue;
        throw this.sessionError(error, true);
      }
    }
  }

  // Waits for `work` no longer than its bound or what is left of a hook's deadline; past it the server is given
  // up on: the socket destroyed and the session dead.
  private async bounded<T>(work: Promise<T>, waitMs: number, step: string): Promise<T> {
    const hookLeft = serverWaitLimitMs();
    const limit = Math.min(waitMs, hookLeft);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const within = hookLeft < waitMs ? "before the hook's deadline (IC_HOOK_TIMEOUT)" : `within ${formatMs(limit)}`;
        this.dead = new SessionError(`the server did not answer ${within} (${step})`, undefined, true, 'ETIMEDOUT');
        (this.client ?? this.current)?.connection.stream.destroy();
        reject(this.dead);
      }, limit);
    });
    try {
      return await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  // pg's errors: a DatabaseError from the server carries its SQLSTATE in `code`; a socket's error its errno
  // name; pg-protocol's "received invalid response" (and the guard's MalformedReply) a reply that is not the protocol.
  private sessionError(error: unknown, lost = false): SessionError {
    if (error instanceof SessionError) return error;
    if (this.dead && this.dead.systemCode !== undefined) return this.dead;
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown } | undefined)?.code;
    const sqlstate = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
    if (error instanceof MalformedReply || (sqlstate === undefined && /received invalid response|unknown message/i.test(message))) {
      this.dead = new SessionError(error instanceof MalformedReply ? message : `the server's reply is not PostgreSQL's protocol (${message})`, undefined, true, 'EPROTO');
      return this.dead;
    }
    // The server closes the connection after a FATAL error (57P01: ended by an administrator or a restart): the
    // next statement finds it lost, even before the socket's close has been read.
    if ((error as { severity?: unknown }).severity === 'FATAL') this.dead ??= new SessionError(`the server ended the session (${message})`, undefined, true);
    const systemCode = typeof code === 'string' && sqlstate === undefined ? code : undefined;
    return new SessionError(message, sqlstate, lost || sqlstate === undefined, systemCode);
  }
}

// node-postgres is a bundle of its own (dist/pg.cjs, loaded through bin/ic's loader with a code cache of its
// own), so the hook bundle a SQLite call loads stays as small as it was. From src (tests), pg itself: the
// module's name is a variable so that no bundle carries it.
const PG = 'pg';
function loadPg(): typeof import('pg') {
  const bundle = join(__dirname, 'pg.cjs');
  if (!existsSync(bundle)) return require(PG) as typeof import('pg');
  return (require(join(__dirname, '..', 'bin', 'load.js')) as { loadBundle(file: string): typeof import('pg') }).loadBundle(bundle);
}

function secureContextInto(ssl: import('node:tls').ConnectionOptions): void {
  try {
    ssl.secureContext ??= (require('node:tls') as typeof import('node:tls')).createSecureContext(ssl);
  } catch {
    // a certificate or key that is not one: pg makes the context again and reports it
  }
}

function resultOf(result: QueryResult | QueryResult[]): ResultSet {
  const last = Array.isArray(result) ? result[result.length - 1]! : result;
  return {
    columns: (last.fields ?? []).map((field) => ({ name: field.name, typeOid: field.dataTypeID })),
    rows: (last.rows ?? []) as (string | null)[][],
    changes: last.rowCount ?? 0,
  };
}

function formatMs(ms: number): string {
  return ms >= 1_000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

// "15.14 (Debian 15.14-0+deb12u1)" → 150014, as libpq's PQserverVersion counts (major × 10000 + minor).
function versionNumber(text: string): number {
  const [, major = '0', minor = '0'] = /^(\d+)(?:\.(\d+))?/.exec(text) ?? [];
  return Number(major) * 10_000 + Number(minor) * (Number(major) >= 10 ? 1 : 100);
}
