import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { isPostgresUrl, shownUrl } from './postgres/url';
import { childProcess } from '../lazy-builtins';
import { IcError } from '../core/errors';

export const DB_DIR = '.ic';
export const DB_FILE = 'ic.db';
/** The directory under git's common dir that holds the database of a git repository. */
export const GIT_DB_DIR = 'ic';

export interface GitInfo {
  /** Canonical work tree root. */
  root: string;
  /** The directory holding config, info/ and hooks/ shared by all worktrees (`git rev-parse --git-common-dir`). */
  commonDir: string;
}

// Canonical absolute path: symlinks resolved, so two spellings of one directory are one scope.
export function canonicalDir(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

// Finds the git work tree containing `start` by looking for `.git` (a directory, or a file in linked
// worktrees and submodules): the same answer as `git rev-parse --show-toplevel` without a process.
export function findGitInfo(start: string): GitInfo | null {
  const root = nearestAncestor(start, (dir) => existsSync(join(dir, '.git')));
  return root === null ? null : { root, commonDir: canonicalDir(resolveCommonDir(join(root, '.git'))) };
}

// The nearest ancestor of `start` (itself included, symlinks resolved) that `holds` accepts.
function nearestAncestor(start: string, holds: (dir: string) => boolean): string | null {
  for (let dir = canonicalDir(start); ; dir = dirname(dir)) {
    if (holds(dir)) return dir;
    if (dirname(dir) === dir) return null;
  }
}

// The git dir a work tree's `.git` names: itself when a directory, else the `gitdir:` its file points to.
export function gitDirOf(dotGit: string): string {
  if (statSync(dotGit).isDirectory()) return dotGit;
  const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
  return pointer ? resolve(dirname(dotGit), pointer[1]!.trim()) : dotGit;
}

function resolveCommonDir(dotGit: string): string {
  const gitDir = gitDirOf(dotGit);
  const commonFile = join(gitDir, 'commondir');
  if (gitDir === dotGit || !existsSync(commonFile)) return gitDir;
  const common = readFileSync(commonFile, 'utf8').trim();
  return isAbsolute(common) ? common : resolve(gitDir, common);
}

// The repository as one name for all its worktrees: the main work tree when the common dir is its
// `.git`, else (a bare repository with linked worktrees) the common dir itself.
export function repositoryRoot(git: GitInfo): string {
  return basename(git.commonDir) === '.git' ? dirname(git.commonDir) : git.commonDir;
}

// git's core.ignorecase decides whether paths are compared case-insensitively.
export function gitIgnoresCase(info: GitInfo | null): boolean {
  if (!info) return false;
  try {
    const config = readFileSync(join(info.commonDir, 'config'), 'utf8');
    return /^\s*ignorecase\s*=\s*true\s*$/im.test(config);
  } catch {
    return false;
  }
}

// Outside git: the nearest ancestor of `start` (itself included) that holds a `.ic/` directory.
export function findIcRoot(start: string): string | null {
  return nearestAncestor(start, (dir) => isDirectory(join(dir, DB_DIR)));
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true; // a missing path (a new file) is common: no exception built for it
  } catch {
    return false;
  }
}

// Where ic 0.1 kept the database inside git: `<work tree root>/.ic/ic.db`. Reported, never used.
export function legacyDbPath(git: GitInfo | null): string | null {
  if (!git) return null;
  const path = join(git.root, DB_DIR, DB_FILE);
  return existsSync(path) ? path : null;
}

export interface DbLocation {
  /** The database file; for a PostgreSQL server, its URL without the password (what messages show). */
  path: string;
  /** A PostgreSQL server's URL as given (it may hold a password: only to connect, never shown). */
  url?: string;
  /** How the path was chosen, for `ic doctor` and error messages. */
  source: '--db' | 'IC_DB' | 'ic.db' | 'git' | 'project';
}

// The default database of a project: inside git, in the common dir (never in a work tree, so no git
// command stages, stashes or cleans it, and every worktree shares it); outside git, <root>/.ic/ic.db.
export function projectDb(git: GitInfo | null, root: string): DbLocation {
  return git ? { path: join(git.commonDir, GIT_DB_DIR, DB_FILE), source: 'git' } : { path: join(root, DB_DIR, DB_FILE), source: 'project' };
}

// docs/reference.md, "Database": --db, else $IC_DB, else the server the clone records (`git config ic.db`,
// set by `ic init --db URL`), else the project's default. A clone that records a server never falls back to
// a local file. Explicit paths are read from the working directory; their directory must already exist
// (open.ts refuses otherwise). The project (its git dirs, its default) is found by the caller, once.
export function locateDb(options: { env: NodeJS.ProcessEnv; dbFlag?: string; cwd: string; git: GitInfo | null; projectDb: DbLocation }): DbLocation {
  if (options.dbFlag) return explicitDb(options.dbFlag, '--db', options);
  if (options.env.IC_DB) return explicitDb(options.env.IC_DB, 'IC_DB', options);
  const recorded = options.git ? recordedServer(options.git.commonDir) : undefined;
  if (recorded !== undefined) return { path: shownUrl(recorded, options.env), url: recorded, source: 'ic.db' };
  return options.projectDb;
}

/** The git config key where `ic init --db URL` records a clone's server. */
export const DB_CONFIG_KEY = 'ic.db';

// The server this clone records (`ic.db` in the repository's own config file, never the global one: a server
// belongs to a clone), read without starting git when the file is plain; undefined when none.
export function recordedServer(commonDir: string): string | undefined {
  const value = icConfigInFile(commonDir, 'db');
  if (value === undefined) return viaGit(commonDir);
  return value === null ? undefined : serverUrl(value);
}

// `ic.<name>` as the repository's own config file says, read without starting git (a hook's budget counts
// every process): null when the file sets none (git may still find one elsewhere), undefined when only git
// can tell (an unreadable file, includes, quoting, escapes).
export function icConfigInFile(commonDir: string, name: 'db' | 'project'): string | null | undefined {
  let text: string;
  try {
    text = readFileSync(join(commonDir, 'config'), 'utf8');
  } catch {
    return undefined;
  }
  if (/^\s*\[\s*include/im.test(text) || /worktreeconfig/i.test(text)) return undefined;
  const entryOf = new RegExp(`^\\s*(?:\\[[^\\]]*\\]\\s*)?${name}\\s*=\\s*(.*)$`, 'im');
  if (!entryOf.test(text)) return null; // the common case: one test, no parse
  let inIc = false;
  let found: string | null = null;
  for (const line of text.split('\n')) {
    const section = /^\s*\[([^\]]*)\]/.exec(line);
    if (section) inIc = /^\s*ic\s*$/i.test(section[1]!);
    const entry = inIc ? entryOf.exec(line) : null;
    if (!entry) continue;
    const value = entry[1]!.trim();
    if (/["\\#;]/.test(value)) return undefined;
    found = value;
  }
  return found;
}

// A recorded value that is not a server's URL is refused, not read as "no server": the clone was bound to one.
function serverUrl(value: string): string {
  if (isPostgresUrl(value)) return value;
  throw new IcError('USAGE', `git config ${DB_CONFIG_KEY} in this clone is not a PostgreSQL URL (postgres:// or postgresql://)`, {
    hint: `fix it with \`ic init --db URL\`, or remove it with \`git config --unset ${DB_CONFIG_KEY}\``,
  });
}

function viaGit(commonDir: string): string | undefined {
  try {
    const value = childProcess()
      .execFileSync('git', ['config', '--file', join(commonDir, 'config'), '--includes', '--get', DB_CONFIG_KEY], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim();
    return value === '' ? undefined : serverUrl(value);
  } catch (error) {
    if (error instanceof IcError) throw error;
    return undefined; // git exits 1 when the key is not set
  }
}

function explicitDb(named: string, source: '--db' | 'IC_DB', options: { env: NodeJS.ProcessEnv; cwd: string }): DbLocation {
  if (isPostgresUrl(named)) return { path: shownUrl(named, options.env), url: named, source };
  return { path: resolve(options.cwd, named), source };
}

/** The database lives on a PostgreSQL server (no file, nothing beside it). */
export function isServerDb(location: DbLocation): boolean {
  return location.url !== undefined;
}
