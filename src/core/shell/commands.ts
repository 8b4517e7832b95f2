import { isAbsolute, join, normalize } from 'node:path';
import type { Redirect, Token, Word } from './lex';

// The simple commands of a command line in the order they run, each with the directory it runs in:
// `cd` is followed through `;`, `&&`, `||`, braces and keywords, and undone at the end of a subshell or a
// pipeline stage (which run in their own process).

export interface SimpleCommand {
  /** The words after `VAR=value` prefixes and keywords: argv[0] is the program. */
  argv: Word[];
  redirects: Redirect[];
  /** The directory it runs in; undefined after a `cd` ic cannot follow (`cd -`, `cd "$dir"`). */
  cwd: string | undefined;
}

export interface Walk {
  commands: SimpleCommand[];
  /** Constructs read but not understood (`case`, an unbalanced parenthesis): reported, never guessed. */
  unreadable: string[];
}

// Words that open or close a compound command; the command after them is an ordinary one.
const LEADING_KEYWORDS = new Set(['if', 'then', 'elif', 'else', 'do', 'while', 'until', '!', '{', 'time']);
const CLOSING_KEYWORDS = new Set(['fi', 'done', '}', 'esac']);

export function walkCommands(tokens: readonly Token[], startCwd: string, home: string | undefined): Walk {
  const commands: SimpleCommand[] = [];
  const unreadable: string[] = [];
  const stack: (string | undefined)[] = [];
  let cwd: string | undefined = startCwd;
  let current: SimpleCommand = { argv: [], redirects: [], cwd };
  let inPipeline = false; // the current command is a stage of a pipeline: its `cd` stays in its stage
  let skipToSeparator = false; // `for x in …` / `select`: the word list is not a command

  const finish = (next: string | undefined) => {
    const pipe = next === '|' || next === '|&';
    if (current.argv.length > 0 || current.redirects.length > 0) {
      commands.push(current);
      if (!pipe && !inPipeline) cwd = followCd(current, cwd, home);
    }
    inPipeline = pipe;
    current = { argv: [], redirects: [], cwd };
  };

  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    if (token.kind === 'op') {
      if (token.op === '(') {
        if (current.argv.length > 0) {
          // `name() { … }`: a function definition; its body is read like any other commands
          if (tokens[index + 1]?.kind === 'op' && (tokens[index + 1] as { op: string }).op === ')') index++;
          current = { argv: [], redirects: [], cwd };
          continue;
        }
        stack.push(cwd);
        current.cwd = cwd;
        continue;
      }
      if (token.op === ')') {
        if (skipToSeparator) continue; // a case pattern's `a)`
        finish(undefined);
        if (stack.length === 0) {
          unreadable.push('an unbalanced )');
          continue;
        }
        cwd = stack.pop();
        current = { argv: [], redirects: [], cwd }; // redirections after `)` apply to the subshell: kept as a command of their own
        continue;
      }
      if (token.op === ';;') unreadable.push('a case statement');
      skipToSeparator = false;
      finish(token.op);
      continue;
    }
    if (token.kind === 'redirect') {
      if (!skipToSeparator) current.redirects.push(token);
      continue;
    }
    if (skipToSeparator) continue;
    if (current.argv.length === 0) {
      const text = token.quoted ? undefined : token.value;
      if (text !== undefined && LEADING_KEYWORDS.has(text)) continue;
      if (text !== undefined && CLOSING_KEYWORDS.has(text)) continue;
      if (text === 'for' || text === 'select') {
        skipToSeparator = true;
        continue;
      }
      if (text === 'case') {
        unreadable.push('a case statement');
        skipToSeparator = true;
        continue;
      }
      if (text === 'function') continue;
      if (/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(token.pattern)) continue; // FOO=1 cmd, FOO="a b" cmd, FOO=$(…) cmd
    }
    current.argv.push(token);
  }
  finish(undefined);
  if (stack.length > 0) unreadable.push('an unclosed (');
  return { commands, unreadable };
}

// The directory after this command: `cd DIR` / `pushd DIR` move it, anything ic cannot follow loses it.
function followCd(command: SimpleCommand, cwd: string | undefined, home: string | undefined): string | undefined {
  const name = command.argv[0]?.value;
  if (name !== 'cd' && name !== 'pushd' && name !== 'popd') return cwd;
  if (name === 'popd') return undefined;
  const args = command.argv.slice(1).filter((word) => !(word.value !== undefined && /^-[LPe@]+$/.test(word.value)));
  const target = args[0];
  if (target === undefined) return home;
  if (target.value === undefined || target.value === '-' || target.glob) return undefined;
  if (isAbsolute(target.value)) return normalize(target.value);
  return cwd === undefined ? undefined : normalize(join(cwd, target.value));
}
