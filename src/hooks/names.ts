// The one list of hook names: what `coord hook NAME` runs, what the installer writes, what doctor checks.
// Kept apart from run.ts so that the installer and doctor import a list, not every hook.
export const HOOK_NAMES = [
  'claude-pre-edit',
  'claude-edit-refused',
  'claude-session-start',
  'claude-turn-end',
  'claude-subagent-stop',
  'claude-session-end',
  // UserPromptSubmit: liveness and hand-off requests only (src/hooks/liveness.ts does the work).
  'claude-prompt',
  'codex-pre-edit',
  'codex-session-end',
  // Codex's Stop and UserPromptSubmit: the turn's open shell commands end (src/hooks/custody/open-commands.ts).
  'codex-turn-end',
  'codex-prompt',
  'git-pre-commit',
  // Private staging areas (install --git-index) and the commit-message gate (install --commit-gate).
  'claude-git-index',
  'claude-pre-bash',
  'git-post-commit',
  'git-commit-msg',
  'git-index-path',
  // Shell custody (#19): a shell command's visible writes are checked before it runs (install --no-shell omits them).
  'claude-pre-shell',
  'codex-pre-shell',
  // Custody after a tool call (#19): a shell command's writes to others' held files are put back; an edit
  // tool's write becomes its holder's latest content.
  'claude-post-tool',
  'codex-post-tool',
  // The tool clients, one adapter each in src/hooks/agents/ (see docs/agents.md): Gemini CLI, GitHub Copilot
  // CLI, OpenCode, pi (its extension .pi/extensions/ic.ts) and Cline's CLI (.clinerules/hooks/).
  ...(['gemini', 'copilot', 'opencode', 'pi', 'cline'] as const).flatMap((agent) => (['pre-tool', 'post-tool', 'session-end'] as const).map((event) => `${agent}-${event}` as const)),
  // reference-transaction (install --git-index): no commit from a stale private index reverts another's.
  'git-reference-transaction',
  // post-checkout (install --git): a linked worktree added later gets the main work tree's agent hooks.
  'git-post-checkout',
] as const;
export type HookName = (typeof HOOK_NAMES)[number];

type ClaudeHook = Extract<HookName, `claude-${string}`>;
type CodexHook = Extract<HookName, `codex-${string}`>;
export const CLAUDE_HOOK_NAMES: readonly ClaudeHook[] = HOOK_NAMES.filter((name): name is ClaudeHook => name.startsWith('claude-'));
export const CODEX_HOOK_NAMES: readonly CodexHook[] = HOOK_NAMES.filter((name): name is CodexHook => name.startsWith('codex-'));
