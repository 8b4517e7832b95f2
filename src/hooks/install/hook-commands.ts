import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { HealthCheck } from '../../store/health';
import { hooksObjectOf, isOurHandler } from './json-hooks';

// The commands our installed hooks run, and whether the program each names runs here (doctor, worktrees).

// `handlersOf`: the handlers of one entry under an event (Claude's and Codex's groups by default).
export function ourCommands(text: string | undefined, names: readonly string[], handlersOf: (entry: unknown) => unknown[] = groupHandlers): string[] {
  const hooks = hooksObjectOf(text);
  if (hooks === undefined) return [];
  const commands = new Set<string>();
  for (const entries of Object.values(hooks)) {
    if (!Array.isArray(entries)) continue;
    for (const handler of entries.flatMap(handlersOf)) if (isOurHandler(handler, names)) commands.add((handler as { command: string }).command);
  }
  return [...commands];
}

export function groupHandlers(group: unknown): unknown[] {
  const handlers = (group as { hooks?: unknown } | null)?.hooks;
  return Array.isArray(handlers) ? handlers : [];
}

// Every program a hook command needs, ic last: `'NODE' 'BIN'` (what install writes), one quoted path (an older
// install), or a bare word.
export function commandPrograms(command: string): string[] {
  const wrapped = /;\s*exec (\S+) coord(?:ination)? hook \S+$/.exec(command); // a shared hook's `command -v ic || …; exec ic coord hook NAME`
  if (wrapped) return [wrapped[1]!];
  const quoted = /^'((?:[^']|'\\'')*)'(?: '((?:[^']|'\\'')*)')?/.exec(command);
  if (quoted)
    return quoted
      .slice(1)
      .filter((word) => word !== undefined)
      .map((word) => word.replace(/'\\''/g, "'"));
  return [command.split(/\s+/)[0] ?? ''];
}

export function runnable(program: string, env: NodeJS.ProcessEnv): boolean {
  const candidates = program.includes('/')
    ? [program]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, program));
  return candidates.some((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export function commandCheck(name: string, file: string, commands: string[], env: NodeJS.ProcessEnv): HealthCheck {
  const broken = [...new Set(commands.flatMap(commandPrograms))].filter((program) => !runnable(program, env));
  if (broken.length === 0) return { name, ok: true, detail: `${file}: the hooks call a working ic` };
  const onPath = broken.every((program) => !program.includes('/'));
  return {
    name,
    ok: false,
    severity: 'warning',
    detail: `${file}: the hooks call ${broken.map((p) => JSON.stringify(p)).join(', ')}, which ${onPath ? 'is not on PATH' : 'does not exist or is not executable'} here, so they fail and edits go unchecked`,
    fix: onPath ? "put ic on PATH (npm install -g), or run `ic coord install` for a personal install with this machine's path" : 'run `ic coord install` again from the ic you use now',
  };
}
