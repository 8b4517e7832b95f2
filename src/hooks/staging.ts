import { existsSync } from 'node:fs';
import { validateOwner } from '../core/owner';
import { recordCommit } from '../coord/commits';
import { createContext, resolveProject } from '../coord/context';
import { indexDirOf, indexFileFor, readIndexBase } from '../coord/private-index';
import { advanceBase, carryIntoSharedIndex, deleteIndex, gitOr, gitPaths, headCommit, privateIndexOfHook, refreshIndex, seedIndex, type Refresh } from './git-index';
import { gitTopLevel } from './git-guard';
import { ownerForSession } from './identity';
import { noticeOutput } from './output';
import { stringField, type Payload } from './payload';
import { singleQuoted } from '../core/shell';
import { appendOnce } from './env-file';
import { runsGit } from './runs-git';
import { ownerOfCommand } from './liveness';
import { QUIET, type HookResult } from './hook-types';
import type { HookCall } from './agents/adapter';
import { isDeadlineExceeded, type Deadline } from '../store/deadline';
import { runGitText } from '../store/git/git-process';

// The hooks of private staging areas (README, "Private staging areas"): seed and export a session's index,
// refresh it lazily before git commands, record commits, delete it at session end.

// The work tree holding `dir`, found on disk like `git rev-parse --show-toplevel` but without a process.
function topOf(dir: string): string | undefined {
  try {
    const project = resolveProject(dir);
    return project.projectDb.source === 'git' ? project.projectRoot : undefined;
  } catch {
    return undefined;
  }
}

// SessionStart (installed with --git-index): build the session's index from HEAD and export it to the
// session's Bash commands through $CLAUDE_ENV_FILE.
export function runGitIndexStart({ parsed, env, cwd, deadline }: HookCall): HookResult {
  const sessionId = parsed.ok ? stringField(parsed.value, 'session_id') : undefined;
  if (!parsed.ok || sessionId === undefined) return { stdout: noticeOutput('ic: no private staging area: the hook input has no session_id'), stderr: '', exitCode: 0 };
  const dir = env.CLAUDE_PROJECT_DIR || stringField(parsed.value, 'cwd') || cwd;
  const owner = ownerForSession('claude', sessionId);
  const top = topOf(dir);
  const index = top === undefined ? undefined : indexFileFor(top, owner);
  if (top === undefined || index === undefined) return QUIET;
  seedIndex(top, index, owner, env, deadline);
  if (!env.CLAUDE_ENV_FILE) return { stdout: '', stderr: `ic: CLAUDE_ENV_FILE is not set; this session's git commands will use the shared index\n`, exitCode: 0 };
  appendOnce(env.CLAUDE_ENV_FILE, `export GIT_INDEX_FILE=${singleQuoted(index)}`);
  return QUIET;
}

// PreToolUse on Bash (installed with --git-index): the refresh below, said in a notice.
export function runPreBash({ parsed, env, cwd, deadline }: HookCall): HookResult {
  const notice = parsed.ok ? refreshBeforeGit(parsed.value, env, cwd, deadline, true) : undefined;
  return notice === undefined ? QUIET : { stdout: noticeOutput(notice), stderr: '', exitCode: 0 };
}

// Before a git command, rebuild the session's index on the current HEAD if another session committed
// meanwhile. Any other command returns at once, with no database and no git process. `seed`: a session
// without its index gets one (claude-pre-bash); claude-pre-shell only refreshes an index SessionStart made,
// so that one PreToolUse process on Bash also does claude-pre-bash's work. Most repositories have no
// private index at all: an absent directory answers without hashing a name (node:crypto alone costs a
// shell hook ~10 ms to load).
export function refreshBeforeGit(payload: Payload, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline, seed: boolean): string | undefined {
  const command = stringField(payload.tool_input, 'command');
  const sessionId = stringField(payload, 'session_id');
  if (command === undefined || sessionId === undefined || !runsGit(command)) return undefined;
  const top = topOf(stringField(payload, 'cwd') || env.CLAUDE_PROJECT_DIR || cwd);
  if (top === undefined || (!seed && !existsSync(indexDirOf(top) ?? ''))) return undefined;
  const owner = ownerForSession('claude', sessionId);
  const index = indexFileFor(top, owner);
  if (index === undefined) return undefined;
  if (!existsSync(index)) {
    if (seed) seedIndex(top, index, owner, env, deadline);
    return undefined;
  }
  const refresh = refreshIndex(top, index, env, deadline);
  return refresh.rebuilt ? refreshNotice(refresh) : undefined;
}

function refreshNotice(refresh: Refresh): string {
  const moved = `ic: HEAD moved (${refresh.base.slice(0, 8) || 'unborn'} → ${refresh.head.slice(0, 8)}); your staging area now holds the new HEAD plus your ${refresh.kept.length} staged change${refresh.kept.length === 1 ? '' : 's'}`;
  if (refresh.restage.length === 0) return moved;
  return `${moved}. The new HEAD changed these staged paths too, so they hold HEAD's version now; check and stage them again: ${refresh.restage.join(', ')}`;
}

// Inside the pre-commit guard: refresh a private index the commit is about to use. Returns a refusal when
// a staged path has to be staged again (committing without it would not be what the session staged).
export function refreshBeforeCommit(cwd: string, env: NodeJS.ProcessEnv, deadline: Deadline): string | undefined {
  if (!env.GIT_INDEX_FILE || !/[\\/]ic[\\/]index[\\/]/.test(env.GIT_INDEX_FILE)) return undefined; // not one of ours: no git process
  const top = gitTopLevel(cwd, env, deadline);
  const mine = privateIndexOfHook(top, env);
  // An index path of ours without its base: swept (idle 24 h) or deleted. Committing an empty or unknown
  // index could delete or revert anything, so stop.
  if (!mine)
    return `ic: commit refused: GIT_INDEX_FILE names a private staging area that no longer exists (${env.GIT_INDEX_FILE}); run \`export GIT_INDEX_FILE="$(ic coord hook git-index-path </dev/null)"\` (or start a new session), stage again, and commit.`;
  let refresh: Refresh;
  try {
    refresh = refreshIndex(top, mine.index, env, deadline, mine.file);
  } catch (error) {
    if (isDeadlineExceeded(error)) throw error; // out of time: the guard answers by IC_HOOK_FAIL
    return `ic: commit refused: your private staging area could not be brought onto HEAD (${(error as Error).message.split('\n')[0]}), and committing it stale could revert another agent's commit; look at \`git status\`, stage again, and commit.`;
  }
  if (refresh.restage.length === 0) return undefined;
  return `ic: commit refused: another session committed changes to ${refresh.restage.length === 1 ? 'a path' : 'paths'} you staged (HEAD ${refresh.base.slice(0, 8) || 'unborn'} → ${refresh.head.slice(0, 8)}):\n${refresh.restage.map((path) => `  ${path}`).join('\n')}\nYour staging area now holds the new HEAD's version of ${refresh.restage.length === 1 ? 'it' : 'them'}; look at the file${refresh.restage.length === 1 ? '' : 's'}, stage again (git add), and commit.`;
}

// git post-commit: record a `committed` event (sha, owner, paths) and move a private index's base to the
// new HEAD when it was built on the commit's parent (a partial commit from a stale index leaves it stale,
// so the next refresh still sees what else HEAD gained).
export async function runGitPostCommit(env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): Promise<HookResult> {
  const top = gitTopLevel(cwd, env, deadline);
  const head = headCommit(top, env, deadline);
  if (head === '') return QUIET;
  const mine = privateIndexOfHook(top, env);
  const warnings: string[] = [];
  if (mine) {
    const parent = runGitText(['rev-list', '--parents', '-n', '1', head], { cwd: top, env }, deadline).trim().split(' ')[1] ?? '';
    if (readIndexBase(mine.index)?.base === parent) advanceBase(mine.index, head);
    try {
      carryIntoSharedIndex(top, env, parent, head, deadline);
    } catch (error) {
      if (isDeadlineExceeded(error)) throw error;
      warnings.push(
        `ic: warning: the shared index was not brought up to this commit (${(error as Error).message.split('\n')[0]}); \`git status\` without a private index may show it as staged changes`,
      );
    }
  }
  const paths = gitPaths(['diff-tree', '--root', '--no-commit-id', '--name-only', '-r', '-z', '--no-renames', head], top, env, deadline);
  const subject = runGitText(['log', '-1', '--format=%s', head], { cwd: top, env }, deadline).trim();
  const branch = gitOr(['symbolic-ref', '-q', '--short', 'HEAD'], top, env, deadline, '') || null;
  const owner = await ownerOfCommand(top, env)
    .then((found) => validateOwner(found, 'IC_OWNER'))
    .catch(() => 'unknown');
  const ctx = await createContext({ cwd: top, env, write: true });
  try {
    await recordCommit(ctx, { sha: head, owner, paths, subject, branch });
  } finally {
    ctx.db.close();
  }
  return { stdout: '', stderr: warnings.map((line) => `${line}\n`).join(''), exitCode: 0 };
}

// `coord hook git-index-path`, for agents other than Claude: seeds $IC_OWNER's index in this work tree and
// prints its path (`export GIT_INDEX_FILE="$(ic coord hook git-index-path)"`).
export async function runGitIndexPath(env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): Promise<HookResult> {
  const owner = validateOwner(await ownerOfCommand(cwd, env), 'IC_OWNER');
  const top = gitTopLevel(cwd, env, deadline);
  const index = indexFileFor(top, owner);
  if (index === undefined) return { stdout: '', stderr: 'ic: not in a git repository\n', exitCode: 1 };
  if (!existsSync(index)) seedIndex(top, index, owner, env, deadline);
  else refreshIndex(top, index, env, deadline);
  return { stdout: `${index}\n`, stderr: '', exitCode: 0 };
}

// SessionEnd: the session's index goes with it.
export function deleteSessionIndex(dir: string, owner: string): boolean {
  const top = topOf(dir);
  const index = top === undefined ? undefined : indexFileFor(top, owner);
  return index === undefined ? false : deleteIndex(index);
}
