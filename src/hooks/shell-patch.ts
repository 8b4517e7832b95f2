import { isAbsolute, join } from 'node:path';
import { pathsFromPatch } from './patch';
import { shellQuote } from '../core/shell';

// Codex also applies a patch through its shell tool: `apply_patch <<'EOF' … EOF` (or `applypatch`, or the
// patch as one quoted argument), optionally after `cd DIR &&`. The hook then sees tool_name "Bash" with the
// command text. Returns the paths those patches touch (relative ones made absolute against `cwd` and any
// `cd`), or undefined when the command applies no patch: every other command is none of ic's business.
const INVOKES_PATCH = /(^|[\s;&|(])(apply_patch|applypatch)(?=[\s<'"]|$)/;
const PATCH_BODY = /\*\*\* Begin Patch[\s\S]*?(?:\*\*\* End Patch|$)/g;
const CD_PREFIX = /^\s*cd\s+("([^"]*)"|'([^']*)'|(\S+))\s*&&/;

export interface ShellPatch {
  paths: string[];
  /** The command applies a patch, but ic found no file header in it. */
  unreadable: boolean;
}

export function shellPatchPaths(command: string, cwd: string): ShellPatch | undefined {
  if (!INVOKES_PATCH.test(command)) return undefined;
  const cd = CD_PREFIX.exec(command);
  const dirArg = cd ? (cd[2] ?? cd[3] ?? cd[4]) : undefined;
  const base = dirArg === undefined ? cwd : isAbsolute(dirArg) ? dirArg : join(cwd, dirArg);
  const paths: string[] = [];
  for (const body of command.match(PATCH_BODY) ?? []) {
    for (const path of pathsFromPatch(body)) {
      const absolute = isAbsolute(path) ? path : join(base, path);
      if (!paths.includes(absolute)) paths.push(absolute);
    }
  }
  return { paths, unreadable: paths.length === 0 };
}

// The shell command of a Bash payload: a string, or an argv array whose last element is the script
// (`["bash", "-lc", "…"]`), its words joined as they are, or with `quote` quoted back into one command line.
export function commandText(value: unknown, quote = false): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((part) => typeof part === 'string')) return value.map((part) => (quote ? shellQuote(part) : part)).join(' ');
  return undefined;
}
