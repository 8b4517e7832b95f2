import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

export const DB_DIR = '.ic';
export const DB_FILE = 'ic.db';

export interface GitInfo {
  /** Canonical work tree root. */
  root: string;
  /** The directory holding config, info/ and hooks/ shared by all worktrees. */
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
  let dir = canonicalDir(start);
  for (;;) {
    const dotGit = join(dir, '.git');
    if (existsSync(dotGit)) return { root: dir, commonDir: resolveCommonDir(dotGit) };
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function resolveCommonDir(dotGit: string): string {
  if (statSync(dotGit).isDirectory()) return dotGit;
  const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
  if (!pointer) return dotGit;
  const gitDir = resolve(dirname(dotGit), pointer[1]!.trim());
  const commonFile = join(gitDir, 'commondir');
  if (!existsSync(commonFile)) return gitDir;
  const common = readFileSync(commonFile, 'utf8').trim();
  return isAbsolute(common) ? common : resolve(gitDir, common);
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

// The nearest existing .ic/ic.db walking up from `start`, if any.
export function findNearestDb(start: string): string | null {
  let dir = canonicalDir(start);
  for (;;) {
    const candidate = join(dir, DB_DIR, DB_FILE);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

export interface DbLocation {
  path: string;
  /** How the path was chosen, for `ic doctor` and error messages. */
  source: 'IC_DB' | '--db' | 'nearest' | 'project';
}

// CONTRACT.md: $IC_DB, else --db, else the nearest .ic/ic.db, else <project root>/.ic/ic.db.
export function locateDb(options: { env: NodeJS.ProcessEnv; dbFlag?: string; cwd: string; projectRoot: string }): DbLocation {
  if (options.env.IC_DB) return { path: resolve(options.cwd, options.env.IC_DB), source: 'IC_DB' };
  if (options.dbFlag) return { path: resolve(options.cwd, options.dbFlag), source: '--db' };
  const nearest = findNearestDb(options.cwd);
  if (nearest) return { path: nearest, source: 'nearest' };
  return { path: join(options.projectRoot, DB_DIR, DB_FILE), source: 'project' };
}
