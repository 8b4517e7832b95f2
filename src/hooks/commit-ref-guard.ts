import { checkPaths, guardReport } from './git-guard';
import { git, gitOr, gitPaths } from './git-index';
import { ownerOfCommand } from './liveness';
import { envWithin } from './settings';
import type { Deadline } from '../store/deadline';

// The guard at the ref update (reference-transaction, state `prepared`), for commits that skipped the
// pre-commit hook (`git commit --no-verify`, a tool that runs no pre-commit): a new commit on the current
// branch that changes a file another owner holds is refused (exit 1: git aborts the update, the commit's
// content stays in the work tree and the index), with the guard's own message. Only a commit whose one
// parent is the branch's old tip and that no other ref already has is judged: an amend, a rebase, a
// reset or a fast-forward to an existing commit (merge, pull) is not a new commit of this committer.

export const ZERO = /^0+$/;

export interface RefUpdate {
  old: string;
  next: string;
  ref: string;
}

export function parseRefUpdates(text: string): RefUpdate[] {
  return text
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields): fields is [string, string, string] => fields.length === 3 && fields.every((field) => field !== ''))
    .map(([old, next, ref]) => ({ old, next, ref }));
}

// The stderr report and exit code for a ref update moving `branch`, or undefined when it may go ahead.
export async function refuseHeldCommit(updates: readonly RefUpdate[], branch: string, top: string, env: NodeJS.ProcessEnv, deadline: Deadline): Promise<{ stderr: string; exitCode: 1 } | undefined> {
  const mode = (env.IC_GUARD ?? '').toLowerCase();
  if (mode === 'off' || mode === '0' || mode === 'false' || mode === 'warn') return undefined; // warn: the pre-commit hook reported
  for (const { old, next, ref } of updates) {
    if (ref !== branch || ZERO.test(old) || ZERO.test(next) || !isNewChild(top, env, old, next, deadline)) continue;
    const owner = (await ownerOfCommand(top, envWithin(env, deadline, 1_000))) ?? '';
    const changed = () => gitPaths(['diff-tree', '-r', '-z', '--no-renames', '--name-only', old, next], top, env, deadline); // the commit's paths against its parent, both sides of a rename
    const { held } = await checkPaths(top, envWithin(env, deadline), owner, changed);
    if (held.length > 0) return { stderr: `${guardReport(held, 'block', owner)}\n`, exitCode: 1 };
  }
  return undefined;
}

// `next` has exactly one parent, `old`, and no ref has it yet (a fast-forward moves to a commit some other
// ref, a remote-tracking one included, already points into).
function isNewChild(top: string, env: NodeJS.ProcessEnv, old: string, next: string, deadline: Deadline): boolean {
  const parents = git(['rev-list', '--parents', '-n', '1', next], top, env, deadline).toString('utf8').trim().split(' ');
  if (parents.length !== 2 || parents[1] !== old) return false;
  return gitOr(['for-each-ref', '--count=1', '--format=%(refname)', '--contains', next], top, env, deadline, '') === '';
}
