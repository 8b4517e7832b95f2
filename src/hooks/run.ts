import { endTurnCommands } from './custody/open-commands';
import { lateNotices, withLateNotices } from './custody/late-step';
import { isPostgresUrl } from '../store/postgres/url';
import { isAbsolute, resolve } from 'node:path';
import { isIcError } from '../core/errors';
import { ALLOW, decideEdit, decideFailure, type Decision } from './decision';
import { reserveEdit, type EditRequest } from './edit';
import { claudeEditEvent, codexEditEvent, codexOwner, type EditEvent } from './edit-events';
import { checkStaged, guardReport } from './git-guard';
import { clearLiveOwners, ownerForSession, sessionOf } from './identity';
import { observeSession, ownerOfCommand, withContext } from './liveness';
import { noticeOutput, preToolUseOutput } from './output';
import { parsePayload, stringField, type Payload } from './payload';
import { releaseFailedCalls, releaseRefusedEdit } from './refused';
import { exportOwner, handBackToSession, releaseSession } from './session';
import { envWithin, hookSettings } from './settings';
import { startDeadline, type Deadline } from './deadline';
import { deleteSessionIndex, refreshBeforeCommit, runGitIndexPath, runGitIndexStart, runGitPostCommit, runPreBash } from './staging';
import { runCommitGate } from './commit-gate';
import { runClaudePreShell, runCodexPreShell } from './shell-hook';
import { runClaudePostTool, runCodexPostTool } from './custody/post-tool';
import { agentHookOf, isAgentHookName } from './agents';
import { agentHookFailed, runAgentHook, type AgentPhase } from './agents/run-agent';
import { copilotViaClaudeAdapter } from './agents/copilot-claude';
import { routeOfHook } from './hook-route';
import { runReferenceTransaction } from './revert-guard';
import type { HookInput, HookResult } from './hook-types';

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
// of the call (src/hooks/deadline.ts), and every blocking step below gets what is left of it.
export function runHook(name: HookName, input: HookInput, hookEnv: NodeJS.ProcessEnv, cwd: string = process.cwd(), deadline: Deadline = startDeadline(hookSettings(hookEnv).timeoutMs)): HookResult {
  const env = withAbsoluteDb(hookEnv, cwd);
  if (input.timedOut) return failedHook(name, deadline.exceeded("reading the hook's input (stdin still open)"), env);
  // A hook file another client runs (Copilot running Claude's) acts as that client's session, or steps aside.
  const route = routeOfHook(name, input.text, Boolean(input.truncated), env, cwd);
  if (route.kind === 'step-aside') return { stdout: '', stderr: '', exitCode: 0 };
  const sessionHook = route.kind === 'as-copilot' ? route.livenessName : name;
  // Every agent hook first proves its session alive (src/hooks/liveness.ts): renewals, the live owner,
  // dead clients' locks, and hand-off requests for the model.
  let step = observeSession(sessionHook, input, env, cwd, deadline);
  try {
    const late = route.kind === 'as-copilot' ? undefined : lateNotices(name, input, env, cwd, step, deadline); // before the hook's own work takes the file as it is
    const result = route.kind === 'as-copilot' ? runAsCopilot(route.phase, input, env, cwd, deadline) : dispatchHook(name, input, env, cwd, deadline);
    if (step?.owner === '') step = observeSession(sessionHook, input, env, cwd, deadline); // the hook created the database: register now
    step = withLateNotices(step, late);
    return step?.context ? { ...result, stdout: withContext(result.stdout, step) } : result;
  } finally {
    clearLiveOwners();
  }
}

function dispatchHook(name: HookName, input: HookInput, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): HookResult {
  if (isAgentHookName(name)) {
    const { adapter, phase } = agentHookOf(name); // Gemini CLI, Copilot CLI, OpenCode: src/hooks/agents
    return runAgentHook(adapter, phase, input.text, Boolean(input.truncated), env, cwd, deadline);
  }
  try {
    switch (name) {
      case 'claude-pre-edit':
        return runPreEdit(input, env, cwd, claudeEditEvent, deadline);
      case 'codex-pre-edit':
        return runPreEdit(input, env, cwd, (payload) => codexEditEvent(payload, env), deadline);
      case 'claude-edit-refused':
        return runEditRefused(input, env, cwd, deadline);
      case 'claude-session-start':
        return runSessionStart(input, env);
      case 'claude-turn-end':
        return runTurnEnd(input, env, cwd, deadline);
      case 'claude-subagent-stop':
        return runSubagentStop(input, env, cwd, deadline);
      case 'claude-session-end':
        return runSessionEnd(input, env, cwd, 'claude', deadline);
      case 'claude-prompt':
        return runPromptSubmit(input, env, cwd, deadline); // the liveness step in runHook, and the turn's commands end
      case 'codex-session-end':
        return runSessionEnd(input, env, cwd, 'codex', deadline);
      case 'git-pre-commit':
        return runGitPreCommit(env, cwd, deadline);
      case 'claude-git-index':
        return runGitIndexStart(input, env, cwd, deadline);
      case 'claude-pre-bash':
        return runPreBash(input, env, cwd, deadline);
      case 'git-post-commit':
        return runGitPostCommit(env, cwd, deadline);
      case 'git-commit-msg':
        return runCommitGate(input, env, cwd, deadline);
      case 'git-index-path':
        return runGitIndexPath(env, cwd, deadline);
      case 'claude-pre-shell':
        return runClaudePreShell(input, env, cwd, deadline);
      case 'codex-pre-shell':
        return runCodexPreShell(input, env, cwd, deadline);
      case 'claude-post-tool':
        return { ...runClaudePostTool(input.text, input.truncated, env, cwd, deadline), exitCode: 0 };
      case 'codex-post-tool':
        return { ...runCodexPostTool(input.text, input.truncated, env, cwd, deadline), exitCode: 0 };
      case 'git-reference-transaction':
        return runReferenceTransaction(input, env, cwd, deadline);
      case 'git-post-checkout': {
        // The installer is not in the small hook bundle: the full CLI registers it (src/cli/entry.ts).
        if (!worktreeInstaller) return { stdout: '', stderr: '', exitCode: 0 };
        const installed = worktreeInstaller(cwd, env);
        return { stdout: '', stderr: installed.length > 0 ? `ic: agent hooks installed in this work tree: ${installed.join(', ')}\n` : '', exitCode: 0 };
      }
    }
  } catch (error) {
    // Last line of defence: a bug must never become a crash, a stack trace on stdout, or exit 2.
    return failedHook(name, error, env);
  }
}

// A Claude hook that Copilot CLI runs, with no Copilot hooks of ic installed: Copilot's work, as Copilot.
function runAsCopilot(phase: AgentPhase | undefined, input: HookInput, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): HookResult {
  if (phase === undefined) return { stdout: '', stderr: '', exitCode: 0 };
  return runAgentHook(copilotViaClaudeAdapter, phase, input.text, Boolean(input.truncated), env, cwd, deadline);
}

// What each kind of hook answers when ic could not do its work (a bug, an unusable database, the deadline):
// IC_HOOK_FAIL decides between going ahead with a notice and refusing.
function failedHook(name: HookName, error: unknown, env: NodeJS.ProcessEnv): HookResult {
  const failClosed = hookSettings(env).failClosed;
  if (isAgentHookName(name)) {
    const { adapter, phase } = agentHookOf(name);
    return agentHookFailed(adapter, phase, error, failClosed);
  }
  if (name === 'git-pre-commit' || name === 'git-commit-msg')
    return {
      stdout: '',
      stderr: `ic: the commit ${name === 'git-pre-commit' ? 'guard' : 'gate'} failed: ${describe(error)}${failClosed ? '' : '; committing anyway'}\n`,
      exitCode: failClosed ? 1 : 0,
    };
  if (name === 'git-reference-transaction')
    return { stdout: '', stderr: `ic: the ref update check failed: ${describe(error)}${failClosed ? '' : '; the ref moves anyway'}\n`, exitCode: failClosed ? 1 : 0 };
  if (name === 'git-post-checkout') return { stdout: '', stderr: `ic: agent hooks were not installed in this work tree: ${describe(error)}\n`, exitCode: 0 };
  if (name === 'git-post-commit' || name === 'git-index-path') return { stdout: '', stderr: `ic: ${name} failed: ${describe(error)}\n`, exitCode: name === 'git-index-path' ? 1 : 0 };
  if (name === 'claude-pre-edit' || name === 'codex-pre-edit' || name === 'claude-pre-shell' || name === 'codex-pre-shell')
    return { stdout: preToolUseOutput(decideFailure(error, failClosed)), stderr: '', exitCode: 0 };
  return { stdout: noticeOutput(`ic: ${name} hook failed: ${describe(error)}`), stderr: '', exitCode: 0 };
}

function describe(error: unknown): string {
  if (isIcError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

function runPreEdit(input: HookInput, env: NodeJS.ProcessEnv, cwd: string, toEvent: (payload: Payload) => EditEvent, deadline: Deadline): HookResult {
  const parsed = parsePayload(input.text, input.truncated);
  if (!parsed.ok) return reply({ kind: 'allow', notice: `ic: edit not checked: ${parsed.problem}` });
  const event = toEvent(parsed.value);
  if (event.kind === 'ignore') return reply(ALLOW);
  if (event.kind === 'malformed') return reply({ kind: 'allow', notice: `ic: edit not checked: ${event.problem}` });
  const settings = hookSettings(env);
  try {
    const outcome = reserveEdit(editRequest(event, env, cwd), envWithin(env, deadline));
    return reply(withSettingsProblem(decideEdit(outcome), settings.problem));
  } catch (error) {
    return reply(withSettingsProblem(decideFailure(error, settings.failClosed), settings.problem));
  }
}

// Relative paths are read from the payload's cwd, else $CLAUDE_PROJECT_DIR, else the hook's own cwd; the
// project of each file is then found from the file itself (see reserveEdit).
function editRequest(event: Extract<EditEvent, { kind: 'edit' }>, env: NodeJS.ProcessEnv, cwd: string): EditRequest {
  const projectDir = env.CLAUDE_PROJECT_DIR || event.cwd || cwd;
  return { owner: event.owner, cwd: event.cwd ?? projectDir, projectDir, paths: event.paths, ...(event.toolUseId ? { toolUseId: event.toolUseId } : {}) };
}

// PostToolUseFailure / PermissionDenied of an edit tool: the call did not happen, so the lock it created goes.
function runEditRefused(input: HookInput, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): HookResult {
  const parsed = parsePayload(input.text, input.truncated);
  if (!parsed.ok) return { stdout: '', stderr: `ic: nothing released: ${parsed.problem}\n`, exitCode: 0 };
  const event = claudeEditEvent(parsed.value);
  if (event.kind !== 'edit' || event.toolUseId === undefined) return { stdout: '', stderr: '', exitCode: 0 };
  const released = releaseRefusedEdit({ ...editRequest(event, env, cwd), toolUseId: event.toolUseId }, envWithin(env, deadline, 1_000));
  return { stdout: '', stderr: released > 0 ? `ic: released ${released} lock${released === 1 ? '' : 's'} the refused edit had taken\n` : '', exitCode: 0 };
}

// A misread IC_HOOK_TIMEOUT is said under its own name, beside whatever else the hook has to say.
function withSettingsProblem(decision: Decision, problem: string | undefined): Decision {
  if (problem === undefined) return decision;
  return { ...decision, notice: decision.notice ? `${decision.notice}; ic: ${problem}` : `ic: ${problem}` };
}

function reply(decision: Decision): HookResult {
  return { stdout: preToolUseOutput(decision), stderr: '', exitCode: 0 };
}

// SessionStart: export the session's owner to its Bash commands through $CLAUDE_ENV_FILE, once.
function runSessionStart(input: HookInput, env: NodeJS.ProcessEnv): HookResult {
  const parsed = parsePayload(input.text, input.truncated);
  if (!parsed.ok) return { stdout: noticeOutput(`ic: session not registered: ${parsed.problem}`), stderr: '', exitCode: 0 };
  const sessionId = stringField(parsed.value, 'session_id');
  if (sessionId === undefined) return { stdout: noticeOutput('ic: session not registered: the hook input has no session_id'), stderr: '', exitCode: 0 };
  const owner = ownerForSession('claude', sessionId);
  const envFile = env.CLAUDE_ENV_FILE;
  if (!envFile) return { stdout: '', stderr: `ic: CLAUDE_ENV_FILE is not set; Bash commands of this session will not carry IC_OWNER=${owner}\n`, exitCode: 0 };
  exportOwner(envFile, owner);
  return { stdout: sessionContext(owner), stderr: '', exitCode: 0 };
}

// One line of context so the agent knows what a denied edit means and who it is to others.
function sessionContext(owner: string): string {
  const additionalContext = `ic coordination is on: this session is owner ${owner}. Each edit reserves its file; a denied edit means another agent holds that file, so work on something else or ask it (\`coord who\`).`;
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext } })}\n`;
}

// SessionEnd (Claude Code or Codex): release the session's locks and claims, and its subagents', quickly
// (both clients give these hooks little time; Codex at most 3 s).
function runSessionEnd(input: HookInput, env: NodeJS.ProcessEnv, cwd: string, agent: 'claude' | 'codex', deadline: Deadline): HookResult {
  const parsed = parsePayload(input.text, input.truncated);
  if (!parsed.ok) return { stdout: '', stderr: `ic: nothing released: ${parsed.problem}\n`, exitCode: 0 };
  const sessionId = stringField(parsed.value, 'session_id');
  const owner = agent === 'codex' ? codexOwner(parsed.value, env) : sessionId === undefined ? undefined : ownerForSession('claude', sessionId);
  if (owner === undefined) return { stdout: '', stderr: 'ic: nothing released: the hook input has no session_id\n', exitCode: 0 };
  const dir = agent === 'claude' ? env.CLAUDE_PROJECT_DIR || stringField(parsed.value, 'cwd') || cwd : (stringField(parsed.value, 'cwd') ?? cwd);
  const released = releaseSession(dir, owner, envWithin(env, deadline, 1_000));
  if (agent === 'claude') deleteSessionIndex(dir, owner);
  return { stdout: '', stderr: released > 0 ? `ic: released ${released} lock${released === 1 ? '' : 's'} of ${owner}\n` : '', exitCode: 0 };
}

// SubagentStop: what the subagent still holds passes to its session (see handBackToSession).
function runSubagentStop(input: HookInput, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): HookResult {
  const parsed = parsePayload(input.text, input.truncated);
  if (!parsed.ok) return { stdout: '', stderr: '', exitCode: 0 };
  const sessionId = stringField(parsed.value, 'session_id');
  const agentId = stringField(parsed.value, 'agent_id');
  if (sessionId === undefined || agentId === undefined) return { stdout: '', stderr: '', exitCode: 0 };
  const subagent = ownerForSession('claude', sessionId, agentId);
  const dir = env.CLAUDE_PROJECT_DIR || stringField(parsed.value, 'cwd') || cwd;
  const transcript = stringField(parsed.value, 'agent_transcript_path');
  if (transcript) releaseFailedCalls(dir, [subagent], transcript, envWithin(env, deadline, 1_000));
  handBackToSession(dir, subagent, sessionOf(subagent), envWithin(env, deadline, 1_000));
  return { stdout: '', stderr: '', exitCode: 0 };
}

// Stop (the end of each turn): a call the person refused permission for, or that failed, fired no event
// of its own in every mode; its lock goes now (see releaseFailedCalls).
function runTurnEnd(input: HookInput, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): HookResult {
  const parsed = parsePayload(input.text, input.truncated);
  if (!parsed.ok) return { stdout: '', stderr: '', exitCode: 0 };
  const sessionId = stringField(parsed.value, 'session_id');
  const transcript = stringField(parsed.value, 'transcript_path');
  if (sessionId === undefined || transcript === undefined) return { stdout: '', stderr: '', exitCode: 0 };
  const dir = env.CLAUDE_PROJECT_DIR || stringField(parsed.value, 'cwd') || cwd;
  releaseFailedCalls(dir, [ownerForSession('claude', sessionId)], transcript, envWithin(env, deadline, 1_000));
  endTurnCommandsQuietly(dir, ownerForSession('claude', sessionId), env, deadline);
  return { stdout: '', stderr: '', exitCode: 0 };
}

// UserPromptSubmit: a new turn; whatever shell command of the last one never got its after hook is over.
function runPromptSubmit(input: HookInput, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): HookResult {
  const parsed = parsePayload(input.text, input.truncated);
  const sessionId = parsed.ok ? stringField(parsed.value, 'session_id') : undefined;
  if (parsed.ok && sessionId !== undefined) endTurnCommandsQuietly(env.CLAUDE_PROJECT_DIR || stringField(parsed.value, 'cwd') || cwd, ownerForSession('claude', sessionId), env, deadline);
  return { stdout: '', stderr: '', exitCode: 0 };
}

// A shell command denied or interrupted at the prompt stops counting as running at its turn's end
// (src/hooks/custody/open-commands.ts); a failure here only leaves it to the day-long purge.
function endTurnCommandsQuietly(dir: string, owner: string, env: NodeJS.ProcessEnv, deadline: Deadline): void {
  try {
    endTurnCommands(dir, owner, envWithin(env, deadline, 1_000));
  } catch {
    // the turn ends all the same
  }
}

// git pre-commit: refuse (exit 1) when another owner holds a staged path; IC_GUARD=warn reports, =off skips.
function runGitPreCommit(env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): HookResult {
  const mode = (env.IC_GUARD ?? '').toLowerCase();
  if (mode === 'off' || mode === '0' || mode === 'false') return { stdout: '', stderr: '', exitCode: 0 };
  const owner = ownerOfCommand(cwd, envWithin(env, deadline, 1_000)) ?? '';
  const settings = hookSettings(env);
  // A private index goes onto the current HEAD first (lazily, here and before git commands), so the
  // commit cannot revert what another session committed; a path both changed stops the commit.
  const restage = refreshBeforeCommit(cwd, env, deadline);
  if (restage !== undefined) return { stdout: '', stderr: `${restage}\n`, exitCode: 1 };
  let result;
  try {
    result = checkStaged(cwd, envWithin(env, deadline), owner, deadline);
  } catch (error) {
    if (settings.failClosed) return { stdout: '', stderr: `ic: commit refused: the guard could not check it (${describe(error)}); IC_HOOK_FAIL=closed\n`, exitCode: 1 };
    return { stdout: '', stderr: `ic: warning: the commit guard could not check this commit (${describe(error)}); committing anyway\n`, exitCode: 0 };
  }
  if (result.held.length === 0) return { stdout: '', stderr: '', exitCode: 0 };
  const warn = mode === 'warn';
  return { stdout: '', stderr: `${guardReport(result.held, warn ? 'warn' : 'block', owner)}\n`, exitCode: warn ? 0 : 1 };
}

// A relative IC_DB means the same file for every hook, whichever directory a hook opens its project from
// (an edited file's, a work tree's): it is read from the hook's working directory, as the CLI reads it.
function withAbsoluteDb(env: NodeJS.ProcessEnv, cwd: string): NodeJS.ProcessEnv {
  const db = env.IC_DB;
  return db && !isAbsolute(db) && !isPostgresUrl(db) ? { ...env, IC_DB: resolve(cwd, db) } : env; // a server's URL is no path
}
