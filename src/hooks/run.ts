import { isPostgresUrl } from '../store/postgres/url';
import { isAbsolute, resolve } from 'node:path';
import { describeError as describe } from './decision';
import { lateNotices, withLateNotices } from './custody/late-step';
import { checkStaged, guardReport } from './git-guard';
import { clearLiveOwners } from './identity';
import { observeSession, ownerOfCommand, withContext, type SessionStep } from './liveness';
import { envWithin, hookSettings } from './settings';
import { startDeadline, type Deadline } from '../store/deadline';
import { refreshBeforeCommit, runGitIndexPath, runGitPostCommit } from './staging';
import { runCommitGate } from './commit-gate';
import { adapterOfHook } from './agents';
import { copilotViaClaudeAdapter } from './agents/copilot-claude';
import type { ToolEvent } from './agents/tool-events';
import { routeOfHook } from './hook-route';
import { parsePayload, type ParsedPayload } from './payload';
import { runReferenceTransaction } from './revert-guard';
import { QUIET, type HookInput, type HookResult } from './hook-types';

export { HOOK_NAMES, type HookName } from './names';
import { HOOK_NAMES, type HookName } from './names';

// git-post-checkout's work (src/hooks/install/worktree.ts), registered by the full CLI; the hook bundle
// hands that hook to the full CLI (src/cli/hook-main.ts), so the installer stays out of the edit path.
let worktreeInstaller: ((cwd: string, env: NodeJS.ProcessEnv) => string[]) | undefined;
export const HOOKS_OF_THE_FULL_CLI: readonly string[] = ['git-post-checkout'];

export function registerWorktreeInstaller(install: (cwd: string, env: NodeJS.ProcessEnv) => string[]): void {
  worktreeInstaller = install;
}

// git runs its hooks with no payload (and stdin may be a terminal): only agent hooks read stdin.
export function readsStdin(name: HookName): boolean {
  return !name.startsWith('git-') || name === 'git-commit-msg' || name === 'git-reference-transaction'; // the message / the ref updates, piped in by their scripts
}

export function isHookName(name: string): name is HookName {
  return (HOOK_NAMES as readonly string[]).includes(name);
}

// One hook invocation, without commander and without touching process state: the CLI (or a fast path in
// the entry point) reads stdin, calls this, and writes the result. The deadline is made once, at the start
// of the call (src/store/deadline.ts), and every blocking step below gets what is left of it.
export async function runHook(
  name: HookName,
  input: HookInput,
  hookEnv: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
  deadline: Deadline = startDeadline(hookSettings(hookEnv).timeoutMs),
): Promise<HookResult> {
  const env = withAbsoluteDb(hookEnv, cwd);
  if (input.timedOut) return failedHook(name, deadline.exceeded("reading the hook's input (stdin still open)"), env);
  const parsed = parsePayload(input.text, input.truncated); // an agent hook's payload, read once for every step below
  // A hook file another client runs (Copilot running Claude's) acts as that client's session, or steps aside.
  const route = routeOfHook(name, parsed, env, cwd);
  if (route.kind === 'step-aside') return QUIET;
  const sessionHook = route.kind === 'as-copilot' ? route.livenessName : name;
  // Every agent hook first proves its session alive (src/hooks/liveness.ts): renewals, the live owner,
  // dead clients' locks, and hand-off requests for the model.
  let step = await observeSession(sessionHook, parsed, env, cwd, deadline);
  try {
    const late = route.kind === 'as-copilot' ? undefined : await lateNotices(name, parsed, env, step, deadline); // before the hook's own work takes the file as it is
    const result = route.kind === 'as-copilot' ? await runAsCopilot(route.phase, parsed, env, cwd, deadline) : await dispatchHook(name, input, parsed, env, cwd, deadline, step);
    if (step?.owner === '') step = await observeSession(sessionHook, parsed, env, cwd, deadline); // the hook created the database: register now
    step = withLateNotices(step, late);
    return step?.context ? { ...result, stdout: withContext(result.stdout, step) } : result;
  } finally {
    clearLiveOwners();
  }
}

// The client's adapter runs the event's use case (src/hooks/agents); git's hooks have theirs below.
async function dispatchHook(name: HookName, input: HookInput, parsed: ParsedPayload, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline, step?: SessionStep): Promise<HookResult> {
  const agentHook = adapterOfHook(name);
  try {
    if (agentHook) return await agentHook.adapter.events[agentHook.event]!({ ...agentHook, parsed, env, cwd, deadline, workspace: step?.workspace });
    return await GIT_HOOKS[name as GitHookName](input, env, cwd, deadline);
  } catch (error) {
    // Last line of defence: a bug must never become a crash, a stack trace on stdout, or exit 2.
    return failedHook(name, error, env);
  }
}

type GitHookName = Extract<HookName, `git-${string}`>;

const GIT_HOOKS: Record<GitHookName, (input: HookInput, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline) => HookResult | Promise<HookResult>> = {
  'git-pre-commit': (_input, env, cwd, deadline) => runGitPreCommit(env, cwd, deadline),
  'git-commit-msg': runCommitGate,
  'git-post-commit': (_input, env, cwd, deadline) => runGitPostCommit(env, cwd, deadline),
  'git-index-path': (_input, env, cwd, deadline) => runGitIndexPath(env, cwd, deadline),
  'git-reference-transaction': runReferenceTransaction,
  // The installer is not in the small hook bundle: the full CLI registers it (src/cli/entry.ts).
  'git-post-checkout': (_input, env, cwd) => {
    const installed = worktreeInstaller?.(cwd, env) ?? [];
    return { stdout: '', stderr: installed.length > 0 ? `ic: agent hooks installed in this work tree: ${installed.join(', ')}\n` : '', exitCode: 0 };
  },
};

// A Claude hook that Copilot CLI runs, with no Copilot hooks of ic installed: Copilot's work, as Copilot.
async function runAsCopilot(event: ToolEvent | undefined, parsed: ParsedPayload, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): Promise<HookResult> {
  if (event === undefined) return QUIET;
  return copilotViaClaudeAdapter.events[event]!({ adapter: copilotViaClaudeAdapter, event, parsed, env, cwd, deadline });
}

// The git hooks that can stop what git does: what each checks, and what goes ahead when it fails open.
const BLOCKING_GIT_HOOKS: Partial<Record<HookName, [string, string]>> = {
  'git-pre-commit': ['the commit guard', 'committing anyway'],
  'git-commit-msg': ['the commit gate', 'committing anyway'],
  'git-reference-transaction': ['the ref update check', 'the ref moves anyway'],
};

// What each kind of hook answers when ic could not do its work (a bug, an unusable database, the deadline):
// IC_HOOK_FAIL decides between going ahead with a notice and refusing.
function failedHook(name: HookName, error: unknown, env: NodeJS.ProcessEnv): HookResult {
  const failClosed = hookSettings(env).failClosed;
  const agentHook = adapterOfHook(name);
  if (agentHook) return agentHook.adapter.failed(agentHook.event, error, failClosed);
  const blocking = BLOCKING_GIT_HOOKS[name];
  if (blocking) return { stdout: '', stderr: `ic: ${blocking[0]} failed: ${describe(error)}${failClosed ? '' : `; ${blocking[1]}`}\n`, exitCode: failClosed ? 1 : 0 };
  if (name === 'git-post-checkout') return { stdout: '', stderr: `ic: agent hooks were not installed in this work tree: ${describe(error)}\n`, exitCode: 0 };
  return { stdout: '', stderr: `ic: ${name} failed: ${describe(error)}\n`, exitCode: name === 'git-index-path' ? 1 : 0 };
}

// git pre-commit: refuse (exit 1) when another owner holds a staged path; IC_GUARD=warn reports, =off skips.
async function runGitPreCommit(env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): Promise<HookResult> {
  const mode = (env.IC_GUARD ?? '').toLowerCase();
  if (mode === 'off' || mode === '0' || mode === 'false') return QUIET;
  const owner = (await ownerOfCommand(cwd, envWithin(env, deadline, 1_000))) ?? '';
  // A private index goes onto the current HEAD first (lazily, here and before git commands), so the
  // commit cannot revert what another session committed; a path both changed stops the commit.
  const restage = refreshBeforeCommit(cwd, env, deadline);
  if (restage !== undefined) return { stdout: '', stderr: `${restage}\n`, exitCode: 1 };
  let result;
  try {
    result = await checkStaged(cwd, envWithin(env, deadline), owner, deadline);
  } catch (error) {
    if (hookSettings(env).failClosed) return { stdout: '', stderr: `ic: commit refused: the guard could not check it (${describe(error)}); IC_HOOK_FAIL=closed\n`, exitCode: 1 };
    return { stdout: '', stderr: `ic: warning: the commit guard could not check this commit (${describe(error)}); committing anyway\n`, exitCode: 0 };
  }
  if (result.held.length === 0) return QUIET;
  const warn = mode === 'warn';
  return { stdout: '', stderr: `${guardReport(result.held, warn ? 'warn' : 'block', owner)}\n`, exitCode: warn ? 0 : 1 };
}

// A relative IC_DB means the same file for every hook, whichever directory a hook opens its project from
// (an edited file's, a work tree's): it is read from the hook's working directory, as the CLI reads it.
function withAbsoluteDb(env: NodeJS.ProcessEnv, cwd: string): NodeJS.ProcessEnv {
  const db = env.IC_DB;
  return db && !isAbsolute(db) && !isPostgresUrl(db) ? { ...env, IC_DB: resolve(cwd, db) } : env; // a server's URL is no path
}
