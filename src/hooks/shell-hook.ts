import { resolve } from 'node:path';
import { ALLOW, decideEdit, decideFailure, type Decision } from './decision';
import { checkShellCommand } from './custody/pre-shell';
import { snapshotEveryWorkTree } from './custody/every-repo';
import type { ShellRequest } from './custody/types';
import { objectField, stringField, type Payload } from './payload';
import { commandText } from './shell-patch';
import { envWithin, hookSettings } from './settings';
import { isDeadlineExceeded, type Deadline } from '../store/deadline';
import { refreshBeforeGit } from './staging';
import type { HookResult } from './hook-types';
import type { HookCall, PayloadReader } from './agents/adapter';

// PreToolUse on an agent's shell tool (Claude's Bash; Codex's Bash / exec_command / shell / local_shell):
// the command's visible writes are checked and reserved before it runs (see checkShellCommand); allowed,
// the files other owners hold are snapshotted for the after-command restore.

// Claude Code's and Codex's shell tools alike; with a private staging area (install --git-index) the same
// process also refreshes that index before a git command, as claude-pre-bash does, so one process serves
// every Bash command. The command is tool_input.command (a string, or an argv array) or tool_input.cmd,
// run in tool_input.workdir when given (Codex).
export async function beforeShell({ adapter, parsed, env, cwd, deadline }: HookCall, client: PayloadReader): Promise<HookResult> {
  if (!parsed.ok) return adapter.beforeToolReply({ kind: 'allow', notice: `ic: shell command not checked: ${parsed.problem}` });
  const payload = parsed.value;
  const tool = stringField(payload, 'tool_name');
  if (tool === undefined || !client.shellTools.includes(tool)) return adapter.beforeToolReply(ALLOW);
  const owner = client.callOwner(payload, env);
  if (owner === undefined) return adapter.beforeToolReply({ kind: 'allow', notice: 'ic: shell command not checked: the hook input has no session_id, so ic cannot tell which session runs it' });
  const projectDir = client.dir(payload, env, cwd);
  const base = stringField(payload, 'cwd') ?? projectDir;
  const workdir = stringField(objectField(payload, 'tool_input'), 'workdir');
  // git first: a git that hangs runs out the deadline before the check below has stored anything. Any other
  // git failure waits for the check, so a command that writes a held file is still denied.
  let staging: string | undefined;
  let stagingFailure: unknown;
  try {
    staging = client.privateIndex ? refreshBeforeGit(payload, env, cwd, deadline, false) : undefined;
  } catch (error) {
    if (isDeadlineExceeded(error)) throw error;
    stagingFailure = error;
  }
  const decision = await decideShell(shellRequest(payload, owner, workdir ? resolve(base, workdir) : base, projectDir), env, deadline);
  const notice = [decision.notice, staging].filter(Boolean).join('\n');
  if (decision.kind === 'deny') return adapter.beforeToolReply(notice ? { ...decision, notice } : decision);
  if (stagingFailure !== undefined) throw stagingFailure;
  return adapter.beforeToolReply(notice ? { kind: 'allow', notice } : ALLOW);
}

async function decideShell(request: ShellRequest | undefined, env: NodeJS.ProcessEnv, deadline: Deadline): Promise<Decision> {
  if (request === undefined) return ALLOW; // no command text: nothing to read
  const bounded = envWithin(env, deadline);
  let decision: Decision;
  try {
    decision = decideEdit(await checkShellCommand(request, bounded));
  } catch (error) {
    return decideFailure(error, hookSettings(env).failClosed);
  }
  if (decision.kind === 'deny') return { ...decision, reason: decision.reason.replace('; the edit was not made.', '; the command was not run, because it writes there.') };
  await snapshotEveryWorkTree(request, bounded, deadline);
  return decision;
}

function shellRequest(payload: Payload, owner: string, cwd: string, projectDir: string): ShellRequest | undefined {
  const toolInput = objectField(payload, 'tool_input');
  const command = commandText(toolInput?.command ?? toolInput?.cmd, true);
  if (command === undefined || command.trim() === '') return undefined;
  const callId = stringField(payload, 'tool_use_id') ?? stringField(payload, 'call_id');
  const timeout = toolInput?.timeout ?? toolInput?.timeout_ms;
  return { owner, cwd, projectDir, command, ...(callId ? { callId } : {}), ...(typeof timeout === 'number' && timeout > 0 ? { timeoutMs: timeout } : {}) };
}
