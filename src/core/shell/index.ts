import { walkCommands } from './commands';
import { lex } from './lex';
import { addWordTarget, unreadable, type Disk, type ShellTarget, type Sink } from './targets';
import { readVerb } from './verbs';

export type { Disk, ShellTarget } from './targets';

// The files a shell command will visibly write, read from its text before it runs: redirections, the
// file arguments of writing programs (tee, sed -i, cp, mv, rm, git checkout …), through `cd`, `;`/`&&`/`||`,
// pipelines, subshells and `bash -c` scripts. Cheap and pure: no process, no parser library, the disk
// only through `disk`. What it cannot read is listed as unreadable, never guessed.
export interface ShellWrites {
  targets: ShellTarget[];
  unreadable: string[];
}

export interface ReadOptions {
  cwd: string;
  /** $HOME, for `~` and a bare `cd`; unknown leaves them unreadable. */
  home?: string;
  disk: Disk;
}

// `bash -c "bash -c '…'"` nests; past this depth the rest is unreadable.
const MAX_DEPTH = 4;

export function shellWrites(command: string, options: ReadOptions): ShellWrites {
  const sink: Sink = { targets: [], unreadable: [] };
  readScript(command, options.cwd, options, sink, 0);
  return { targets: dedupe(sink.targets), unreadable: [...new Set(sink.unreadable)] };
}

function readScript(script: string, cwd: string | undefined, options: ReadOptions, sink: Sink, depth: number): void {
  if (depth > MAX_DEPTH) return unreadable(sink, `shell scripts nested more than ${MAX_DEPTH} deep`);
  const lexed = lex(script, options.home);
  if (!lexed.ok) return unreadable(sink, lexed.why);
  if (cwd === undefined) return unreadable(sink, 'a nested script after a cd ic cannot follow');
  const walk = walkCommands(lexed.tokens, cwd, options.home);
  sink.unreadable.push(...walk.unreadable);
  for (const command of walk.commands) {
    let stdin: string | undefined;
    for (const redirect of command.redirects) {
      if (redirect.body !== undefined) stdin = redirect.body;
      else if (redirect.op === '<<<') stdin = redirect.target?.value;
      else if (WRITES.has(redirect.op)) {
        if (redirect.op === '>&' && (redirect.fd !== undefined || redirect.target === undefined || /^[0-9]+-?$|^-$/.test(redirect.target.value ?? redirect.target.pattern))) continue; // 2>&1
        if (redirect.target === undefined) sink.unreadable.push(`a ${redirect.op} with no target`);
        else addWordTarget(sink, redirect.target, command.cwd, options.disk); // a glob target: checked, never reserved
      }
    }
    if (command.argv.length === 0) continue;
    readVerb(command.argv, { sink, cwd: command.cwd, disk: options.disk, stdin, nested: (text, dir) => readScript(text, dir, options, sink, depth + 1) });
  }
}

const WRITES = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

function dedupe(targets: ShellTarget[]): ShellTarget[] {
  const seen = new Set<string>();
  return targets.filter((target) => {
    const key = JSON.stringify(target);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
