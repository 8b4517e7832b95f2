import { shellQuote } from '../session';
import type { HookEntry } from './json-hooks';

export const CLAUDE_HOOK_NAMES = ['claude-pre-edit', 'claude-session-start', 'claude-session-end'] as const;
export const CODEX_HOOK_NAMES = ['codex-pre-edit'] as const;

// The command an agent runs: the absolute, quoted bin path, so ic need not be on PATH.
export function hookCommand(icBin: string, name: string): string {
  return `${shellQuote(icBin)} coord hook ${name}`;
}

// .claude/settings.json (Claude Code hooks: matcher is a regex over tool names, timeout in seconds).
// Nothing on Stop: it fires every turn, and a turn's end is not the session's end.
export function claudeEntries(icBin: string): HookEntry[] {
  return [
    { event: 'PreToolUse', matcher: 'Edit|Write|MultiEdit|NotebookEdit', name: 'claude-pre-edit', command: hookCommand(icBin, 'claude-pre-edit'), timeout: 10 },
    { event: 'SessionStart', name: 'claude-session-start', command: hookCommand(icBin, 'claude-session-start'), timeout: 10 },
    { event: 'SessionEnd', name: 'claude-session-end', command: hookCommand(icBin, 'claude-session-end'), timeout: 5 },
  ];
}

// .codex/hooks.json (Codex hooks, same shape as Claude's; edits arrive as tool_name "apply_patch").
export function codexEntries(icBin: string): HookEntry[] {
  return [{ event: 'PreToolUse', matcher: 'apply_patch', name: 'codex-pre-edit', command: hookCommand(icBin, 'codex-pre-edit'), timeout: 10 }];
}
