import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { IcError } from '../core/errors';
import { checkClock, type Clock, systemClock } from '../core/time';
import { canonicalDir, findGitInfo, findIcRoot, gitIgnoresCase, legacyDbPath, projectDb, repositoryRoot, type DbLocation } from '../store/discover';

// Where a call runs and which clock it reads, resolved without opening any database: the use cases'
// context (./context.ts) starts from here, and so does the shell hooks' fast path, which loads no SQLite.

export interface Project {
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
  db: DbLocation;
  /** An ic 0.1 database left in the work tree (`<root>/.ic/ic.db`): reported, never used. */
  legacyDb: string | null;
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
// project is the one holding the scope directory.
export function resolveProject(cwd: string, scopeFlag?: string, options: { init?: boolean } = {}): Project {
  const scope = scopeFlag === undefined ? undefined : scopeDirectory(cwd, scopeFlag);
  let git = findGitInfo(cwd);
  let icRoot = git || options.init ? null : findIcRoot(cwd);
  if (!git && icRoot === null && scope !== undefined && !options.init) {
    git = findGitInfo(scope);
    icRoot = git ? null : findIcRoot(scope);
  }
  const projectRoot = git ? git.root : (icRoot ?? canonicalDir(cwd));
  return {
    projectRoot,
    unmarked: !git && icRoot === null,
    scope: scope ?? projectRoot,
    claimScope: scope ?? (git ? repositoryRoot(git) : projectRoot),
    ignoreCase: gitIgnoresCase(git),
    db: projectDb(git, projectRoot),
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
