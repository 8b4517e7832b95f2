import type { Decision } from '../decision';
import { objectField, stringField, type Payload } from '../payload';
import type { AgentAdapter, AgentReply, ToolCall } from './adapter';

// Gemini CLI (npm @google/gemini-cli, checked with 0.61): hooks in .gemini/settings.json (BeforeTool,
// AfterTool, SessionEnd), input `session_id, cwd, tool_name, tool_input`. Edit tools write_file and replace
// take `file_path` as the model wrote it (maybe relative to cwd); the shell tool is run_shell_command.
// A deny is `{"decision":"deny","reason":…}` on stdout (exit 0); `systemMessage` shows a notice.
export const GEMINI_EDIT_TOOLS: readonly string[] = ['write_file', 'replace'];
export const GEMINI_SHELL_TOOLS: readonly string[] = ['run_shell_command'];

export const geminiAdapter: AgentAdapter = {
  agent: 'gemini',
  label: 'Gemini CLI',
  session: (payload, env) => ({ sessionId: stringField(payload, 'session_id') ?? (env.GEMINI_SESSION_ID || undefined), cwd: stringField(payload, 'cwd') ?? (env.GEMINI_PROJECT_DIR || undefined) }),
  toolCall: (payload) => geminiToolCall(payload),
  beforeToolReply: (decision) => geminiReply(decision),
  afterToolReply: (notice) => geminiReply({ kind: 'allow', ...(notice ? { notice } : {}) }),
};

function geminiToolCall(payload: Payload): ToolCall {
  const tool = stringField(payload, 'tool_name');
  if (tool === undefined) return { kind: 'malformed', problem: 'the hook input has no tool_name' };
  const input = objectField(payload, 'tool_input');
  if (GEMINI_EDIT_TOOLS.includes(tool)) {
    const path = stringField(input, 'file_path');
    return path === undefined ? { kind: 'malformed', problem: `the ${tool} hook input has no tool_input.file_path` } : { kind: 'edit', paths: [path] };
  }
  if (GEMINI_SHELL_TOOLS.includes(tool)) {
    const command = stringField(input, 'command');
    return command === undefined ? { kind: 'malformed', problem: `the ${tool} hook input has no tool_input.command` } : { kind: 'shell', command };
  }
  return { kind: 'other' };
}

function geminiReply(decision: Decision): AgentReply {
  const json: Record<string, unknown> = decision.kind === 'deny' ? { decision: 'deny', reason: decision.reason } : {};
  if (decision.notice) json.systemMessage = decision.notice;
  return { stdout: Object.keys(json).length === 0 ? '' : `${JSON.stringify(json)}\n`, stderr: '', exitCode: 0 };
}
