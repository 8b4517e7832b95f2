import { objectField, stringField, type Payload } from '../payload';
import { HOOK_JSON_REPLIES, type ToolClient } from './adapter';
import { TOOL_CLIENT_EVENTS } from './tool-events';
import { copilotAdapter } from './copilot';

// GitHub Copilot CLI running the Claude Code hooks of .claude/settings.json and settings.local.json (it reads
// them as extra repository config since 1.0.8): Claude's field names (`session_id`, `tool_name`,
// `tool_input`), Claude's tool names for its own tools (bash → Bash, edit → Edit, create → Write) with
// Copilot's argument names (`path`, not `file_path`), and Claude's reply shape (a deny under
// hookSpecificOutput). The session is Copilot's: owner `copilot-<session>`, the same as its own hooks'.
const COPILOT_TOOL_OF: Record<string, string> = { Bash: 'bash', Edit: 'edit', Write: 'create' };

export const copilotViaClaudeAdapter: ToolClient = {
  agent: 'copilot',
  session: (payload) => ({ sessionId: stringField(payload, 'session_id'), cwd: stringField(payload, 'cwd') }),
  toolCall: (payload) => copilotAdapter.toolCall(asCopilotPayload(payload)),
  beforeToolReply: HOOK_JSON_REPLIES.beforeToolReply,
  afterToolReply: (notice) => ({ stdout: '', stderr: notice ? `${notice}\n` : '', exitCode: 0 }),
  ...TOOL_CLIENT_EVENTS,
};

function asCopilotPayload(payload: Payload): Payload {
  const tool = stringField(payload, 'tool_name');
  const args = objectField(payload, 'tool_input');
  return { ...(tool !== undefined ? { toolName: COPILOT_TOOL_OF[tool] ?? tool } : {}), ...(args !== undefined ? { toolArgs: args } : {}) };
}
