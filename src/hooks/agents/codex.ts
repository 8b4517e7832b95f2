import { afterToolCall } from '../custody/post-tool';
import { CODEX_SHELL_TOOLS, codexEditEvent, codexOwner } from '../edit-events';
import { beforeEdit } from '../edit-hook';
import { stringField } from '../payload';
import { sessionEnd, turnCommandsEnd } from '../session-events';
import { beforeShell } from '../shell-hook';
import { HOOK_JSON_REPLIES, type AgentAdapter, type PayloadReader } from './adapter';

// Codex (npm @openai/codex, checked with 0.169): hooks in .codex/hooks.json, Claude Code's shape (one
// process per event, `session_id, cwd, hook_event_name, tool_name, tool_input`, the same PreToolUse and
// PostToolUse replies). Edits arrive as apply_patch (the patch in tool_input.command), as a shell command
// running `apply_patch <<'EOF'`, or as an MCP tool; the shell tools are Bash, exec_command, shell and
// local_shell ({command (a string or an argv array) or cmd, workdir}). The owner is $IC_OWNER where Codex
// was started with one, else codex-<session>. Its events, by the hook names install writes:
const CODEX: PayloadReader = {
  owner: codexOwner,
  callOwner: codexOwner,
  dir: (payload, _env, hookCwd) => stringField(payload, 'cwd') ?? hookCwd,
  shellTools: CODEX_SHELL_TOOLS,
  editEvent: codexEditEvent,
};

export const codexAdapter: AgentAdapter = {
  agent: 'codex',
  ...HOOK_JSON_REPLIES,
  events: {
    'pre-edit': (call) => beforeEdit(call, (payload) => codexEditEvent(payload, call.env)), // PreToolUse on apply_patch (and Bash, install --no-shell) and MCP tools
    'pre-shell': (call) => beforeShell(call, CODEX), // PreToolUse on the shell tools
    'post-tool': (call) => afterToolCall(call, CODEX), // PostToolUse
    'session-end': (call) => sessionEnd(call, CODEX), // SessionEnd
    'turn-end': (call) => turnCommandsEnd(call, CODEX, true), // Stop: open commands end as their after hook would
    prompt: (call) => turnCommandsEnd(call, CODEX, true), // UserPromptSubmit: the same, for a turn without Stop
  },
};
