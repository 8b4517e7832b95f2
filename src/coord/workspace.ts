import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { IcError } from '../core/errors';
import { checkClock, type Clock, systemClock } from '../core/time';
import { canonicalDir, findGitInfo, findIcRoot, gitIgnoresCase, legacyDbPath, locateDb, projectDb, repositoryRoot, type DbLocation, type GitInfo } from '../store/discover';
import { recordScopeName, scopeNameOf } from '../store/locks';
import { EVERYTHING, type Connection } from '../store/connection';

// Where a call runs, resolved once, before any database is opened (the Workspace), and which clock it
// reads. The use cases' context (./context.ts) is made from a Workspace; the layers below get what it
// found (the git dirs, the database's location) and never look for it again. The shell hooks' fast path,
// which loads no SQLite, starts from here too.

export interface Project {
  /** The git work tree (canonical root) and common dir that hold the project; null outside git. */
  git: GitInfo | null;
  /** The canonical work tree root (git), else the nearest ancestor holding .ic/, else the working directory. */
  projectRoot: string;
  /** Outside git with no `ic init` root above: no project, so no default database (only --db, IC_DB or `ic init`). */
  unmarked: boolean;
  /** Where file and named locks live: the project root unless --scope names another directory. */
  scope: string;
  /** Where claims live: the repository, shared by all its worktrees (--scope overrides it too). */
  claimScope: string;
  ignoreCase: boolean;
  /** The database this project uses when neither --db nor $IC_DB names one. */
  projectDb: DbLocation;
  /** An ic 0.1 database left in the work tree (`<root>/.ic/ic.db`): reported, never used. */
  legacyDb: string | null;
}

/** A call's Workspace: its project, where it runs, and the database it uses. */
export interface Workspace extends Project {
  /** Where the call runs: relative paths, --db and $IC_DB are read from here. */
  cwd: string;
  /** The database of this call: --db, else $IC_DB, else the server the clone records, else the project's own. */
  db: DbLocation;
}

export interface WorkspaceOptions {
  env: NodeJS.ProcessEnv;
  dbFlag?: string;
  scopeFlag?: string;
  /** `ic init`: outside git, `cwd` itself becomes a root. */
  init?: boolean;
}

// The one walk up the tree and the one look at the clone's config a call makes (`project`: when the caller
// has already found the project, say to group files by it).
export function resolveWorkspace(cwd: string, options: WorkspaceOptions, project: Project = resolveProject(cwd, options.scopeFlag, options)): Workspace {
  return { ...project, cwd, db: locateDb({ env: options.env, dbFlag: options.dbFlag, cwd, git: project.git, projectDb: project.projectDb }) };
}

/** The switch that lets IC_NOW move the clock: a test aid nobody sets by accident. */
export const TEST_CLOCK_SWITCH = 'IC_TEST_CLOCK';

// IC_NOW (RFC 3339 or epoch ms) moves this process's clock, which then runs on from there, but only when
// IC_TEST_CLOCK=1 is set beside it: tests step past TTLs without sleeping; anyone else's stray IC_NOW
// cannot grant over a live lock or make one that lasts a century.
export function clockFromEnv(env: NodeJS.ProcessEnv): Clock {
  const raw = env.IC_NOW;
  if (!raw || env[TEST_CLOCK_SWITCH] !== '1') return systemClock;
  const base = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(base)) throw new IcError('INVALID_INPUT', `IC_NOW "${raw}" is not a time (RFC 3339 or epoch milliseconds)`);
  checkClock(base, 'IC_NOW');
  const startedAt = Date.now();
  return () => base + (Date.now() - startedAt);
}

// The project: inside git, the work tree holding `cwd` (its database in git's common dir); outside git,
// the nearest ancestor holding .ic/, else `cwd` itself. --scope overrides the scope of every lock type.
// `ic init` outside git makes `cwd` itself a root (like `git init`), even below another root.
// Run from outside any project with --scope (a cron job's `coord sweep --scope REPO` from $HOME), the
// project is the one holding the scope directory. `known`: a project this call has found already (same work tree).
export function resolveProject(cwd: string, scopeFlag?: string, options: { init?: boolean; known?: Project } = {}): Project {
  const scope = scopeFlag === undefined ? undefined : scopeDirectory(cwd, scopeFlag);
  let git = findGitInfo(cwd);
  if (scope === undefined && git && git.root === options.known?.git?.root) return options.known;
  let icRoot = git || options.init ? null : findIcRoot(cwd);
  if (!git && icRoot === null && scope !== undefined && !options.init) {
    git = findGitInfo(scope);
    icRoot = git ? null : findIcRoot(scope);
  }
  const projectRoot = git ? git.root : (icRoot ?? canonicalDir(cwd));
  return {
    git,
    projectRoot,
    unmarked: !git && icRoot === null,
    scope: scope ?? projectRoot,
    claimScope: scope ?? (git ? repositoryRoot(git) : projectRoot),
    ignoreCase: gitIgnoresCase(git),
    projectDb: projectDb(git, projectRoot),
    legacyDb: legacyDbPath(git),
  };
}

// --scope must name an existing directory: a typo would otherwise start a scope nobody else uses.
function scopeDirectory(cwd: string, flag: string): string {
  const path = isAbsolute(flag) ? flag : join(cwd, flag);
  let isDirectory = false;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    // missing or unreadable: refused below
  }
  if (!isDirectory) throw new IcError('INVALID_INPUT', `--scope ${flag}: not an existing directory`, { scope: flag, hint: 'Try: --scope with the path of a directory that exists, or leave it out' });
  return canonicalDir(path);
}

// A directory's identity whatever path reaches it (symlink, bind mount, container): device and inode.
export function directoryIdentity(dir: string): string | undefined {
  try {
    const stat = statSync(dir, { bigint: true });
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

// The key a scope directory's locks are stored under: the spelling first recorded for its identity, so a
// work tree reached through a bind mount (host and devcontainer) is one scope, not two. A writer records
// its own spelling when the directory has none yet; a reader uses what is recorded, else its own spelling.
export async function scopeKey(db: Connection, dir: string, write: boolean): Promise<string> {
  const identity = directoryIdentity(dir);
  if (identity === undefined) return dir;
  const known = await recordedKey(db, identity, dir);
  if (known !== undefined || !write) return known ?? dir;
  // Checked again under the write lock: two first writers through two spellings must agree on one.
  // Before the scope has a key there is no scope to lock by; the names table is shared by every scope.
  return db.write(EVERYTHING, async () => {
    const now = await recordedKey(db, identity, dir);
    if (now !== undefined) return now;
    await recordScopeName(db, identity, dir);
    return dir;
  });
}

// A recorded spelling still names this directory when it cannot be reached from here (another mount
// namespace) or reaches this very directory; one that reaches another directory is stale (inode reused).
async function recordedKey(db: Connection, identity: string, dir: string): Promise<string | undefined> {
  const stored = await scopeNameOf(db, identity);
  if (stored === undefined || stored === dir) return stored;
  const there = directoryIdentity(stored);
  return there === undefined || there === identity ? stored : undefined;
}
