import { afterToolCall } from '../custody/post-tool';
import { CLAUDE_EDIT_TOOLS, claudeEditEvent, claudeOwner } from '../edit-events';
import { beforeEdit, editRefused } from '../edit-hook';
import { stringField } from '../payload';
import { turnCommandsEnd, sessionEnd, sessionStart, subagentStop, turnEnd } from '../session-events';
import { beforeShell } from '../shell-hook';
import { runGitIndexStart, runPreBash } from '../staging';
import { HOOK_JSON_REPLIES, type AgentAdapter, type PayloadReader } from './adapter';

// Claude Code (code.claude.com/docs/en/hooks): hooks in .claude/settings(.local).json, one process per
// event, JSON on stdin with `session_id, cwd, hook_event_name, tool_name, tool_input, tool_use_id` (and
// `agent_id` inside a subagent); $CLAUDE_PROJECT_DIR names the project. Edit tools Edit, Write, MultiEdit,
// NotebookEdit take `file_path` (`notebook_path`); the shell is Bash {command, timeout}; an MCP tool naming
// a file is an edit. A deny is hookSpecificOutput.permissionDecision "deny" (exit 0); after a tool,
// additionalContext reaches the model. Its events, by the hook names install writes (hook name → use case):
const CLAUDE: PayloadReader = {
  owner: (payload) => claudeOwner(payload, false),
  callOwner: (payload) => claudeOwner(payload),
  dir: (payload, env, hookCwd) => env.CLAUDE_PROJECT_DIR || stringField(payload, 'cwd') || hookCwd,
  shellTools: ['Bash'],
  editEvent: (payload) => (CLAUDE_EDIT_TOOLS.includes(stringField(payload, 'tool_name') ?? '') ? claudeEditEvent(payload) : { kind: 'ignore' }),
  privateIndex: true,
};

export const claudeAdapter: AgentAdapter = {
  agent: 'claude',
  ...HOOK_JSON_REPLIES,
  events: {
    'pre-edit': (call) => beforeEdit(call, claudeEditEvent), // PreToolUse on edit and MCP tools
    'pre-shell': (call) => beforeShell(call, CLAUDE), // PreToolUse on Bash
    'post-tool': (call) => afterToolCall(call, CLAUDE), // PostToolUse
    'edit-refused': (call) => editRefused(call, claudeEditEvent), // PostToolUseFailure, PermissionDenied
    'session-start': sessionStart, // SessionStart
    prompt: (call) => turnCommandsEnd(call, CLAUDE, false), // UserPromptSubmit
    'turn-end': (call) => turnEnd(call, CLAUDE), // Stop
    'subagent-stop': (call) => subagentStop(call, CLAUDE), // SubagentStop
    'session-end': (call) => sessionEnd(call, CLAUDE), // SessionEnd
    'git-index': runGitIndexStart, // SessionStart, install --git-index
    'pre-bash': runPreBash, // PreToolUse on Bash, install --git-index --no-shell
  },
};
