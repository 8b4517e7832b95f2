import type { Decision } from '../decision';
import { objectField, stringField, type Payload } from '../payload';
import { singleQuoted } from '../../core/shell';
import type { HookResult } from '../hook-types';
import type { ToolClient, ToolCall } from './adapter';
import { TOOL_CLIENT_EVENTS } from './tool-events';
import { patchCall } from './tool-path';

// Cline's CLI (npm cline, checked with 3.0.65): executable hook files in .clinerules/hooks/ named after the
// event (PreToolUse, PostToolUse, TaskComplete, SessionShutdown), JSON on stdin: `taskId`,
// `sessionContext.rootSessionId`, `workspaceRoots`, and for tools `tool_call {id, name, input}` (before) or
// `tool_result {id, name, input, output}` (after); `preToolUse`/`postToolUse {toolName, parameters}` carry
// the same call with every value as a string, the shape Cline's VS Code extension sends. Its tools: editor
// {path, old_text, new_text}, apply_patch {input}, run_commands {commands: [..]} (or one command, or
// {command, args} run without a shell); the extension's write_to_file, replace_in_file, execute_command.
// A refusal is `{"cancel":true,"errorMessage":…}` on stdout; Cline 3.0.65 then ends the whole task (its
// file hooks cannot skip one call), so the file is never touched. `context` reaches the model.
export const CLINE_EDIT_TOOLS: readonly string[] = ['editor', 'write_to_file', 'replace_in_file'];
export const CLINE_PATCH_TOOLS: readonly string[] = ['apply_patch'];
export const CLINE_SHELL_TOOLS: readonly string[] = ['run_commands', 'execute_command'];

export const clineAdapter: ToolClient = {
  agent: 'cline',
  session: (payload) => ({
    sessionId: stringField(objectField(payload, 'sessionContext'), 'rootSessionId') ?? stringField(payload, 'taskId'),
    cwd: firstRoot(payload),
    callId: stringField(objectField(payload, 'tool_call') ?? objectField(payload, 'tool_result'), 'id'),
  }),
  toolCall: (payload) => clineToolCall(payload),
  beforeToolReply: (decision) => clineReply(decision),
  afterToolReply: (notice) => clineReply({ kind: 'allow', ...(notice ? { notice } : {}) }),
  ...TOOL_CLIENT_EVENTS,
};

function firstRoot(payload: Payload): string | undefined {
  const roots = payload.workspaceRoots;
  return Array.isArray(roots) && typeof roots[0] === 'string' && roots[0] !== '' ? roots[0] : stringField(objectField(payload, 'workspaceInfo'), 'rootPath');
}

// The call's name and input: the CLI's structured `tool_call`/`tool_result`, else the string-valued
// `preToolUse`/`postToolUse` parameters (where an input that was not a string arrives as its JSON text).
function callOf(payload: Payload): { tool: string; input: unknown } | undefined {
  const call = objectField(payload, 'tool_call') ?? objectField(payload, 'tool_result');
  const name = stringField(call, 'name');
  if (call && name) return { tool: name, input: call.input };
  const legacy = objectField(payload, 'preToolUse') ?? objectField(payload, 'postToolUse');
  const tool = stringField(legacy, 'toolName');
  if (tool === undefined) return undefined;
  const parameters = objectField(legacy, 'parameters') ?? {};
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parameters)) input[key] = typeof value === 'string' && /^[[{]/.test(value) ? parseOr(value) : value;
  return { tool, input };
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function clineToolCall(payload: Payload): ToolCall {
  const call = callOf(payload);
  if (call === undefined) return { kind: 'malformed', problem: 'the hook input has no tool_call.name' };
  const { tool, input } = call;
  if (CLINE_EDIT_TOOLS.includes(tool)) {
    const path = stringField(input, 'path');
    return path === undefined ? { kind: 'malformed', problem: `the ${tool} call has no input.path` } : { kind: 'edit', paths: [path] };
  }
  if (CLINE_PATCH_TOOLS.includes(tool)) return patchCall(tool, typeof input === 'string' ? input : stringField(input, 'input'), 'input.input');
  if (CLINE_SHELL_TOOLS.includes(tool)) {
    const commands = shellCommands(input);
    return commands.length === 0 ? { kind: 'malformed', problem: `the ${tool} call has no command` } : { kind: 'shell', command: commands.join('\n') };
  }
  return { kind: 'other' };
}

// run_commands takes many shapes: a string, a list, {commands}, {command}, {cmd}; an entry {command, args}
// runs without a shell, so ic reads it as that program with its arguments quoted.
function shellCommands(input: unknown): string[] {
  const one = (entry: unknown): string | undefined => {
    if (typeof entry === 'string') return entry.trim() === '' ? undefined : entry;
    const program = stringField(entry, 'command');
    if (program === undefined) return undefined;
    const args = (entry as { args?: unknown }).args;
    return Array.isArray(args) && args.length > 0 ? [program, ...args.map(String)].map(singleQuoted).join(' ') : program;
  };
  const list = (value: unknown): string[] => (Array.isArray(value) ? value : [value]).map(one).filter((command): command is string => command !== undefined);
  if (typeof input === 'string' || Array.isArray(input)) return list(input);
  if (input === null || typeof input !== 'object') return [];
  const fields = input as Record<string, unknown>;
  if ('commands' in fields) return list(fields.commands);
  if ('args' in fields) return list(fields);
  return list(fields.command ?? fields.cmd);
}

function clineReply(decision: Decision): HookResult {
  if (decision.kind === 'deny') return { stdout: `${JSON.stringify({ cancel: true, errorMessage: decision.reason })}\n`, stderr: decision.notice ? `${decision.notice}\n` : '', exitCode: 0 };
  return { stdout: decision.notice ? `${JSON.stringify({ context: decision.notice })}\n` : '', stderr: '', exitCode: 0 };
}
