import { liveOwner, ownerForSession } from './identity';
import { isPatch, pathsFromPatch } from './patch';
import { objectField, stringField, type Payload } from './payload';
import { commandText, shellPatchPaths } from './shell-patch';

// What a pre-edit payload means to ic: an edit of some paths by one owner, nothing to do, or unusable input.
export type EditEvent = { kind: 'edit'; owner: string; cwd: string | undefined; paths: string[]; toolUseId?: string } | { kind: 'ignore' } | { kind: 'malformed'; problem: string };

export const CLAUDE_EDIT_TOOLS: readonly string[] = ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'];
export const CODEX_SHELL_TOOLS: readonly string[] = ['Bash', 'exec_command', 'shell', 'local_shell'];

// Claude Code PreToolUse (code.claude.com/docs/en/hooks): session_id, cwd, tool_name, tool_input.file_path
// (absolute; notebook_path for NotebookEdit), tool_use_id, and agent_id inside a subagent. Also read for
// PostToolUseFailure and PermissionDenied, which carry the same fields. Unknown fields are never read.
export function claudeEditEvent(payload: Payload): EditEvent {
  const tool = stringField(payload, 'tool_name');
  if (tool === undefined) return { kind: 'malformed', problem: 'the hook input has no tool_name' };
  if (!CLAUDE_EDIT_TOOLS.includes(tool)) return { kind: 'ignore' };
  const input = objectField(payload, 'tool_input');
  const path = stringField(input, 'file_path') ?? stringField(input, 'notebook_path');
  if (path === undefined) return { kind: 'malformed', problem: `the ${tool} hook input has no tool_input.file_path` };
  const sessionId = stringField(payload, 'session_id');
  if (sessionId === undefined) return noSession();
  const owner = ownerForSession('claude', sessionId, stringField(payload, 'agent_id'));
  return editEvent(owner, payload, [path]);
}

// Codex PreToolUse for apply_patch (tool_name "apply_patch", the raw patch in tool_input.command) and for
// shell commands (tool_name "Bash") that apply a patch through `apply_patch <<'EOF'`. Paths come from the
// patch's file headers. Any other shell command is allowed at once without opening the database.
// The owner is $IC_OWNER where Codex was started with one (so its commits pass the guard), else codex-<session>.
export function codexEditEvent(payload: Payload, env: NodeJS.ProcessEnv): EditEvent {
  const tool = stringField(payload, 'tool_name');
  if (tool === undefined) return { kind: 'malformed', problem: 'the hook input has no tool_name' };
  const input = objectField(payload, 'tool_input');
  const paths = CODEX_SHELL_TOOLS.includes(tool) ? shellPaths(input, stringField(payload, 'cwd')) : patchPaths(tool, input);
  if (paths === undefined || 'problem' in paths) return paths ?? { kind: 'ignore' };
  if (paths.length === 0) return { kind: 'ignore' };
  const owner = codexOwner(payload, env);
  return owner === undefined ? noSession() : editEvent(owner, payload, paths);
}

export function codexOwner(payload: Payload, env: NodeJS.ProcessEnv): string | undefined {
  if (env.IC_OWNER) return liveOwner(env.IC_OWNER);
  const sessionId = stringField(payload, 'session_id');
  return sessionId === undefined ? undefined : ownerForSession('codex', sessionId);
}

function patchPaths(tool: string, input: Record<string, unknown> | undefined): string[] | { kind: 'malformed'; problem: string } | undefined {
  const patch = ['command', 'input', 'patch'].map((key) => stringField(input, key)).find((text) => text !== undefined && isPatch(text));
  if (patch !== undefined) return pathsFromPatch(patch);
  if (tool !== 'apply_patch') return undefined;
  return { kind: 'malformed', problem: 'the apply_patch hook input has no patch in tool_input.command' };
}

function shellPaths(input: Record<string, unknown> | undefined, cwd: string | undefined): string[] | { kind: 'malformed'; problem: string } | undefined {
  const command = commandText(input?.command ?? input?.cmd);
  if (command === undefined) return undefined;
  const found = shellPatchPaths(command, cwd ?? process.cwd());
  if (found === undefined) return undefined;
  if (found.unreadable) return { kind: 'malformed', problem: 'the shell command runs apply_patch, but ic found no file in its patch' };
  return found.paths;
}

function editEvent(owner: string, payload: Payload, paths: string[]): EditEvent {
  const toolUseId = stringField(payload, 'tool_use_id');
  return { kind: 'edit', owner, cwd: stringField(payload, 'cwd'), paths, ...(toolUseId ? { toolUseId } : {}) };
}

function noSession(): EditEvent {
  return { kind: 'malformed', problem: 'the hook input has no session_id, so ic cannot tell which session edits' };
}
