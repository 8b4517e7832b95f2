import { execa, type Options } from 'execa';
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { freshPostgresDatabase, nameTestProject, projectKeyOf, onPostgres, POSTGRES_CLIENT_CLOCK, postgresDatabaseExists } from './engine';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const IC_BIN = join(REPO_ROOT, 'bin', 'ic');
export const COORD_BIN = join(REPO_ROOT, 'bin', 'coord');

export interface TempRepo {
  dir: string;
  /** Its database: a SQLite file path, or on PostgreSQL (IC_TEST_ENGINE=postgres, see engine.ts) the URL of its own schema. */
  db: string;
  /** The scope its locks are stored under: its directory on SQLite, its project key on PostgreSQL (git config ic.project); makeTempRepo sets it. */
  scope?: string;
  cleanup: () => void;
}

// A copy of this repository's bin/ and dist/ in a temp directory: for tests of what a call keeps beside its
// bundles (the code cache, the PostgreSQL login record), which must not touch the repository's own.
export function copyInstall(): { dir: string; bin: string; dist: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'ic-install-'));
  cpSync(join(REPO_ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(REPO_ROOT, 'dist'), join(dir, 'dist'), { recursive: true, filter: (source) => !source.endsWith('.map') && !source.endsWith('.tmp') && !source.endsWith('postgres-login.json') });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules')); // better-sqlite3's addon, found beside the bundle
  return { dir, bin: join(dir, 'bin', 'ic'), dist: join(dir, 'dist'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// A real git repository in a temp directory (canonical path), with its own database file.
export function makeTempRepo(prefix = 'ic-test-'): TempRepo {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  execFileSync('git', ['-C', dir, 'config', 'user.email', 'test@example.com']);
  execFileSync('git', ['-C', dir, 'config', 'user.name', 'Test']);
  execFileSync('git', ['-C', dir, 'config', 'commit.gpgsign', 'false']);
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (onPostgres) {
    // The bin run anywhere in this repository gets IC_DB set to this database (see runBin).
    const database = freshPostgresDatabase();
    nameTestProject(dir, database); // a temp repository has no root commit to name its project by
    postgresRepos.set(dir, database.url);
    return {
      dir,
      db: database.url,
      scope: projectKeyOf(database),
      cleanup: () => {
        postgresRepos.delete(dir);
        removeDir();
        database.drop();
      },
    };
  }
  // The default database of a git repository lives in its common dir (docs/reference.md, Database).
  return { dir, db: join(dir, '.git', 'ic', 'ic.db'), scope: dir, cleanup: removeDir };
}

// Whether the repository's database has been created: its file on SQLite, its tables on PostgreSQL.
export function databaseExists(repo: TempRepo): boolean {
  return onPostgres ? postgresDatabaseExists(repo.db) : existsSync(repo.db);
}

// On PostgreSQL: each live temp repository's database, by its directory.
const postgresRepos = new Map<string, string>();

// The database a bin run in `cwd` uses when the test names none: on PostgreSQL, the database of the temp
// repository containing `cwd` (there is no default location on a server); on SQLite, none (the default file).
function engineDbFor(cwd: string, env: Record<string, string | undefined> | undefined): Record<string, string> {
  if (!onPostgres || (env !== undefined && 'IC_DB' in env)) return {};
  const real = realpathOrSelf(cwd);
  for (const [dir, url] of postgresRepos) if (real === dir || real.startsWith(`${dir}/`)) return { IC_DB: url };
  return {};
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  json: any;
}

// Environment for the bin under test: nothing inherited that could change its answers. On PostgreSQL a
// process the test starts itself (not through runBin) gets the database of the newest live temp repository.
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    IC_OWNER: undefined,
    IC_DB: onPostgres ? [...postgresRepos.values()].at(-1) : undefined,
    IC_NOW: undefined,
    IC_TEST_CLOCK: undefined,
    IC_LOCK_DELAY: undefined,
    IC_GUARD: undefined,
    IC_HOOK_FAIL: undefined,
    IC_DEBUG: undefined,
    IC_FAST_PATH: undefined,
    CLAUDE_ENV_FILE: undefined,
    // install records Codex's hook trust in $CODEX_HOME/config.toml by default: a test that installs Codex
    // hooks names a temp CODEX_HOME, and one that forgets fails here instead of writing to the real home.
    CODEX_HOME: '/dev/null/ic-test-set-CODEX_HOME',
    NO_COLOR: '1',
    // The hooks' budget (5 s by default) is a promise to the client, not a property of the code under test: on a
    // loaded machine (a second copy of the suite beside it) a hook can pass it and fail open. Tests of the budget
    // itself name their own IC_HOOK_TIMEOUT; every other test gets a budget no load reaches.
    IC_HOOK_TIMEOUT: '120s',
  };
  // A test that moves the clock turns on the switch that lets IC_NOW do so (on PostgreSQL, instead of the server's clock: engine.ts).
  const clock = extra.IC_NOW !== undefined && !('IC_TEST_CLOCK' in extra) ? { IC_TEST_CLOCK: '1' } : {};
  const serverClock = extra.IC_NOW !== undefined && onPostgres && !('IC_TEST_PG_CLIENT_CLOCK' in extra) ? { IC_TEST_PG_CLIENT_CLOCK: POSTGRES_CLIENT_CLOCK.IC_TEST_PG_CLIENT_CLOCK } : {};
  return { ...env, IC_TEST_PG_CLIENT_CLOCK: undefined, ...clock, ...serverClock, ...extra };
}

function parse(stdout: string): any {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

// Runs the real bin as a process: JSON on stdout (it is a pipe), never rejects on a non-zero exit.
export async function runBin(bin: string, args: string[], options: { cwd: string; env?: Record<string, string | undefined>; input?: string; timeout?: number }): Promise<RunResult> {
  const execaOptions: Options = {
    cwd: options.cwd,
    env: cleanEnv({ ...engineDbFor(options.cwd, options.env), ...options.env }),
    extendEnv: false,
    reject: false,
    input: options.input ?? '',
    timeout: options.timeout ?? 60_000, // a bound for a hung call, not a time the call must meet: a loaded machine takes seconds
  };
  const result = await execa(bin, args, execaOptions);
  const stdout = String(result.stdout ?? '');
  return { exitCode: result.exitCode ?? -1, stdout, stderr: String(result.stderr ?? ''), json: parse(stdout) };
}

export function ic(repo: TempRepo, args: string[], options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {}): Promise<RunResult> {
  return runBin(IC_BIN, args, { cwd: options.cwd ?? repo.dir, env: options.env, input: options.input });
}

export function coord(repo: TempRepo, args: string[], options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {}): Promise<RunResult> {
  return runBin(COORD_BIN, args, { cwd: options.cwd ?? repo.dir, env: options.env, input: options.input });
}

// The locks `coord list` shows in the repository. A database that was never written has none: on PostgreSQL
// a read of it answers DB_UNAVAILABLE instead ("ic init --db URL": it was named by IC_DB, as a SQLite file
// named by --db that does not exist is), so it is not asked.
export async function listedLocks(repo: TempRepo, args: string[] = []): Promise<unknown[]> {
  if (onPostgres && !databaseExists(repo)) return [];
  return (await coord(repo, ['list', ...args])).json.locks;
}

// The stored scope of a directory of the repository given as --scope: the directory itself on SQLite; on
// PostgreSQL the project key, with `:<path below the root>` for a directory below it.
export function scopeOf(repo: TempRepo, dir: string): string {
  if (!onPostgres) return dir;
  const rel = relative(repo.dir, dir);
  return rel === '' ? repo.scope! : `${repo.scope!}:${rel}`;
}

// What a process the test starts with its own environment (process.env, not cleanEnv) needs to reach the
// repository's database: IC_DB on PostgreSQL, nothing on SQLite (the default file).
export function dbEnv(repo: TempRepo): Record<string, string> {
  if (!onPostgres) return {};
  return { IC_DB: repo.db };
}

// A database the bin cannot use, and the environment that points the bin at it: on SQLite the repository's own
// file filled with text; on PostgreSQL a server that refuses the connection. Never a write to `repo.db` as a path
// on PostgreSQL: there it is a URL, and the file would land in the test's working directory (the repository).
export function brokenDatabase(repo: TempRepo, text = 'this is not a sqlite database, just text that is long enough to be read as a header '): Record<string, string> {
  if (onPostgres) return { IC_DB: 'postgresql://127.0.0.1:1/ic?connect_timeout=2' };
  mkdirSync(dirname(repo.db), { recursive: true });
  writeFileSync(repo.db, text.repeat(4));
  return {};
}
