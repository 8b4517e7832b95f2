import { singleQuoted } from '../../core/shell';
import type { HookEntry } from './json-hooks';

// Edit tools, and every MCP tool (a tool naming a file is an edit unless it only reads; the hook decides).
// Read-only built-ins (Read, Grep, Glob, LS, …) stay out of the matcher, so they start no process.
const CLAUDE_EDIT_MATCHER = 'Edit|Write|MultiEdit|NotebookEdit|mcp__.*';
const CLAUDE_SHELL_MATCHER = 'Bash';
// Codex applies patches with its apply_patch tool and also through its shell (`apply_patch <<'EOF'`); with
// shell custody the shell hook reads those too, so the edit hook leaves Bash to it.
export const CODEX_EDIT_MATCHER = 'apply_patch|Bash|mcp__.*';
const CODEX_EDIT_MATCHER_WITH_SHELL = 'apply_patch|mcp__.*';
const CODEX_SHELL_MATCHER = 'Bash|exec_command|shell|local_shell';
// Codex caps SessionEnd hooks at 3 s.
export const CODEX_SESSION_END_TIMEOUT_S = 3;

// How an installed hook names ic: this machine's absolute bin path (quoted), after the Node.js to run it (no
// `/usr/bin/env` on every hook: docs/performance.md), or plain `ic` from PATH for files a team commits (`--shared`).
export type IcCommand = { kind: 'path'; bin: string; node?: string } | { kind: 'on-path' };

// What an installed hook says when its ic is gone (the package removed before `ic coord uninstall`).
export const MISSING_IC_LINE = 'ic is not installed: run `ic coord uninstall` or reinstall';

// The hook's command line. When the shell cannot find ic (127), one clear line on stderr and exit 1: a
// non-blocking hook error for Claude Code and Codex (never 2, which blocks); every other status passes through.
export function hookCommand(ic: IcCommand, name: string): string {
  const call = `${icProgram(ic)} coord hook ${name}`;
  // A shared install's edit and session-start hooks answer for a machine without ic (missingIcReply);
  // every other hook whose ic is gone says so in one line (exit 1: a non-blocking error, never 2).
  const missing = ic.kind === 'on-path' ? missingIcReply(name) : undefined;
  if (missing !== undefined) return `command -v ic >/dev/null 2>&1 || { cat >/dev/null; printf '%s\\n' ${singleQuoted(missing)}; exit 0; }; exec ${call}`;
  // With node named first, a missing bin/ic is node's exit 1, not the shell's 127: the file's absence says it.
  const gone = ic.kind === 'path' && ic.node !== undefined ? ` && [ -e ${singleQuoted(ic.bin)} ]` : '';
  return `${call} || { s=$?; [ "$s" -ne 127 ]${gone} && exit "$s"; echo ${singleQuoted(MISSING_IC_LINE)} >&2; exit 1; }`;
}

// ic as a command's first words: `'NODE' 'BIN'`, `'BIN'`, or `ic` from PATH.
export function icProgram(ic: IcCommand): string {
  if (ic.kind === 'on-path') return 'ic';
  return ic.node === undefined ? singleQuoted(ic.bin) : `${singleQuoted(ic.node)} ${singleQuoted(ic.bin)}`;
}

export const MISSING_IC = 'ic is not installed on this machine (no `ic` on PATH), and this repository coordinates its agents with it';

// Shared installs (docs/sessions.md, "Shared installs"): on a machine without ic, an edit hook refuses the
// edit (ic cannot tell whether another agent holds the file, and a held file is never silently editable),
// and session start says so. Other hooks do nothing there.
export function missingIcReply(name: string): string | undefined {
  // Claude's and Codex's PreToolUse reply shape (the adapted clients have their own; they get the one-line notice).
  if (name.includes('-pre-') && (name.startsWith('claude-') || name.startsWith('codex-'))) {
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
// With shell (the default; install --no-shell omits it) every Bash command is checked before it runs
// (claude-pre-shell), and that one process also refreshes a private staging area, so claude-pre-bash is
// not installed beside it.
export function claudeEntries(ic: IcCommand, options: { gitIndex?: boolean; shell?: boolean } = {}): HookEntry[] {
  const entry = (event: string, name: string, timeout: number, matcher?: string): HookEntry => ({ event, name, command: hookCommand(ic, name), timeout, ...(matcher ? { matcher } : {}) });
  const shell = options.shell !== false;
  const staging = options.gitIndex ? [entry('SessionStart', 'claude-git-index', 10), ...(shell ? [] : [entry('PreToolUse', 'claude-pre-bash', 10, 'Bash')])] : [];
  return [
    ...staging,
    entry('PreToolUse', 'claude-pre-edit', 10, CLAUDE_EDIT_MATCHER),
    ...(shell ? [entry('PreToolUse', 'claude-pre-shell', 10, CLAUDE_SHELL_MATCHER)] : []),
    entry('PostToolUseFailure', 'claude-edit-refused', 5, CLAUDE_EDIT_MATCHER),
    entry('PermissionDenied', 'claude-edit-refused', 5, CLAUDE_EDIT_MATCHER),
    entry('SessionStart', 'claude-session-start', 10),
    entry('UserPromptSubmit', 'claude-prompt', 5), // liveness, and hand-off requests for the model (docs/sessions.md)
    entry('Stop', 'claude-turn-end', 5),
    entry('SubagentStop', 'claude-subagent-stop', 5),
    entry('SessionEnd', 'claude-session-end', 5),
    ...postToolEntries('claude', ic, options),
  ];
}

// .codex/hooks.json (Codex hooks, same shape as Claude's; edits arrive as tool_name "apply_patch" or "Bash").
export function codexEntries(ic: IcCommand, options: { shell?: boolean } = {}): HookEntry[] {
  const shell = options.shell !== false;
  return [
    { event: 'PreToolUse', matcher: shell ? CODEX_EDIT_MATCHER_WITH_SHELL : CODEX_EDIT_MATCHER, name: 'codex-pre-edit', command: hookCommand(ic, 'codex-pre-edit'), timeout: 10 },
    ...(shell ? [{ event: 'PreToolUse', matcher: CODEX_SHELL_MATCHER, name: 'codex-pre-shell', command: hookCommand(ic, 'codex-pre-shell'), timeout: 10 }] : []),
    { event: 'SessionEnd', name: 'codex-session-end', command: hookCommand(ic, 'codex-session-end'), timeout: CODEX_SESSION_END_TIMEOUT_S },
    ...postToolEntries('codex', ic, options),
  ];
}

// Our hooks an install no longer wants: the shell hooks under --no-shell; claude-pre-bash where
// claude-pre-shell does its work.
export function retiredHooks(options: { shell?: boolean }): { claude: string[]; codex: string[] } {
  return options.shell !== false
    ? { claude: ['claude-pre-bash'], codex: [] }
    : { claude: ['claude-pre-shell', 'claude-post-tool'], codex: ['codex-pre-shell', 'codex-post-tool', 'codex-turn-end', 'codex-prompt'] };
}

// Custody after a tool call (docs/custody-restore.md): one PostToolUse process per shell command (what it
// changed in others' held files is put back) and per edit or MCP tool (the holder's latest content is
// recorded). Installed by default; install --no-shell leaves shell custody out, this half included.
const CLAUDE_POST_TOOL_MATCHER = 'Bash|Edit|Write|MultiEdit|NotebookEdit|mcp__.*';
const CODEX_POST_TOOL_MATCHER = 'Bash|exec_command|shell|local_shell|apply_patch|mcp__.*';

function postToolEntries(agent: 'claude' | 'codex', ic: IcCommand, options: { shell?: boolean }): HookEntry[] {
  if (options.shell === false) return [];
  const name = `${agent}-post-tool`;
  const post: HookEntry = { event: 'PostToolUse', matcher: agent === 'claude' ? CLAUDE_POST_TOOL_MATCHER : CODEX_POST_TOOL_MATCHER, name, command: hookCommand(ic, name), timeout: 10 };
  if (agent === 'claude') return [post]; // Claude's Stop and UserPromptSubmit hooks are installed whatever the options
  // A Codex command past its yield gets its PostToolUse only once the model polls it: the turn's end (or the
  // next prompt) ends it (src/hooks/custody/open-commands.ts).
  const turn = (event: string, hook: string): HookEntry => ({ event, name: hook, command: hookCommand(ic, hook), timeout: 10 });
  return [post, turn('Stop', 'codex-turn-end'), turn('UserPromptSubmit', 'codex-prompt')];
}
