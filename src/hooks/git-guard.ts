import { matchPath, toNFC } from '../core/glob';
import type { Lock } from '../core/lock';
import { formatTime } from '../core/time';
import { createContext, readTransaction } from '../coord/context';
import type { Deadline } from '../store/deadline';
import { listLocks, withoutBase } from '../store/locks';
import { runGitText } from '../store/git/git-process';
import { gitPaths } from './git-index';
import { sameLineage } from '../core/owner';

export function gitTopLevel(cwd: string, env: NodeJS.ProcessEnv, deadline: Deadline): string {
  return runGitText(['rev-parse', '--show-toplevel'], { cwd, env }, deadline).replace(/\n$/, '');
}

export interface HeldPath {
  path: string;
  lock: Lock;
}

// Each staged path that an active exclusive file lock of another owner matches (the first such lock).
// An empty `owner` makes every holder "another owner"; a session and its subagents are one owner here.
export function heldByOthers(paths: readonly string[], locks: readonly Lock[], owner: string, ignoreCase: boolean): HeldPath[] {
  const others = locks.filter((lock) => lock.type === 'file' && lock.mode === 'exclusive' && (owner === '' || !sameLineage(lock.owner, owner)));
  const held: HeldPath[] = [];
  if (others.length === 0) return held;
  for (const path of paths) {
    let key = toNFC(path);
    if (ignoreCase) key = key.toLowerCase();
    const lock = others.find((candidate) => matchPath(candidate.pattern, key));
    if (lock) held.push({ path, lock });
  }
  return held;
}

export interface GuardResult {
  held: HeldPath[];
  checked: number;
}

// The guard's question for one repository: which staged paths do other owners hold right now? --no-renames
// lists both sides of a rename. Works on an unborn branch and honours GIT_INDEX_FILE (set by `git commit -a`),
// which the git process inherits.
export async function checkStaged(cwd: string, env: NodeJS.ProcessEnv, owner: string, deadline: Deadline): Promise<GuardResult> {
  const top = gitTopLevel(cwd, env, deadline);
  return checkPaths(top, env, owner, () => gitPaths(['diff', '--cached', '--name-only', '-z', '--no-renames'], top, env, deadline));
}

// Which of these paths (read only when there is a database) do other owners hold right now? The guard's
// question for staged paths, and the ref-update check's for the paths a new commit changes.
export async function checkPaths(top: string, env: NodeJS.ProcessEnv, owner: string, pathsOf: () => string[]): Promise<GuardResult> {
  const ctx = await createContext({ cwd: top, env, write: false });
  try {
    if (ctx.dbMissing) return { held: [], checked: 0 }; // no database: nothing is held
    const paths = pathsOf();
    if (paths.length === 0) return { held: [], checked: 0 };
    const locks = await readTransaction(ctx, async (now) => (await listLocks(ctx.db, { scope: ctx.scope, type: 'file', activeAt: now })).map(withoutBase));
    return { held: heldByOthers(paths, locks, owner, ctx.ignoreCase), checked: paths.length };
  } finally {
    ctx.db.close();
  }
}

// A path as printed: raw when plain, JSON-quoted when it holds anything a terminal could misshow.
export function displayPath(path: string): string {
  return /[\u0000-\u001f\u007f"\\]|^\s|\s$|^-/.test(path) ? JSON.stringify(path) : path;
}

// The stderr report: path, holder, pattern, expiry, then what to do. Read by agents, which do what a
// message says: it offers waiting, asking and unstaging, never a way to switch the guard off (that is
// documented for people in docs/, not printed here).
export function guardReport(held: readonly HeldPath[], mode: 'block' | 'warn', owner: string): string {
  const lines = held.map(({ path, lock }) => `  ${displayPath(path)}  held by ${lock.owner} (pattern ${JSON.stringify(lock.pattern)}, lock ${lock.id}, until ${formatTime(lock.expires_at)})`);
  const holders = [...new Set(held.map(({ lock }) => lock.owner))].join(', ');
  const head =
    mode === 'block'
      ? `ic: commit refused: ${held.length} staged path${held.length === 1 ? ' is' : 's are'} reserved by another agent${owner ? ` (you are ${owner})` : ' (ic cannot tell which agent you are, so every holder counts as another agent)'}:`
      : `ic: warning: ${held.length} staged path${held.length === 1 ? ' is' : 's are'} reserved by another agent (committing anyway: the guard is in warn mode):`;
  const tail =
    mode === 'block'
      ? [
          `What to do: wait until the holder finishes (its lock ends at the time shown, or sooner when released) and commit again;`,
          `or ask ${holders} to release ${held.length === 1 ? 'it' : 'them'} (\`coord who\` shows what it holds and works on; \`coord claim ITEM --ask "MESSAGE"\` reaches its model for a work item it claimed);`,
          `or unstage ${held.length === 1 ? 'it' : 'them'} (git restore --staged -- PATH) and commit the rest.`,
        ]
      : [];
  return [head, ...lines, ...tail].join('\n');
}
