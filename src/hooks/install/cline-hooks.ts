import { join } from 'node:path';
import { hookCommand, type IcCommand } from './entries';

// The hook files `ic coord install --cline` writes to .clinerules/hooks/: Cline runs each file named after
// an event (a shell script here, by its #! line) with the event's JSON on stdin. Each one only calls
// `ic coord hook cline-…`. TaskComplete (after each finished task; the end of a `cline "…"` run) and
// SessionShutdown (a cancelled or aborted task) both release the session.
export const CLINE_HOOK_MARKER = '# ic-cline-hook';

export const CLINE_HOOK_FILES = { PreToolUse: 'cline-pre-tool', PostToolUse: 'cline-post-tool', TaskComplete: 'cline-session-end', SessionShutdown: 'cline-session-end' } as const;

export function clineHookFiles(projectRoot: string): string[] {
  return Object.keys(CLINE_HOOK_FILES).map((event) => join(projectRoot, '.clinerules', 'hooks', event));
}

export function renderClineHook(ic: IcCommand, event: keyof typeof CLINE_HOOK_FILES): string {
  return `#!/bin/sh\n${CLINE_HOOK_MARKER} (written by \`ic coord install --cline\`; \`ic coord uninstall --cline\` removes it)\n${hookCommand(ic, CLINE_HOOK_FILES[event])}\n`;
}

// The command line of one of our hook files (for doctor), or undefined for a file that is not ours.
export function clineHookCommand(text: string | undefined): string | undefined {
  if (text === undefined || !text.includes(CLINE_HOOK_MARKER)) return undefined;
  return text.split('\n').find((line) => line.includes(' coord hook cline-'));
}
