import type { Decision } from './decision';

// The PreToolUse reply both Claude Code and Codex read (exit 0 always): nothing for a plain allow, a
// systemMessage for a notice, hookSpecificOutput.permissionDecision "deny" with the reason for a deny.
// Never "allow": that would skip the agent's own permission prompt. Codex accepts the same shape
// (codex-rs/hooks/schema/generated/pre-tool-use.command.output.schema.json: hookSpecificOutput, systemMessage).
export function preToolUseOutput(decision: Decision): string {
  const json: Record<string, unknown> = {};
  if (decision.kind === 'deny') {
    json.hookSpecificOutput = { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: decision.reason };
  }
  if (decision.notice) json.systemMessage = decision.notice;
  return Object.keys(json).length === 0 ? '' : `${JSON.stringify(json)}\n`;
}

// A notice-only reply for hooks that cannot block (SessionStart, SessionEnd).
export function noticeOutput(notice: string | undefined): string {
  return notice ? `${JSON.stringify({ systemMessage: notice })}\n` : '';
}

// PostToolUse output both clients read: additionalContext reaches the model (Claude Code; Codex 0.169's
// PostToolUseHookSpecificOutputWire), systemMessage shows the person. The tool has already run: nothing is blocked.
export function postToolUseOutput(message: string): string {
  return `${JSON.stringify({ systemMessage: message, hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: message } })}\n`;
}
