import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { commandReach } from '../../core/shell/reach';
import { findGitInfo } from '../../store/discover';
import { lstatOrNull } from '../../store/git/files';
import { NO_DEADLINE, type Deadline } from '../../store/deadline';
import { nearestExistingDir } from '../edit';
import { restoreAfterShell } from './restore';
import { snapshotBeforeShell } from './snapshot';
import type { RestoreReport, ShellRequest } from './types';

// Every repository a command touched (issue #34, item 3): a held file is judged by its own work tree,
// wherever the session's cwd is. The work trees of one command are its cwd's, those it `cd`s into or names
// (`git -C`, `/abs/path`, `../other/x`), every repository right below a cwd that is in none (one level, its first 200 entries) (a session
// started in a parent directory), and the linked worktrees of each (`git worktree add`: one database, a
// scope each). The before hook snapshots each; the after hook restores each by its own snapshot.

const CHILD_DIRS_LOOKED_AT = 200;

export function commandWorkTrees(request: ShellRequest, env: NodeJS.ProcessEnv): { primary: string | undefined; others: string[] } {
  const roots = new Map<string, string>(); // work-tree root → common dir
  const add = (dir: string): string | undefined => {
    const git = findGitInfo(dir);
    if (git) roots.set(git.root, git.commonDir);
    return git?.root;
  };
  const primary = add(request.cwd);
  const reach = commandReach(request.command, request.cwd, env.HOME);
  for (const dir of reach.dirs) add(nearestExistingDir(dir));
  if (primary === undefined) for (const child of repositoriesBelow(request.cwd)) add(child);
  for (const commonDir of new Set(roots.values())) for (const root of workTreesOf(commonDir)) if (!roots.has(root)) roots.set(root, commonDir);
  if (primary !== undefined) roots.delete(primary);
  return { primary, others: [...roots.keys()] };
}

export async function snapshotEveryWorkTree(request: ShellRequest, env: NodeJS.ProcessEnv, deadline: Deadline = NO_DEADLINE): Promise<void> {
  const { primary, others } = commandWorkTrees(request, env);
  if (primary !== undefined) await snapshotBeforeShell(request, env, deadline);
  for (const root of others) await snapshotBeforeShell({ ...request, cwd: root }, env, deadline);
}

// After the command: the restore in each work tree. One that is not the cwd's is restored only by a
// snapshot its before hook took there (without one, nothing there is known to be the command's).
export async function restoreEveryWorkTree(request: ShellRequest, env: NodeJS.ProcessEnv, deadline: Deadline = NO_DEADLINE): Promise<RestoreReport> {
  const { primary, others } = commandWorkTrees(request, env);
  const report: RestoreReport = primary !== undefined ? await restoreAfterShell(request, env, deadline) : { restored: [], displaced: [] };
  for (const root of others) {
    const part = await restoreAfterShell({ ...request, cwd: root }, env, deadline, { onlyWithSnapshot: true });
    addReport(report, part, (path) => relative(request.cwd, join(root, path))); // said from the command's cwd, so the message names the right file
  }
  return report;
}

// One report's rows added to another's, each path renamed by `name`.
export function addReport(report: RestoreReport, part: RestoreReport, name: (path: string) => string = (path) => path): void {
  for (const key of Object.keys(part) as (keyof RestoreReport)[]) {
    const rows = (part[key] ?? []) as { path: string }[];
    if (rows.length > 0) ((report[key] ??= []) as { path: string }[]).push(...rows.map((row) => ({ ...row, path: name(row.path) })));
  }
}

// Repositories right below a directory that is in none (a session started in ~/projects): one readdir and
// a stat or two per entry, bounded.
function repositoriesBelow(dir: string): string[] {
  const found: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir).slice(0, CHILD_DIRS_LOOKED_AT);
  } catch {
    return found;
  }
  for (const name of names) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const child = join(dir, name);
    if (lstatOrNull(join(child, '.git')) !== null && lstatOrNull(child)?.isDirectory()) found.push(child);
  }
  return found;
}

// The work trees of a repository: the main one (when the common dir is its `.git`) and each linked one
// (`<common dir>/worktrees/<name>/gitdir` names its `.git` file).
function workTreesOf(commonDir: string): string[] {
  const roots: string[] = [];
  let names: string[];
  try {
    names = readdirSync(join(commonDir, 'worktrees'));
  } catch {
    return roots;
  }
  if (basename(commonDir) === '.git') roots.push(dirname(commonDir));
  for (const name of names) {
    try {
      const dotGit = readFileSync(join(commonDir, 'worktrees', name, 'gitdir'), 'utf8').trim();
      const root = dirname(dotGit);
      if (lstatOrNull(root)?.isDirectory()) roots.push(findGitInfo(root)?.root ?? root);
    } catch {
      // a worktree being added or pruned
    }
  }
  return roots;
}
