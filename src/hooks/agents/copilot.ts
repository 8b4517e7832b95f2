import type { Decision } from '../decision';
import { stringField } from '../payload';
import type { HookResult } from '../hook-types';
import { toolPathAdapter } from './tool-path';

// GitHub Copilot CLI (npm @github/copilot, checked with 1.0.102): repository hooks in .github/hooks/*.json
// (camelCase events preToolUse, postToolUse, sessionEnd), input `sessionId, cwd, toolName, toolArgs`.
// Edit tools create {path, file_text} and edit {path, …}; the shell tool is bash {command}. A deny is
// `{"permissionDecision":"deny","permissionDecisionReason":…}` on stdout; notices go to stderr (its log).
export const copilotAdapter = toolPathAdapter({
  agent: 'copilot',
  session: (payload) => ({ sessionId: stringField(payload, 'sessionId'), cwd: stringField(payload, 'cwd') }),
  fields: { tool: 'toolName', args: 'toolArgs', input: 'hook input', argsMayBeText: true },
  edit: { tools: ['create', 'edit', 'str_replace_editor', 'write'], path: ['path', 'file_path'] },
  shell: { tools: ['bash'] },
  reply: copilotReply,
});

function copilotReply(decision: Decision): HookResult {
  const stdout = decision.kind === 'deny' ? `${JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: decision.reason })}\n` : '';
  return { stdout, stderr: decision.notice ? `${decision.notice}\n` : '', exitCode: 0 };
}
