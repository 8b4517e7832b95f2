import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MessagePort, Worker } from 'node:worker_threads';
import { workerThreads } from '../../lazy-builtins';
import { REPLY_COUNTER, type Reply, type Request, type Statement } from './pg-worker/protocol';
import { SessionError, type PgSession, type Query, type ResultSet, type TransactionState } from './session';
import { serverWaitLimitMs } from './wait-limit';

// The one PostgreSQL driver (docs/design/postgres.md, "The driver"): node-postgres in a worker thread, behind
// a synchronous session. The store's layers call the database synchronously; pg is asynchronous. Public APIs
// only bridge the two: this thread posts a request on a MessagePort and blocks on Atomics.wait over a
// SharedArrayBuffer the worker bumps once it has posted the reply, which receiveMessageOnPort then takes.
// Every wait is bounded (waitBoundMs, and a hook's deadline: wait-limit.ts), so no server can hang a call.

export interface WorkerSessionOptions {
  connectTimeoutMs: number;
  // How long one exchange of statements may take before the server counts as not answering: the session's
  // statement_timeout (the server's own bound) plus a margin for the round trip.
  statementWaitMs: number;
}

// What the session waits beyond the server's own timeouts before it gives up on the server.
const MARGIN_MS = 2_000;

const STATES: Record<Reply['state'], TransactionState> = { I: 'idle', T: 'active', E: 'failed', lost: 'unknown' };

// A worker started before the bundle asked for it (bin/ic starts it while the bundle loads): taken once.
const EARLY_WORKER = Symbol.for('ic.postgres.early-worker');
type EarlyWorker = { worker: Worker; port: MessagePort; signal: SharedArrayBuffer };

export class WorkerSession implements PgSession {
  readonly driver = 'pg' as const;
  private queued: Statement[] = [];
  // A request posted without waiting (sendAhead): its reply is read before the next one's.
  private outstanding = 0;
  private aheadError: SessionError | undefined;
  private state: TransactionState = 'unknown';
  private version = 0;
  private dead: SessionError | undefined;
  private readonly counter: Int32Array;
  private seen = 0;
  tls = false;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    signal: SharedArrayBuffer,
    private readonly options: WorkerSessionOptions,
  ) {
    this.counter = new Int32Array(signal);
    this.seen = Atomics.load(this.counter, REPLY_COUNTER);
  }

  static connect(url: string, env: NodeJS.ProcessEnv, options: WorkerSessionOptions): WorkerSession {
    const { worker, port, signal } = takeEarlyWorker() ?? startWorker();
    const session = new WorkerSession(worker, port, signal, options);
    const reply = session.exchange({ kind: 'connect', url, env: { ...env }, connectTimeoutMs: options.connectTimeoutMs }, options.connectTimeoutMs + MARGIN_MS, 'connecting');
    if (reply.error) {
      session.terminate();
      throw sessionError(reply.error);
    }
    session.version = reply.serverVersion;
    session.tls = reply.tls;
    return session;
  }

  exec(sql: string): void {
    this.run([{ sql }]);
  }

  execLater(sql: string): void {
    this.queued.push({ sql });
  }

  sendAhead(sql: string): void {
    this.collectAhead();
    this.post({ kind: 'run', statements: this.take([{ sql }]) });
    this.outstanding++;
  }

  query(sql: string, parameters: readonly (string | null)[]): ResultSet {
    return this.run([{ sql, parameters }])[0]!;
  }

  queryLater(sql: string, parameters: readonly (string | null)[]): void {
    this.queued.push({ sql, parameters });
  }

  queries(statements: readonly Query[]): ResultSet[] {
    return this.run(statements.map((statement) => ({ sql: statement.sql, parameters: statement.parameters })));
  }

  transactionState(): TransactionState {
    return this.dead ? 'unknown' : this.state;
  }

  serverVersion(): number {
    return this.version;
  }

  // Sends Terminate without waiting: the process's exit ends the worker either way.
  close(): void {
    if (this.dead) return;
    this.queued = [];
    try {
      this.post({ kind: 'close' });
    } catch {
      // already gone
    }
    this.dead = new SessionError('the connection is closed', undefined, true);
  }

  // Runs the queued statements and then these in one request; the results of these.
  private run(statements: Statement[]): ResultSet[] {
    this.collectAhead();
    const all = this.take(statements);
    const reply = this.exchange({ kind: 'run', statements: all }, this.options.statementWaitMs + MARGIN_MS, 'running a statement');
    if (reply.error) throw sessionError(reply.error);
    return reply.results.slice(all.length - statements.length);
  }

  private take(statements: Statement[]): Statement[] {
    const all = [...this.queued, ...statements];
    this.queued = [];
    return all;
  }

  // The reply to a request sent ahead: its error is thrown now, by the statement after it.
  private collectAhead(): void {
    while (this.outstanding > 0) {
      this.outstanding--;
      const reply = this.await(this.options.statementWaitMs + MARGIN_MS, 'committing');
      if (reply.error && this.aheadError === undefined) this.aheadError = sessionError(reply.error);
    }
    const error = this.aheadError;
    this.aheadError = undefined;
    if (error) throw error;
  }

  private exchange(request: Request, waitMs: number, step: string): Reply {
    this.post(request);
    return this.await(waitMs, step);
  }

  private post(request: Request): void {
    if (this.dead) throw this.dead;
    this.port.postMessage(request);
  }

  // Blocks until the worker's next reply, or until the wait's bound (or a hook's deadline) runs out: then the
  // server is given up on, the worker ended, and the session dead.
  private await(waitMs: number, step: string): Reply {
    if (this.dead) throw this.dead;
    const hookLeft = serverWaitLimitMs();
    const limit = Math.min(waitMs, hookLeft);
    const endsAt = Date.now() + limit;
    for (;;) {
      const message = workerThreads().receiveMessageOnPort(this.port);
      if (message !== undefined) {
        this.seen++;
        const reply = message.message as Reply;
        this.state = STATES[reply.state];
        // This reply says what broke it; every later call, that the connection is gone.
        if (reply.state === 'lost') this.dead = new SessionError(`the connection was lost${reply.error ? ` (${reply.error.message})` : ''}`, undefined, true);
        return reply;
      }
      const left = endsAt - Date.now();
      if (left <= 0) break;
      Atomics.wait(this.counter, REPLY_COUNTER, this.seen, left);
      // Woken: the reply is on the port (or a spurious wake-up, or the bound): look again.
      if (Atomics.load(this.counter, REPLY_COUNTER) === this.seen && Date.now() >= endsAt) break;
    }
    const within = hookLeft < waitMs ? "before the hook's deadline (IC_HOOK_TIMEOUT)" : `within ${formatMs(limit)}`;
    const error = new SessionError(`the server did not answer ${within} (${step})`, undefined, true, 'ETIMEDOUT');
    this.dead = error;
    this.terminate();
    throw error;
  }

  private terminate(): void {
    this.dead ??= new SessionError('the connection is closed', undefined, true);
    void this.worker.terminate().catch(() => undefined);
  }
}

function sessionError(error: NonNullable<Reply['error']>): SessionError {
  if (error.malformed) return new SessionError(`the server's reply is not PostgreSQL's protocol (${error.message})`, undefined, true, 'EPROTO');
  return new SessionError(error.message, error.sqlstate, error.lost, error.systemCode);
}

function formatMs(ms: number): string {
  return ms >= 1_000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function takeEarlyWorker(): EarlyWorker | undefined {
  const holder = globalThis as Record<symbol, EarlyWorker | undefined>;
  const early = holder[EARLY_WORKER];
  holder[EARLY_WORKER] = undefined;
  return early;
}

// Started by bin/ic's loader beside dist/ (the worker's bundle then runs through a code cache of its own); a
// checkout whose loader predates that starts the bundle itself.
export function startWorker(file: string = workerFile()): EarlyWorker {
  const loader = join(dirname(file), '..', 'bin', 'ic');
  const start = existsSync(loader) ? (require(loader) as { startDriverWorker?: (bundle: string) => EarlyWorker }).startDriverWorker : undefined;
  if (start) return start(file);
  const signal = new SharedArrayBuffer(4);
  const { MessageChannel, Worker } = workerThreads();
  const { port1, port2 } = new MessageChannel();
  // The worker's stdout and stderr are the process's own, and it keeps nothing alive: a call exits when done.
  const worker = new Worker(file, { workerData: { port: port2, signal }, transferList: [port2], stdout: false, stderr: false });
  worker.unref();
  port1.unref();
  return { worker, port: port1, signal };
}

// dist/pg-worker.cjs: beside the bundle that runs this code, else in the dist/ of the ic checkout above it
// (tests run this module from src/, and their helper processes from a bundle of their own).
function workerFile(): string {
  const beside = join(__dirname, 'pg-worker.cjs');
  if (existsSync(beside)) return beside;
  for (let dir = __dirname, up = 0; up < 8; up++, dir = dirname(dir)) {
    const candidate = join(dir, 'dist', 'pg-worker.cjs');
    if (existsSync(candidate)) return candidate;
  }
  throw new SessionError('the PostgreSQL driver is missing (dist/pg-worker.cjs): run `npm run build` in the ic checkout', undefined, true, 'ENOENT');
}
