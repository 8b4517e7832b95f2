import { workerData, type MessagePort } from 'node:worker_threads';
import { Client, type QueryConfig, type QueryResult } from 'pg';
import { ConfigError, connectPlan } from './client-config';
import { noteCodePath, saveCodeCacheNow } from '../../../code-cache';
import { REPLY_COUNTER, type Reply, type ReplyError, type Request, type Statement, type StatementResult } from './protocol';

// The driver's worker thread (docs/design/postgres.md, "The driver"): node-postgres, which is asynchronous,
// runs here; the store's session on the main thread posts a request and blocks on Atomics.wait until this
// thread posts the reply and bumps the shared counter. Built as its own bundle, dist/pg-worker.cjs.

const { port, signal } = workerData as { port: MessagePort; signal: SharedArrayBuffer };
const counter = new Int32Array(signal);

let client: Client | undefined;
let state: Reply['state'] = 'lost';
let serverVersion = 0;
let tls = false;
// Set when the connection broke or the server spoke gibberish: every later request gets it.
let broken: ReplyError | undefined;

// Values as the server sent them (text): the main thread decodes them (values.ts), as before.
const RAW = { getTypeParser: () => (value: string) => value };

port.on('message', (request: Request) => {
  void handle(request).then(
    (reply) => {
      post(reply);
      if (request.kind === 'run' && !reply.error) saveCodeCache();
    },
    (error: unknown) => post({ results: [], error: replyError(error), state, serverVersion, tls }),
  );
});

// Once statements have run (a login and a query: the path every call takes), the loader's code cache of this
// bundle is saved with what they compiled, after the reply is on its way; bin/ic writes it only when it grew.
let cacheSaved = false;
function saveCodeCache(): void {
  if (cacheSaved) return;
  cacheSaved = true;
  noteCodePath(tls ? 'tls' : 'session');
  saveCodeCacheNow();
}

// Anything thrown outside a query's promise (a reply the protocol parser chokes on) still gets an answer.
process.on('uncaughtException', (error) => {
  broken = { ...replyError(error), lost: true, malformed: true };
  state = 'lost';
  post({ results: [], error: broken, state, serverVersion, tls });
});

function post(reply: Reply): void {
  port.postMessage(reply);
  Atomics.add(counter, REPLY_COUNTER, 1);
  Atomics.notify(counter, REPLY_COUNTER);
}

async function handle(request: Request): Promise<Reply> {
  if (request.kind === 'connect') return connect(request.url, request.env, request.connectTimeoutMs);
  if (request.kind === 'close') {
    const ending = client;
    client = undefined;
    state = 'lost';
    await ending?.end().catch(() => undefined);
    return { results: [], error: undefined, state, serverVersion, tls };
  }
  return run(request.statements);
}

async function connect(url: string, env: Record<string, string | undefined>, connectTimeoutMs: number): Promise<Reply> {
  for (const [key, value] of Object.entries(env)) if (value !== undefined && /^PG|^HOME$|^USER$/.test(key)) process.env[key] = value;
  let plan;
  try {
    plan = connectPlan(url, env, connectTimeoutMs);
  } catch (error) {
    if (error instanceof ConfigError) return { results: [], error: { message: error.message, sqlstate: undefined, lost: true, malformed: false, systemCode: 'CONFIG' }, state, serverVersion, tls };
    throw error;
  }
  const { config } = plan;
  const withTls = { ...config };
  const plain = { ...config, ssl: false as const };
  const attempts = plan.tls === 'never' ? [plain] : plan.tls === 'only' ? [withTls] : plan.tls === 'first' ? [withTls, plain] : [plain, withTls];
  let last: unknown;
  for (const [index, attempt] of attempts.entries()) {
    const candidate = new Client({ ...attempt, pipeline: true });
    candidate.on('error', noteBroken);
    candidate.connection.on('parameterStatus', (message: { parameterName?: string; parameterValue?: string }) => {
      if (message.parameterName === 'server_version' && message.parameterValue) serverVersion = versionNumber(message.parameterValue);
    });
    try {
      await candidate.connect();
      client = candidate;
      tls = attempt.ssl !== false && attempt.ssl !== undefined;
      watch(candidate);
      state = 'I';
      return { results: [], error: undefined, state, serverVersion, tls };
    } catch (error) {
      last = error;
      await candidate.end().catch(() => undefined);
      // prefer: the server has no TLS; allow: the server wants TLS (its pg_hba.conf has only hostssl for us).
      const next = index + 1 < attempts.length;
      const message = error instanceof Error ? error.message : '';
      if (next && plan.tls === 'first' && /does not support SSL/i.test(message)) continue;
      if (next && plan.tls === 'fallback' && (error as { code?: string }).code === '28000') continue;
      break;
    }
  }
  return { results: [], error: { ...replyError(last), lost: true }, state: 'lost', serverVersion, tls };
}

// The transaction state from the connection's own messages: each ReadyForQuery says it.
function watch(connected: Client): void {
  connected.connection.on('readyForQuery', (message: { status?: string }) => {
    if (message.status === 'I' || message.status === 'T' || message.status === 'E') state = message.status;
  });
}

function noteBroken(error: unknown): void {
  broken ??= { ...replyError(error), lost: true };
  state = 'lost';
}

// A request's statements go to the server at once (pg's pipeline mode), not one round trip each: every statement
// keeps its own Sync, so each still succeeds or fails on its own, in order, as when they were sent one by one.
async function run(statements: Statement[]): Promise<Reply> {
  if (client === undefined || broken !== undefined) {
    const closed = broken ?? { message: 'the connection is closed', sqlstate: undefined, lost: true, malformed: false, systemCode: undefined };
    return { results: [], error: closed, state: 'lost', serverVersion, tls };
  }
  const sent = client;
  const outcomes = await Promise.allSettled(
    statements.map((statement) => {
      const config: QueryConfig = { text: statement.sql, rowMode: 'array', types: RAW };
      if (statement.parameters !== undefined) config.values = statement.parameters;
      return sent.query(config);
    }),
  );
  const results: StatementResult[] = [];
  let first: ReplyError | undefined;
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') {
      const result = outcome.value;
      results.push(resultOf(Array.isArray(result) ? result[result.length - 1]! : result));
    } else {
      first ??= replyError(outcome.reason);
      results.push({ columns: [], rows: [], changes: 0 });
    }
  }
  if (broken !== undefined) state = 'lost';
  return { results, error: first, state, serverVersion, tls };
}

function resultOf(result: QueryResult): StatementResult {
  return {
    columns: (result.fields ?? []).map((field) => ({ name: field.name, typeOid: field.dataTypeID })),
    rows: (result.rows ?? []) as (string | null)[][],
    changes: result.rowCount ?? 0,
  };
}

// pg's errors: a DatabaseError from the server carries its SQLSTATE in `code`; a socket's error its errno
// name; pg-protocol's "received invalid response" is a DatabaseError without one (a reply that is not the protocol).
function replyError(error: unknown): ReplyError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  const sqlstate = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  const malformed = sqlstate === undefined && (/received invalid response|unknown message|invalid|out of range|unexpected/i.test(message) || error instanceof RangeError);
  const systemCode = typeof code === 'string' && sqlstate === undefined ? code : undefined;
  const lost = sqlstate === undefined && !malformed;
  return { message, sqlstate, lost: lost || broken !== undefined, malformed, systemCode };
}

// "15.14 (Debian 15.14-0+deb12u1)" → 150014, as libpq's PQserverVersion counts (major × 10000 + minor).
function versionNumber(text: string): number {
  const match = /^(\d+)(?:\.(\d+))?/.exec(text);
  if (!match) return 0;
  const major = Number(match[1]);
  return major >= 10 ? major * 10_000 + Number(match[2] ?? 0) : major * 10_000 + Number(match[2] ?? 0) * 100;
}
