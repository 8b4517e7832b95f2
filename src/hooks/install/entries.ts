import { shellQuote } from '../session';
import type { HookEntry } from './json-hooks';

export { CLAUDE_HOOK_NAMES, CODEX_HOOK_NAMES } from '../names';

const CLAUDE_EDIT_MATCHER = 'Edit|Write|MultiEdit|NotebookEdit';
// Codex applies patches with its apply_patch tool and also through its shell (`apply_patch <<'EOF'`).
export const CODEX_EDIT_MATCHER = 'apply_patch|Bash';
// Codex caps SessionEnd hooks at 3 s.
export const CODEX_SESSION_END_TIMEOUT_S = 3;

// How an installed hook names ic: this machine's absolute bin path (quoted), which needs nothing on PATH, or
// plain `ic` from PATH, for files a team commits (`--shared`): no machine's path goes into them.
export type IcCommand = { kind: 'path'; bin: string } | { kind: 'on-path' };

export function hookCommand(ic: IcCommand, name: string): string {
  if (ic.kind === 'path') return `${shellQuote(ic.bin)} coord hook ${name}`;
  const missing = missingIcReply(name);
  return missing === undefined ? `ic coord hook ${name}` : `command -v ic >/dev/null 2>&1 || { cat >/dev/null; printf '%s\\n' ${shellQuote(missing)}; exit 0; }; exec ic coord hook ${name}`;
}

export const MISSING_IC = 'ic is not installed on this machine (no `ic` on PATH), and this repository coordinates its agents with it';

// Shared installs (docs/sessions.md, "Shared installs"): on a machine without ic, an edit hook refuses the
// edit (ic cannot tell whether another agent holds the file, and a held file is never silently editable),
// and session start says so. Other hooks do nothing there.
export function missingIcReply(name: string): string | undefined {
  if (name.includes('-pre-')) {
    const reason = `${MISSING_IC}: it cannot tell whether another agent holds this file, so the change was not made. Ask the person to install ic (npm install -g @ic-coord/ic) and retry.`;
    return JSON.stringify({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
      systemMessage: `${MISSING_IC}; edits are refused until it is installed.`,
    });
  }
  if (name.endsWith('-session-start')) {
    const text = `${MISSING_IC}; edits are refused until it is installed (npm install -g @ic-coord/ic).`;
    return JSON.stringify({ systemMessage: text, hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } });
  }
  return undefined;
}

// .claude/settings(.local).json (Claude Code hooks: matcher is a regex over tool names, timeout in seconds).
// Stop fires every turn: its hook only gives back what refused calls took, never the session's locks.
// With gitIndex (install --git-index): each session's private staging area is seeded and exported at
// SessionStart, and refreshed before git commands (PreToolUse on Bash; other commands return at once).
export function claudeEntries(ic: IcCommand, options: { gitIndex?: boolean } = {}): HookEntry[] {
  const entry = (event: string, name: string, timeout: number, matcher?: string): HookEntry => ({ event, name, command: hookCommand(ic, name), timeout, ...(matcher ? { matcher } : {}) });
  const staging = options.gitIndex ? [entry('SessionStart', 'claude-git-index', 10), entry('PreToolUse', 'claude-pre-bash', 10, 'Bash')] : [];
  return [
    ...staging,
    entry('PreToolUse', 'claude-pre-edit', 10, CLAUDE_EDIT_MATCHER),
    entry('PostToolUseFailure', 'claude-edit-refused', 5, CLAUDE_EDIT_MATCHER),
    entry('PermissionDenied', 'claude-edit-refused', 5, CLAUDE_EDIT_MATCHER),
    entry('SessionStart', 'claude-session-start', 10),
    entry('UserPromptSubmit', 'claude-prompt', 5), // liveness, and hand-off requests for the model (docs/sessions.md)
    entry('Stop', 'claude-turn-end', 5),
    entry('SubagentStop', 'claude-subagent-stop', 5),
    entry('SessionEnd', 'claude-session-end', 5),
  ];
}

// .codex/hooks.json (Codex hooks, same shape as Claude's; edits arrive as tool_name "apply_patch" or "Bash").
export function codexEntries(ic: IcCommand): HookEntry[] {
  return [
    { event: 'PreToolUse', matcher: CODEX_EDIT_MATCHER, name: 'codex-pre-edit', command: hookCommand(ic, 'codex-pre-edit'), timeout: 10 },
    { event: 'SessionEnd', name: 'codex-session-end', command: hookCommand(ic, 'codex-session-end'), timeout: CODEX_SESSION_END_TIMEOUT_S },
  ];
}
