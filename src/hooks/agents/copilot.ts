import type { Decision } from '../decision';
import { objectField, stringField, type Payload } from '../payload';
import type { ToolClient, AgentReply, ToolCall } from './adapter';
import { TOOL_EVENTS, toolEventFailed } from './tool-events';

// GitHub Copilot CLI (npm @github/copilot, checked with 1.0.102): repository hooks in .github/hooks/*.json
// (camelCase events preToolUse, postToolUse, sessionEnd), input `sessionId, cwd, toolName, toolArgs`.
// Edit tools create {path, file_text} and edit {path, …}; the shell tool is bash {command}. A deny is
// `{"permissionDecision":"deny","permissionDecisionReason":…}` on stdout; notices go to stderr (its log).
export const COPILOT_EDIT_TOOLS: readonly string[] = ['create', 'edit', 'str_replace_editor', 'write'];
export const COPILOT_SHELL_TOOLS: readonly string[] = ['bash'];

export const copilotAdapter: ToolClient = {
  agent: 'copilot',
  label: 'GitHub Copilot CLI',
  session: (payload) => ({ sessionId: stringField(payload, 'sessionId'), cwd: stringField(payload, 'cwd') }),
  toolCall: (payload) => copilotToolCall(payload),
  beforeToolReply: (decision) => copilotReply(decision),
  afterToolReply: (notice) => ({ stdout: '', stderr: notice ? `${notice}\n` : '', exitCode: 0 }),
  events: TOOL_EVENTS,
  failed: toolEventFailed,
};

// toolArgs is an object in 1.0.102; a JSON text is read too, in case a version sends the raw arguments.
function argsOf(payload: Payload): Record<string, unknown> | undefined {
  const object = objectField(payload, 'toolArgs');
  if (object) return object;
  const text = stringField(payload, 'toolArgs');
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function copilotToolCall(payload: Payload): ToolCall {
  const tool = stringField(payload, 'toolName');
  if (tool === undefined) return { kind: 'malformed', problem: 'the hook input has no toolName' };
  const args = argsOf(payload);
  if (COPILOT_EDIT_TOOLS.includes(tool)) {
    const path = stringField(args, 'path') ?? stringField(args, 'file_path');
    return path === undefined ? { kind: 'malformed', problem: `the ${tool} hook input has no toolArgs.path` } : { kind: 'edit', paths: [path] };
  }
  if (COPILOT_SHELL_TOOLS.includes(tool)) {
    const command = stringField(args, 'command');
    return command === undefined ? { kind: 'malformed', problem: `the ${tool} hook input has no toolArgs.command` } : { kind: 'shell', command };
  }
  return { kind: 'other' };
}

function copilotReply(decision: Decision): AgentReply {
  const stdout = decision.kind === 'deny' ? `${JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: decision.reason })}\n` : '';
  return { stdout, stderr: decision.notice ? `${decision.notice}\n` : '', exitCode: 0 };
}
