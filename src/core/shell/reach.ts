import { dirname, isAbsolute, join, normalize } from 'node:path';
import { walkCommands } from './commands';
import { lex } from './lex';

const DETACHING = new Set(['nohup', 'setsid', 'disown']);

// Where a command may reach beyond the directory it starts in, read from its text (pure: no disk): the
// directories its simple commands run in (`cd ../other && …`), `git -C DIR`, and the directories of
// path arguments that leave the start directory (`/abs/path`, `../x`). Custody checks the repository of
// each, not only the start directory's. `background`: the command starts a job that may outlive it
// (`cmd &`, `nohup`, `setsid`, `disown`), so its writes may land after its after hook.
export function commandReach(command: string, cwd: string, home: string | undefined): { dirs: string[]; background: boolean } {
  const lexed = lex(command, home);
  if (!lexed.ok) return { dirs: [], background: /&\s*(?:$|[^&>])|\b(?:nohup|setsid|disown)\b/.test(command) };
  const background = lexed.tokens.some((token) => token.kind === 'op' && token.op === '&');
  const walk = walkCommands(lexed.tokens, cwd, home);
  const dirs = new Set<string>();
  let detaching = false;
  for (const simple of walk.commands) {
    const here = simple.cwd;
    if (here !== undefined && here !== cwd) dirs.add(here);
    const words = simple.argv.map((word) => word.value);
    if (words[0] !== undefined && DETACHING.has(words[0])) detaching = true;
    if (words[0] === 'cd' || words[0] === 'pushd') continue; // where it leads is the next command's cwd
    for (let i = 0; i < words.length; i++) {
      const word = words[i];
      if (word === undefined) continue;
      if (words[0] === 'git' && word === '-C' && words[i + 1] !== undefined) dirs.add(resolveFrom(here ?? cwd, words[++i]!));
      else if (i > 0 && (isAbsolute(word) || word.startsWith('../')) && here !== undefined) dirs.add(dirname(resolveFrom(here, word)));
    }
  }
  dirs.delete(cwd);
  return { dirs: [...dirs], background: background || detaching };
}

function resolveFrom(dir: string, path: string): string {
  return normalize(isAbsolute(path) ? path : join(dir, path));
}
