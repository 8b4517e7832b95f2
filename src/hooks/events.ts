import { ownerForSession, type Agent } from './identity';
import { isPatch, pathsFromPatch } from './patch';
import { objectField, stringField, type Payload } from './payload';

// What a pre-edit payload means to ic: an edit of some paths by one owner, nothing to do, or unusable input.
export type EditEvent =
  | { kind: 'edit'; owner: string; cwd: string | undefined; paths: string[] }
  | { kind: 'ignore' }
  | { kind: 'malformed'; problem: string };

export const CLAUDE_EDIT_TOOLS: readonly string[] = ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'];

// Claude Code PreToolUse (code.claude.com/docs/en/hooks): session_id, cwd, tool_name, tool_input.file_path
// (absolute; notebook_path for NotebookEdit). Unknown fields are never read.
export function claudeEditEvent(payload: Payload): EditEvent {
  const tool = stringField(payload, 'tool_name');
  if (tool === undefined) return { kind: 'malformed', problem: 'the hook input has no tool_name' };
  if (!CLAUDE_EDIT_TOOLS.includes(tool)) return { kind: 'ignore' };
  const input = objectField(payload, 'tool_input');
  const path = stringField(input, 'file_path') ?? stringField(input, 'notebook_path');
  if (path === undefined) return { kind: 'malformed', problem: `the ${tool} hook input has no tool_input.file_path` };
  return withOwner('claude', payload, [path]);
}

// Codex PreToolUse for apply_patch. Relied on: openai/codex PR #18391 (apply_patch emits PreToolUse with
// tool_name "apply_patch" and the raw patch as tool_input.command) and codex-rs/hooks/schema/generated/
// pre-tool-use.command.input.schema.json (session_id, turn_id, cwd, tool_name, tool_input, tool_use_id, ...).
// Paths come from the patch's file headers. Other tools (Bash, MCP) are not edits.
export function codexEditEvent(payload: Payload): EditEvent {
  const tool = stringField(payload, 'tool_name');
  if (tool === undefined) return { kind: 'malformed', problem: 'the hook input has no tool_name' };
  const input = objectField(payload, 'tool_input');
  const patch = ['command', 'input', 'patch'].map((key) => stringField(input, key)).find((text) => text !== undefined && isPatch(text));
  if (patch === undefined) {
    if (tool !== 'apply_patch') return { kind: 'ignore' };
    return { kind: 'malformed', problem: 'the apply_patch hook input has no patch in tool_input.command' };
  }
  const paths = pathsFromPatch(patch);
  return paths.length === 0 ? { kind: 'ignore' } : withOwner('codex', payload, paths);
}

function withOwner(agent: Agent, payload: Payload, paths: string[]): EditEvent {
  const sessionId = stringField(payload, 'session_id');
  if (sessionId === undefined) return { kind: 'malformed', problem: 'the hook input has no session_id, so ic cannot tell which session edits' };
  return { kind: 'edit', owner: ownerForSession(agent, sessionId), cwd: stringField(payload, 'cwd'), paths };
}
