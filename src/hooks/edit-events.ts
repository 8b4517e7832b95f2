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
  const input = objectField(payload, 'tool_input');
  if (!CLAUDE_EDIT_TOOLS.includes(tool)) return otherToolEvent(tool, input, payload, () => claudeOwner(payload));
  const path = stringField(input, 'file_path') ?? stringField(input, 'notebook_path');
  if (path === undefined) return { kind: 'malformed', problem: `the ${tool} hook input has no tool_input.file_path` };
  const owner = claudeOwner(payload);
  return owner === undefined ? noSession() : editEvent(owner, payload, [path]);
}

// The session's owner; of a tool call, a subagent's own (`agent_id`, given inside a subagent).
export function claudeOwner(payload: Payload, ofCall = true): string | undefined {
  const sessionId = stringField(payload, 'session_id');
  return sessionId === undefined ? undefined : ownerForSession('claude', sessionId, ofCall ? stringField(payload, 'agent_id') : undefined);
}

// Any other tool (an MCP tool, say) is an edit of the files its input names, unless its name says it only
// reads. Only the tool's own name counts (`mcp__server__read_file` → `read_file`), so a server's name
// never makes its writing tools look like readers.
const FILE_FIELDS = ['file_path', 'filePath', 'path', 'paths', 'filename', 'fileName', 'file_name', 'file', 'files', 'destination', 'dest', 'source', 'target', 'notebook_path'];
const READ_ONLY_WORDS = new Set('read list search get view find grep glob stat info show query fetch describe lookup ls cat head tail tree diff status count exists check'.split(' '));

export function onlyReads(tool: string): boolean {
  const own = tool.includes('__') ? tool.slice(tool.lastIndexOf('__') + 2) : tool;
  const words = own
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => READ_ONLY_WORDS.has(word));
}

export function namedFiles(input: Record<string, unknown> | undefined): string[] {
  if (input === undefined) return [];
  const paths: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string' && value !== '' && value.length <= 4096 && !value.includes('\n') && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !paths.includes(value)) paths.push(value);
  };
  for (const field of FILE_FIELDS) {
    const value = input[field];
    if (Array.isArray(value)) value.slice(0, 1000).forEach(add);
    else add(value);
  }
  return paths;
}

function otherToolEvent(tool: string, input: Record<string, unknown> | undefined, payload: Payload, owner: () => string | undefined): EditEvent {
  if (onlyReads(tool)) return { kind: 'ignore' };
  const paths = namedFiles(input);
  if (paths.length === 0) return { kind: 'ignore' };
  const who = owner();
  return who === undefined ? noSession() : editEvent(who, payload, paths);
}

// Codex PreToolUse for apply_patch (tool_name "apply_patch", the raw patch in tool_input.command) and for
// shell commands (tool_name "Bash") that apply a patch through `apply_patch <<'EOF'`. Paths come from the
// patch's file headers. Any other shell command is allowed at once without opening the database.
// The owner is $IC_OWNER where Codex was started with one (so its commits pass the guard), else codex-<session>.
export function codexEditEvent(payload: Payload, env: NodeJS.ProcessEnv): EditEvent {
  const tool = stringField(payload, 'tool_name');
  if (tool === undefined) return { kind: 'malformed', problem: 'the hook input has no tool_name' };
  const input = objectField(payload, 'tool_input');
  if (tool !== 'apply_patch' && !CODEX_SHELL_TOOLS.includes(tool) && patchPaths(tool, input) === undefined) return otherToolEvent(tool, input, payload, () => codexOwner(payload, env)); // an MCP tool
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
