import { endTurnOutput } from './custody/open-commands';
import { QUIET, type HookResult } from './hook-types';
import { noticeOutput } from './output';
import { stringField } from './payload';
import { releaseFailedCalls } from './refused';
import { appendOnce } from './env-file';
import { handBackToSession, releaseSession } from './session';
import { singleQuoted } from '../core/shell';
import { ownerForSession, sessionOf } from './identity';
import { envWithin } from './settings';
import { deleteSessionIndex } from './staging';
import type { HookCall, PayloadReader } from './agents/adapter';

// The session use cases of Claude Code and Codex: a session starts, a turn starts and ends, a subagent
// stops, the session ends. Each client's PayloadReader says how its payload names the session's owner and directory.
// SessionStart: export the session's owner to its Bash commands through $CLAUDE_ENV_FILE, once, so they
// (git commit, coord lock) act as the same owner as its edits.
export function sessionStart({ parsed, env }: HookCall): HookResult {
  if (!parsed.ok) return { stdout: noticeOutput(`ic: session not registered: ${parsed.problem}`), stderr: '', exitCode: 0 };
  const sessionId = stringField(parsed.value, 'session_id');
  if (sessionId === undefined) return { stdout: noticeOutput('ic: session not registered: the hook input has no session_id'), stderr: '', exitCode: 0 };
  const owner = ownerForSession('claude', sessionId);
  const envFile = env.CLAUDE_ENV_FILE;
  if (!envFile) return { stdout: '', stderr: `ic: CLAUDE_ENV_FILE is not set; Bash commands of this session will not carry IC_OWNER=${owner}\n`, exitCode: 0 };
  appendOnce(envFile, `export IC_OWNER=${singleQuoted(owner)}`);
  // One line of context so the agent knows what a denied edit means and who it is to others.
  const additionalContext = `ic coordination is on: this session is owner ${owner}. Each edit reserves its file; a denied edit means another agent holds that file, so work on something else or ask it (\`coord who\`).`;
  return { stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext } })}\n`, stderr: '', exitCode: 0 };
}

// SessionEnd: release the session's locks and claims, and its subagents', quickly (both clients give
// these hooks little time; Codex at most 3 s).
export async function sessionEnd({ parsed, env, cwd, deadline }: HookCall, session: PayloadReader): Promise<HookResult> {
  if (!parsed.ok) return { stdout: '', stderr: `ic: nothing released: ${parsed.problem}\n`, exitCode: 0 };
  const owner = session.owner(parsed.value, env);
  if (owner === undefined) return { stdout: '', stderr: 'ic: nothing released: the hook input has no session_id\n', exitCode: 0 };
  const dir = session.dir(parsed.value, env, cwd);
  const released = await releaseSession(dir, owner, envWithin(env, deadline, 1_000));
  if (session.privateIndex) deleteSessionIndex(dir, owner);
  return { stdout: '', stderr: released > 0 ? `ic: released ${released} lock${released === 1 ? '' : 's'} of ${owner}\n` : '', exitCode: 0 };
}

// SubagentStop: what the subagent still holds passes to its session (see handBackToSession).
export async function subagentStop({ parsed, env, cwd, deadline }: HookCall, session: PayloadReader): Promise<HookResult> {
  if (!parsed.ok) return QUIET;
  const sessionId = stringField(parsed.value, 'session_id');
  const agentId = stringField(parsed.value, 'agent_id');
  if (sessionId === undefined || agentId === undefined) return QUIET;
  const subagent = ownerForSession('claude', sessionId, agentId);
  const dir = session.dir(parsed.value, env, cwd);
  const transcript = stringField(parsed.value, 'agent_transcript_path');
  if (transcript) await releaseFailedCalls(dir, subagent, transcript, envWithin(env, deadline, 1_000));
  await handBackToSession(dir, subagent, sessionOf(subagent), envWithin(env, deadline, 1_000));
  return QUIET;
}

// Stop (the end of each turn): a call the person refused permission for, or that failed, fired no event
// of its own in every mode; its lock goes now (see releaseFailedCalls).
export async function turnEnd({ parsed, env, cwd, deadline }: HookCall, session: PayloadReader): Promise<HookResult> {
  if (!parsed.ok) return QUIET;
  const owner = session.owner(parsed.value, env);
  const transcript = stringField(parsed.value, 'transcript_path');
  if (owner === undefined || transcript === undefined) return QUIET;
  const dir = session.dir(parsed.value, env, cwd);
  await releaseFailedCalls(dir, owner, transcript, envWithin(env, deadline, 1_000));
  return { ...QUIET, stdout: await endTurnOutput(dir, owner, envWithin(env, deadline, 1_000), deadline, false) };
}

// UserPromptSubmit (and Codex's Stop): the turn is over, and so is whatever shell command of it never got its
// after hook (src/hooks/custody/open-commands.ts). Claude's such command was denied or interrupted at the
// prompt: it only ends. Codex's may also be one past its yield that the model never polled (`mayStillRun`):
// it ends as its after hook would end it, and what it wrote to held files is put back.
export async function turnCommandsEnd({ parsed, env, cwd, deadline }: HookCall, session: PayloadReader, mayStillRun: boolean): Promise<HookResult> {
  const owner = parsed.ok ? session.owner(parsed.value, env) : undefined;
  if (!parsed.ok || owner === undefined) return QUIET;
  return { ...QUIET, stdout: await endTurnOutput(session.dir(parsed.value, env, cwd), owner, envWithin(env, deadline, 1_000), deadline, mayStillRun) };
}
