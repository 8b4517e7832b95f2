import { existsSync } from 'node:fs';
import { IcError } from '../core/errors';
import { checkClock, type Clock, formatTime, MAX_TTL_MS, parseNonNegativeDuration } from '../core/time';
import { isServerDb, type DbLocation } from '../store/discover';
import { projectIdentity, serverScopeKeys } from './project-key';
import { checkProjectBinding } from './project-binding';
import type { PgConnection } from '../store/postgres/pg-connection';
import { DEFAULT_BUSY_TIMEOUT_MS, openDb } from '../store/open';
import { translateDbError } from '../store/errors';
import { CLOCK_TOLERANCE_MS, monotonicMs, newestEventTime, recordTransaction } from '../store/clock';
import type { Connection, WriteScope } from '../store/connection';
import { clockFromEnv, resolveWorkspace, scopeKey, TEST_CLOCK_SWITCH, type Project, type Workspace } from './workspace';

export { clockFromEnv, resolveProject, resolveWorkspace, TEST_CLOCK_SWITCH, type Project, type Workspace } from './workspace';
import { digestGeneration, dropDigest } from '../store/custody-digest';

export type ContextOptions = {
  env: NodeJS.ProcessEnv;
  /** Writers open (and create) the file; readers of a missing default file see an empty database. */
  write: boolean;
  /** `ic init`: the one writer that may create a database outside git where no `ic init` root is yet. */
  init?: boolean;
  /** The CLI: a read outside every project is refused too (saying how to start one), not read as empty. */
  readsNeedProject?: boolean;
  clock?: Clock;
} & ({ /** The call's Workspace, when the caller has resolved it (it is not looked for again). */ workspace: Workspace } | { cwd: string; dbFlag?: string; scopeFlag?: string });

// Everything a use case needs: the call's Workspace, the open database, the scope it acts in, and one clock.
export interface CoordContext extends Omit<Workspace, 'db'> {
  /** The store's connection (src/store/connection.ts): every SQL statement goes through it. */
  db: Connection;
  /** The scope directory as reached from here, for file-system work; `scope` is its stored key (see scopeKey in workspace.ts). */
  scopeDir: string;
  dbLocation: DbLocation;
  /** True when a read found no database: it answered from an empty state and created nothing. */
  dbMissing: boolean;
  clock: Clock;
  lockDelayMs: number;
  env: NodeJS.ProcessEnv;
}

const DEFAULT_LOCK_DELAY_MS = 60_000;
const MAX_BUSY_TIMEOUT_MS = 10 * 60_000;

export function lockDelayFromEnv(env: NodeJS.ProcessEnv): number {
  return env.IC_LOCK_DELAY ? parseNonNegativeDuration(env.IC_LOCK_DELAY, 'IC_LOCK_DELAY', MAX_TTL_MS) : DEFAULT_LOCK_DELAY_MS;
}

// Bounded: a wait beyond a few minutes is a hang, and a huge value overflows the timers below.
export function busyTimeoutFromEnv(env: NodeJS.ProcessEnv): number {
  return env.IC_BUSY_TIMEOUT ? parseNonNegativeDuration(env.IC_BUSY_TIMEOUT, 'IC_BUSY_TIMEOUT', MAX_BUSY_TIMEOUT_MS) : DEFAULT_BUSY_TIMEOUT_MS;
}

export async function createContext(options: ContextOptions): Promise<CoordContext> {
  const clock = options.clock ?? clockFromEnv(options.env);
  const lockDelayMs = lockDelayFromEnv(options.env);
  const workspace = 'workspace' in options ? options.workspace : resolveWorkspace(options.cwd, { env: options.env, dbFlag: options.dbFlag, scopeFlag: options.scopeFlag });
  const { db: dbLocation, ...where } = workspace;
  if ((options.write || options.readsNeedProject) && !options.init) refuseImplicitDb(workspace, dbLocation);
  const server = isServerDb(dbLocation);
  // On a server, the project's identity is the scope (no path is shared by two clones): known before connecting.
  const serverKeys = server ? serverScopeKeys(workspace) : undefined;
  const opened = openDb(dbLocation, { write: options.write, busyTimeoutMs: busyTimeoutFromEnv(options.env), now: clock(), ...(server ? { env: options.env } : {}) });
  let keys: { scope: string; claimScope: string };
  try {
    keys = serverKeys ?? (await fileScopeKeys(opened.db, workspace, options.write));
    // Before anything is read or written under the key: is it this repository's? (project-binding.ts)
    if (serverKeys && !opened.missing) {
      const { projectRoot, git } = workspace;
      await checkProjectBinding((opened.db as PgConnection).pg, dbLocation.path, projectRoot, projectIdentity(projectRoot, git), { record: true }, git);
    }
  } catch (error) {
    opened.db.close();
    throw translateDbError(error, dbLocation.path);
  }
  return { ...where, ...keys, scopeDir: workspace.scope, db: opened.db, dbMissing: opened.missing, dbLocation, clock, lockDelayMs, env: options.env };
}

// The stored keys of a workspace's scopes in a database file: each scope directory's recorded spelling.
async function fileScopeKeys(db: Connection, workspace: Workspace, write: boolean): Promise<{ scope: string; claimScope: string }> {
  const scope = await scopeKey(db, workspace.scope, write);
  return { scope, claimScope: workspace.claimScope === workspace.scope ? scope : await scopeKey(db, workspace.claimScope, write) };
}

/** A writer's context in the workspace of `dir` (outside git too, unless `inGit`), or undefined where it has no database yet: a hook that only looks creates none. */
export async function existingContext(dir: string | Workspace, env: NodeJS.ProcessEnv, inGit = false): Promise<CoordContext | undefined> {
  const workspace = typeof dir === 'string' ? resolveWorkspace(dir, { env }) : dir;
  if ((inGit && !workspace.git) || (!isServerDb(workspace.db) && !existsSync(workspace.db.path))) return undefined;
  return createContext({ workspace, env, write: true });
}

// Outside git, a database is created only where someone asked for one (`ic init`, --db, IC_DB): a stray
// run from $HOME or / must not start a database that then captures every directory below it.
export function refuseImplicitDb(project: Pick<Project, 'unmarked' | 'projectRoot'>, location: DbLocation): void {
  if (!project.unmarked || location.source !== 'project') return;
  throw new IcError('DB_UNAVAILABLE', `${project.projectRoot} is not in a git repository or below an \`ic init\` directory: there is no project database here`, {
    path: location.path,
    hint: "run `ic init` in the project's root directory (it creates .ic/ there), or name a database with --db PATH or IC_DB",
  });
}

// One write transaction with one clock reading: expiry is judged after the write lock is held. `scope` names
// what the work may change (the connection's lock: the whole file on SQLite, one lock per scope on an
// engine that has them). `checkClock: false` is for the one write that repairs a poisoned clock (coord/clock.ts).
export async function writeTransaction<T>(ctx: CoordContext, scope: WriteScope, work: (now: number) => Promise<T>, options: { checkClock?: boolean } = {}): Promise<T> {
  const outer = transactionTimes.get(ctx.db);
  // Nested (a savepoint): the outer transaction has checked the clock and watches the digest; its time is this one's.
  if (outer !== undefined) return ctx.db.write(scope, async () => work(outer));
  const requested = monotonicMs();
  let started = requested;
  try {
    const result = await ctx.db.write(scope, async () => {
      started = monotonicMs(); // the write lock is ours
      // A server database has no digest beside it (the shell fast path is off there): nothing to read or drop.
      const digest = !isServerDb(ctx.dbLocation);
      const generation = digest ? await digestGeneration(ctx.db) : undefined;
      const now = options.checkClock === false ? checkClock(await ctx.db.now(ctx.clock), 'the clock') : await writeClock(ctx);
      transactionTimes.set(ctx.db, now);
      let out: T;
      try {
        out = await work(now);
      } finally {
        transactionTimes.delete(ctx.db);
      }
      // The shell hooks' digest no longer tells the whole truth: gone before this commits (schema/0007).
      if (digest && (await digestGeneration(ctx.db)) !== generation) dropDigest(ctx.dbLocation.path);
      return out;
    });
    recordTransaction({ lockWaitMs: started - requested, heldMs: monotonicMs() - started });
    return result;
  } catch (error) {
    throw translateDbError(error, ctx.dbLocation.path);
  }
}

// The time of each connection's open write transaction, while its work runs: a nested write acts at it (one
// clock check and one clock per transaction, as the docs promise, and a savepoint costs no statement more).
const transactionTimes = new WeakMap<Connection, number>();

/** The write scope of a use case acting in the context's scope (file and named locks; claims, when `scope` is the claim scope). */
export function ownScope(ctx: Pick<CoordContext, 'scope'>): WriteScope {
  return { scopes: [ctx.scope] };
}

/** The write scope of a use case acting on claims (the repository's scope, shared by its worktrees). */
export function claimWriteScope(ctx: Pick<CoordContext, 'claimScope'>): WriteScope {
  return { scopes: [ctx.claimScope] };
}

/** The write scope of what `list` shows without --all-scopes: the context's scope and its claim scope. */
export function viewWriteScope(ctx: Pick<CoordContext, 'scope' | 'claimScope'>): WriteScope {
  return { scopes: ctx.claimScope === ctx.scope ? [ctx.scope] : [ctx.scope, ctx.claimScope] };
}

/** How far ahead of both the newest event and the real clock a test clock (IC_NOW) may be. */
export const MAX_CLOCK_LEAP_MS = 86_400_000;

// The time a write records: never before the newest event, so a clock stepped back a little cannot shorten
// a lock (a renewal would set an earlier expiry) or disorder the log; never outside the years ic accepts.
// Outside a sane window the write is refused (INVALID_INPUT, 65) rather than stamped, so one bad clock
// cannot date every later write (docs/guarantees.md, "Time"): behind the newest event by more than
// CLOCK_TOLERANCE_MS (the clock went back, or the log holds events from the future: `ic doctor
// --repair-clock`), or a test clock more than a day ahead of the log and of the real time. The system
// clock may run ahead of the log: a repository idle for a week is not a poisoned one.
async function writeClock(ctx: CoordContext): Promise<number> {
  const testClock = Boolean(ctx.env.IC_NOW && ctx.env[TEST_CLOCK_SWITCH] === '1');
  const source = testClock ? 'IC_NOW' : 'the system clock';
  const now = checkClock(await ctx.db.now(ctx.clock), source);
  const newest = await newestEventTime(ctx.db);
  if (newest === null) return now;
  const refuse = (message: string, hint: string) => new IcError('INVALID_INPUT', message, { source, clock: formatTime(now), newest_event: formatTime(newest), hint });
  if (now < newest - CLOCK_TOLERANCE_MS) {
    if (newest > Date.now() + CLOCK_TOLERANCE_MS)
      throw refuse(
        `the database holds events dated ${formatTime(newest)}, in the future: a write with a wrong clock stamped them; refusing to date more writes after them`,
        'run `ic doctor`, then `ic doctor --repair-clock`',
      );
    throw refuse(
      `${source} reads ${formatTime(now)}, more than ${CLOCK_TOLERANCE_MS / 60_000}m before the newest event (${formatTime(newest)}); refusing to write with a clock that went back`,
      'fix the clock (or unset IC_NOW)',
    );
  }
  if (testClock && now > Math.max(newest, Date.now()) + MAX_CLOCK_LEAP_MS)
    throw refuse(
      `IC_NOW reads ${formatTime(now)}, more than a day ahead of the newest event (${formatTime(newest)}) and of the real time; refusing to date a write there`,
      'step IC_NOW forward by less than a day at a time',
    );
  return Math.max(now, newest);
}

// Reads run in one deferred transaction so that they see one consistent snapshot. A read inside a write
// transaction is part of it and acts at its time (a snapshot dated after the write's clock would look stale
// to the write that checks it: coord/reserve.ts).
export async function readTransaction<T>(ctx: CoordContext, work: (now: number) => Promise<T>): Promise<T> {
  const writing = transactionTimes.get(ctx.db);
  try {
    return await ctx.db.read(async () => work(writing ?? (await ctx.db.now(ctx.clock))));
  } catch (error) {
    throw translateDbError(error, ctx.dbLocation.path);
  }
}
