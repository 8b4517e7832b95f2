import { readIndexBase } from '../coord/private-index';
import { git, gitOr, parseRaw, privateIndexOfHook } from './git-index';
import { gitTopLevel } from './git-guard';
import type { HookInput, HookResult } from './hook-types';
import type { Deadline } from '../store/deadline';
import { parseRefUpdates, refuseHeldCommit, ZERO } from './commit-ref-guard';

// git's reference-transaction hook (installed with --git-index and with --git), at the `prepared` state: the last word
// before a ref moves, which `git commit --no-verify` does not skip. A commit from a private index whose base
// is no longer the branch tip may not put back content another session committed since that base: each
// path changed between the base and the current tip must not read, in the new commit, as it read at the
// base. Such a commit is aborted (exit 1) and nothing moves (docs/sessions.md, "No revert").

// Both checks of the hook: the revert check (a private index in use) and, when the script asks for it
// (IC_GUARD_COMMIT=1: the guard is installed and the current branch moves to a child of its tip), the
// guard's held-file check for commits that skipped pre-commit (commit-ref-guard.ts).
export async function runReferenceTransaction(input: HookInput, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): Promise<HookResult> {
  const top = gitTopLevel(cwd, env, deadline);
  const shared: NodeJS.ProcessEnv = { ...env };
  delete shared.GIT_INDEX_FILE;
  const branch = gitOr(['symbolic-ref', '-q', 'HEAD'], top, shared, deadline, '') || 'HEAD'; // HEAD: detached
  const reverted = revertRefusal(input, top, env, shared, branch, deadline);
  if (reverted !== undefined) return { stdout: '', stderr: reverted, exitCode: 1 };
  const held = env.IC_GUARD_COMMIT === '1' && branch !== 'HEAD' ? await refuseHeldCommit(parseRefUpdates(input.text), branch, top, shared, deadline) : undefined;
  return held ? { stdout: '', ...held } : { stdout: '', stderr: '', exitCode: 0 };
}

function revertRefusal(input: HookInput, top: string, env: NodeJS.ProcessEnv, shared: NodeJS.ProcessEnv, branch: string, deadline: Deadline): string | undefined {
  const mine = privateIndexOfHook(top, env);
  const base = mine ? readIndexBase(mine.index)?.base : undefined;
  if (!mine || !base) return undefined;
  for (const { old, next, ref } of parseRefUpdates(input.text)) {
    if (ref !== branch || ZERO.test(old) || ZERO.test(next) || old === base) continue;
    const reverted = revertedPaths(top, shared, base, old, next, deadline);
    if (reverted.length > 0) {
      const list = reverted.slice(0, 20).map((path) => `  ${path}`);
      const more = reverted.length > 20 ? [`  … and ${reverted.length - 20} more`] : [];
      return (
        [
          `ic: commit refused: your staging area was built on ${base.slice(0, 8)}, and another session has committed since (${old.slice(0, 8)}); this commit would put back the old content of:`,
          ...list,
          ...more,
          'Commit again without --no-verify (the guard first brings your staging area onto the new HEAD), then check those paths and stage them again if needed.',
        ].join('\n') + '\n'
      );
    }
  }
  return undefined;
}

// The paths others changed between `base` and `tip` that `next` sets back to what they were at `base`.
export function revertedPaths(top: string, env: NodeJS.ProcessEnv, base: string, tip: string, next: string, deadline: Deadline): string[] {
  const upstream = parseRaw(git(['diff-tree', '-r', '-z', '--no-renames', '--full-index', base, tip], top, env, deadline)).map((change) => change.path);
  if (upstream.length === 0) return [];
  const changed = new Set(parseRaw(git(['diff-tree', '-r', '-z', '--no-renames', '--full-index', base, next], top, env, deadline)).map((change) => change.path));
  return upstream.filter((path) => !changed.has(path));
}
